/**
 * The syntax of `http.allowed.origins` entries, and origins as browsers serialize them. The
 * gateway's decision on an upgrade's `Origin` header (network/websocket-origin-policy.ts) compares
 * against entries normalized here, so the config check and the gateway agree on one spelling.
 */

/** The list entry that allows every origin. */
export const ALLOW_ALL_ORIGINS = '*';
/** The Origin a browser sends for opaque origins (sandboxed iframes, file:// pages). */
export const NULL_ORIGIN = 'null';

/**
 * Normalizes one `http.allowed.origins` entry: `*`, `null`, or `scheme://host[:port]` (no path),
 * returned as a browser serializes it (lower-case, default port dropped).
 * @throws Error with a message naming what is accepted
 */
export function parseAllowedOrigin(entry: string): string {
  const trimmed = entry.trim();
  if (trimmed === ALLOW_ALL_ORIGINS || trimmed.toLowerCase() === NULL_ORIGIN) return trimmed.toLowerCase();
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^/?#\s]+\/?$/i.test(trimmed)) {
    throw new Error(`"${entry}" is not an origin: write scheme://host[:port] (e.g. https://app.example.com), null, or *`);
  }
  const normalized = normalizeOrigin(trimmed);
  if (normalized === null) throw new Error(`"${entry}" is not an origin: the host or port is not valid`);
  return normalized;
}

/**
 * `scheme://host[:port]` as browsers serialize it (lower-case, default port dropped), or null
 * when `text` does not parse as a URL with a host (WHATWG URL rules).
 */
export function normalizeOrigin(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (url.host === '') return null;
  // URL.origin is "null" for non-special schemes (chrome-extension://...); build it the same way.
  return `${url.protocol}//${url.host}`.toLowerCase();
}
