/**
 * Tributary's version, in a module of its own so that the CLI can print it without loading the
 * broker and the client library (host/index.ts re-exports it).
 */
export const TRIBUTARY_VERSION = '0.1.0';
