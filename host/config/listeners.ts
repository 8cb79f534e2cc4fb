/**
 * Endpoint syntaxes used by broker configs:
 * - Kafka listeners `NAME://host:port` (`listeners`, `advertised.listeners`); an empty host binds
 *   every interface, an IPv6 host is written in brackets (`PLAINTEXT://[::1]:9092`), port 0 asks
 *   the OS for a free port. Names are upper-cased, as Kafka's ListenerName.normalised does.
 * - `host:port` (Tributary's `http.listeners`), same host and port rules.
 * - KRaft voters `id@host:port` (`controller.quorum.voters`).
 * - `NAME:PROTOCOL` entries of `listener.security.protocol.map`.
 */
import { ConfigError } from './config-error.js';

/** Kafka's security protocol names. */
export type SecurityProtocol = 'PLAINTEXT' | 'SSL' | 'SASL_PLAINTEXT' | 'SASL_SSL';
export const SECURITY_PROTOCOLS: readonly SecurityProtocol[] = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'];
/** The protocols Tributary's network layer speaks today. */
export const SUPPORTED_SECURITY_PROTOCOLS: readonly SecurityProtocol[] = ['PLAINTEXT'];

/**
 * One `listener.security.protocol.map` entry, `NAME:PROTOCOL` (name upper-cased).
 * @throws ConfigError for another shape or an unknown protocol
 */
export function securityMapEntry(item: string): [string, SecurityProtocol] {
  const colon = item.indexOf(':');
  const name = colon < 0 ? '' : item.slice(0, colon).trim().toUpperCase();
  const protocol = colon < 0 ? '' : item.slice(colon + 1).trim().toUpperCase();
  if (name === '' || !SECURITY_PROTOCOLS.includes(protocol as SecurityProtocol)) {
    throw new ConfigError(
      `"${item}" is not LISTENER_NAME:PROTOCOL with PROTOCOL one of ${SECURITY_PROTOCOLS.join(', ')}`,
    );
  }
  return [name, protocol as SecurityProtocol];
}

/** A listener endpoint. `host` is '' for "every interface"; IPv6 hosts are stored without brackets. */
export interface Listener {
  readonly name: string;
  readonly host: string;
  readonly port: number;
}

/** A `host:port` endpoint (http.listeners). */
export interface HostPort {
  readonly host: string;
  readonly port: number;
}

/** One `controller.quorum.voters` entry. */
export interface QuorumVoter {
  readonly id: number;
  readonly host: string;
  readonly port: number;
}

const LISTENER = /^([A-Za-z0-9_-]+):\/\/(.*)$/;

/**
 * Parses `NAME://host:port`.
 * @throws ConfigError describing what is wrong and the expected form
 */
export function parseListener(text: string): Listener {
  const match = LISTENER.exec(text.trim());
  if (!match) {
    throw new ConfigError(`"${text}" is not a listener; expected NAME://host:port, e.g. PLAINTEXT://127.0.0.1:9092`);
  }
  const endpoint = parseHostPort(match[2]!, `listener "${text}"`);
  return { name: match[1]!.toUpperCase(), host: endpoint.host, port: endpoint.port };
}

/**
 * Parses `host:port` / `[ipv6]:port` / `:port`; port 0..65535.
 * @param what names the thing being parsed, for the message
 * @throws ConfigError
 */
export function parseHostPort(text: string, what = `"${text}"`): HostPort {
  const trimmed = text.trim();
  let host: string;
  let portText: string;
  if (trimmed.startsWith('[')) {
    const close = trimmed.indexOf(']');
    if (close < 0 || trimmed[close + 1] !== ':') {
      throw new ConfigError(`${what}: an IPv6 host must be written [address]:port, e.g. [::1]:9092`);
    }
    host = trimmed.slice(1, close);
    portText = trimmed.slice(close + 2);
  } else {
    const colon = trimmed.lastIndexOf(':');
    if (colon < 0) throw new ConfigError(`${what}: missing ":port", e.g. 127.0.0.1:9092`);
    host = trimmed.slice(0, colon);
    portText = trimmed.slice(colon + 1);
    if (host.includes(':')) {
      throw new ConfigError(`${what}: an IPv6 host must be written in brackets, e.g. [::1]:9092`);
    }
  }
  if (!/^[A-Za-z0-9.:%_-]*$/.test(host)) throw new ConfigError(`${what}: "${host}" is not a host name or address`);
  if (!/^\d+$/.test(portText) || Number(portText) > 65535) {
    throw new ConfigError(`${what}: port "${portText}" is not a number between 0 and 65535`);
  }
  return { host, port: Number(portText) };
}

/**
 * Parses `id@host:port`.
 * @throws ConfigError
 */
export function parseQuorumVoter(text: string): QuorumVoter {
  const trimmed = text.trim();
  const at = trimmed.indexOf('@');
  const idText = at < 0 ? '' : trimmed.slice(0, at);
  if (!/^\d+$/.test(idText)) {
    throw new ConfigError(`"${text}" is not a quorum voter; expected id@host:port, e.g. 1@127.0.0.1:9093`);
  }
  const endpoint = parseHostPort(trimmed.slice(at + 1), `voter "${text}"`);
  return { id: Number(idText), host: endpoint.host, port: endpoint.port };
}

/** Formats a host for `host:port` text, bracketing IPv6. */
export function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** `NAME://host:port`, the inverse of {@link parseListener}. */
export function formatListener(listener: Listener): string {
  return `${listener.name}://${formatHost(listener.host)}:${listener.port}`;
}

/**
 * The endpoints Metadata publishes, once the listeners are bound: an advertised port 0 becomes the
 * port bound by the listener of the same name (as Kafka registers `boundPort`), and an empty or
 * wildcard host (`0.0.0.0`, `::`) becomes the bound listener's specific host, else `hostname`
 * (Kafka advertises the canonical host name there; Kafka refuses a defaulted 0.0.0.0, Tributary
 * resolves it the same way as an empty host).
 * @param bound the listeners as bound (real ports)
 * @param hostname the host to advertise for wildcard binds; the broker passes os.hostname()
 */
export function resolveAdvertisedListeners(
  advertised: readonly Listener[],
  bound: readonly Listener[],
  hostname: string,
): Listener[] {
  const wildcard = (host: string): boolean => host === '' || host === '0.0.0.0' || host === '::';
  return advertised.map((listener) => {
    const boundListener = bound.find((candidate) => candidate.name === listener.name);
    const port = listener.port === 0 && boundListener ? boundListener.port : listener.port;
    let host = listener.host;
    if (wildcard(host)) host = boundListener && !wildcard(boundListener.host) ? boundListener.host : hostname;
    return { name: listener.name, host, port };
  });
}

/**
 * Two listeners that bind the same port, or null. Kafka refuses a port used twice ("Each listener
 * must have a different port") unless one host is an IPv4 address and the other an IPv6 one;
 * port 0 (a free port each) never clashes.
 */
export function duplicatePortListeners(listeners: readonly Listener[]): [Listener, Listener] | null {
  const isIpv6 = (host: string): boolean => host.includes(':');
  for (let i = 0; i < listeners.length; i++) {
    for (let j = i + 1; j < listeners.length; j++) {
      const [a, b] = [listeners[i]!, listeners[j]!];
      if (a.port === 0 || a.port !== b.port) continue;
      const mixedFamilies = a.host !== '' && b.host !== '' && isIpv6(a.host) !== isIpv6(b.host);
      if (!mixedFamilies) return [a, b];
    }
  }
  return null;
}
