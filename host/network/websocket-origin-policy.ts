/**
 * Which browser pages may open WebSockets on the gateway (`http.allowed.origins`).
 *
 * Browsers let any page open a WebSocket to any address, including 127.0.0.1: without a check,
 * a page on any site a developer visits could produce to and read from a broker on their machine
 * (cross-site WebSocket hijacking). Browsers always send the page's `Origin` on the upgrade, and
 * a page cannot forge it, so the gateway decides on it:
 *
 * - no `Origin` header: allowed. Non-browser clients (Node, kcat-style tools, websocat) send none,
 *   and anything that can forge headers can reach the TCP listener anyway;
 * - a page on a loopback host (`localhost`, `*.localhost`, `127.0.0.0/8`, `[::1]`), any scheme
 *   and port: allowed, the local development case;
 * - a page on the gateway's own bind host (e.g. `http.listeners=192.168.1.5:8080` allows
 *   `http://192.168.1.5:3000`; not for wildcard binds 0.0.0.0 / ::): allowed;
 * - an origin listed in `http.allowed.origins` (`scheme://host[:port]`, compared as browsers
 *   serialize it; `null` for sandboxed and file:// pages): allowed;
 * - `*` in the list: every origin allowed (the pre-check behaviour);
 * - anything else: the upgrade is refused with HTTP 403.
 *
 * The Host header is never trusted for this: a DNS-rebinding page on `evil.example` sends
 * `Host: evil.example:8080` and `Origin: http://evil.example`, which would look same-origin.
 *
 * The entries' syntax (parseAllowedOrigin) belongs to the config (config/allowed-origins.ts).
 */
import { ALLOW_ALL_ORIGINS, normalizeOrigin, NULL_ORIGIN, parseAllowedOrigin } from '../config/allowed-origins.js';

export interface OriginPolicyOptions {
  /** `http.allowed.origins` entries (parsed or raw); empty = the safe default described above. */
  allowedOrigins?: readonly string[];
  /** The gateway's bind host (e.g. `127.0.0.1`, `0.0.0.0`, `::1`, `broker.lan`). */
  gatewayHost: string;
}

/** The decision for one upgrade's `Origin` header value (empty string = no header). */
export type OriginDecision = { allowed: true } | { allowed: false; reason: string };

export class OriginPolicy {
  private readonly allowAll: boolean;
  private readonly listed: ReadonlySet<string>;
  /** The gateway's own host as URL.hostname writes it, null for wildcard binds. */
  private readonly gatewayHostname: string | null;

  /** @throws Error for an entry that is not an origin (see config/allowed-origins.ts parseAllowedOrigin) */
  constructor(options: OriginPolicyOptions) {
    const entries = (options.allowedOrigins ?? []).map(parseAllowedOrigin);
    this.allowAll = entries.includes(ALLOW_ALL_ORIGINS);
    this.listed = new Set(entries);
    this.gatewayHostname = isWildcardHost(options.gatewayHost) ? null : hostnameOf(options.gatewayHost);
  }

  /** Decides for the raw `Origin` header of an upgrade request ('' when absent). */
  check(originHeader: string): OriginDecision {
    const origin = originHeader.trim();
    if (origin === '' || this.allowAll) return { allowed: true };
    if (origin.toLowerCase() === NULL_ORIGIN) {
      return this.listed.has(NULL_ORIGIN) ? { allowed: true } : refused(origin);
    }
    const normalized = normalizeOrigin(origin);
    if (normalized === null) return refused(origin);
    if (this.listed.has(normalized)) return { allowed: true };
    const hostname = hostnameOfOrigin(normalized);
    if (hostname !== null && (isLoopbackHostname(hostname) || hostname === this.gatewayHostname)) return { allowed: true };
    return refused(origin);
  }

  /**
   * Decides for the raw `Host` header of a request to a browser-facing HTTP application (DNS
   * rebinding: a page whose own name resolves to this listener is same-origin to the browser, so
   * it sends no Origin on GETs, but its Host is its own name). Allowed: no header (HTTP/1.0
   * tools), a loopback name, an IP literal (rebinding needs a name), the listener's bind host, the
   * host of an origin listed in `http.allowed.origins`, or any host with `*` listed.
   */
  checkHost(hostHeader: string): OriginDecision {
    const host = hostHeader.trim();
    if (host === '' || this.allowAll) return { allowed: true };
    const hostname = hostnameOf(host.replace(/:\d+$/, ''));
    if (hostname === null) return refusedHost(host);
    if (isLoopbackHostname(hostname) || hostname === this.gatewayHostname || isIpLiteral(hostname)) return { allowed: true };
    for (const listed of this.listed) {
      if (listed !== NULL_ORIGIN && hostnameOfOrigin(listed) === hostname) return { allowed: true };
    }
    return refusedHost(host);
  }
}

function refusedHost(host: string): OriginDecision {
  return {
    allowed: false,
    reason: `Host ${host.slice(0, 200)} is not this listener's (open it as localhost, by IP address, or add its origin to http.allowed.origins)`,
  };
}

function isIpLiteral(hostname: string): boolean {
  return hostname.startsWith('[') || /^\d+\.\d+\.\d+\.\d+$/.test(hostname);
}

function refused(origin: string): OriginDecision {
  return {
    allowed: false,
    reason: `Origin ${origin.slice(0, 200)} is not allowed (pages on localhost or the gateway's host are; add it to http.allowed.origins)`,
  };
}

function hostnameOfOrigin(origin: string): string | null {
  try {
    return new URL(origin).hostname;
  } catch {
    return null;
  }
}

/** A bind host as URL.hostname writes it (IPv6 in brackets, IPv4 canonical), null if unparsable. */
function hostnameOf(host: string): string | null {
  const bracketed = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  try {
    return new URL(`http://${bracketed}`).hostname;
  } catch {
    return null;
  }
}

function isWildcardHost(host: string): boolean {
  return host === '' || host === '0.0.0.0' || host === '::' || host === '[::]';
}

function isLoopbackHostname(hostname: string): boolean {
  return hostname === 'localhost' || hostname.endsWith('.localhost') || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}
