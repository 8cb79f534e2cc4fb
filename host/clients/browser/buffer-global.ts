/**
 * Injected into the browser bundle (esbuild `inject`): every free `Buffer` in the client library
 * (protocol Reader/Writer, record codecs) resolves to the `buffer` package, a pure-JS
 * implementation of Node's Buffer API on Uint8Array.
 */
export { Buffer } from 'buffer';
