/**
 * Tributary's package entry point. Exports grow as the broker and client land.
 */
export const TRIBUTARY_VERSION = '0.1.0';
