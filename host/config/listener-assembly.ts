/**
 * The listener configs of a broker checked against each other (part of loadBrokerConfig), and the
 * ConfigError of an inconsistent combination.
 */
import type { ConfigValue } from './config-def.js';
import { ConfigError } from './config-error.js';
import {
  duplicatePortListeners,
  formatListener,
  type Listener,
  parseListener,
  type SecurityProtocol,
  securityMapEntry,
  SUPPORTED_SECURITY_PROTOCOLS,
} from './listeners.js';

/** A config's parsed value (set or default), by Kafka name. */
type ConfigGetter = <T extends ConfigValue>(name: string) => T;
/** A config's text as written, for messages; undefined when left at its default. */
type ShownConfig = (name: string) => string | undefined;

/** The ConfigError of a value that does not fit with the others, naming the key and what is accepted. */
export function inconsistent(key: string, value: string | undefined, message: string, accepted: string): ConfigError {
  const shown = value === undefined ? '' : ` ${JSON.stringify(value)}`;
  return new ConfigError(`Invalid value${shown} for config ${key}: ${message}. Accepted: ${accepted}.`, {
    key,
    ...(value === undefined ? {} : { value }),
    accepted,
  });
}

/**
 * listeners, listener.security.protocol.map and advertised.listeners, checked against each other
 * and the roles. @throws ConfigError for an inconsistent combination
 */
export function assembleListeners(
  get: ConfigGetter,
  shown: ShownConfig,
  originals: ReadonlyMap<string, string>,
  processRoles: readonly ('broker' | 'controller')[],
  controllerListenerNames: readonly string[],
): { listeners: Listener[]; advertisedListeners: Listener[]; protocolMap: Record<string, SecurityProtocol> } {
  const listeners = get<string[]>('listeners').map(parseListener);
  const seenNames = new Set<string>();
  for (const listener of listeners) {
    if (seenNames.has(listener.name)) {
      throw inconsistent('listeners', shown('listeners'), `the listener name ${listener.name} is used twice`, 'one entry per listener name');
    }
    seenNames.add(listener.name);
  }
  const clash = duplicatePortListeners(listeners);
  if (clash !== null) {
    throw inconsistent('listeners', shown('listeners'), `two listeners bind port ${clash[0].port} (${clash.map(formatListener).join(' and ')})`,
      'a different port per listener');
  }
  for (const name of controllerListenerNames) {
    if (processRoles.includes('controller') && !seenNames.has(name)) {
      throw inconsistent('controller.listener.names', shown('controller.listener.names'),
        `${name} is not one of the listeners (${[...seenNames].join(', ')})`, 'names of entries in listeners');
    }
  }
  const clientListeners = listeners.filter((listener) => !controllerListenerNames.includes(listener.name));
  if (processRoles.includes('broker') && clientListeners.length === 0) {
    throw inconsistent('listeners', shown('listeners') ?? get<string[]>('listeners').join(','),
      'the broker role needs a listener that is not a controller listener', 'at least one client listener, e.g. PLAINTEXT://127.0.0.1:9092');
  }

  const protocolMap: Record<string, SecurityProtocol> = {};
  for (const item of get<string[]>('listener.security.protocol.map')) {
    const [name, protocol] = securityMapEntry(item);
    protocolMap[name] = protocol;
  }
  if (!originals.has('listener.security.protocol.map')) {
    // Kafka 3.x maps controller listeners to PLAINTEXT when the map is left at its default.
    for (const name of controllerListenerNames) protocolMap[name] ??= 'PLAINTEXT';
  }
  for (const listener of listeners) {
    const protocol = protocolMap[listener.name];
    if (protocol === undefined) {
      throw inconsistent('listener.security.protocol.map', shown('listener.security.protocol.map'),
        `it has no entry for listener ${listener.name}`, `a list with ${listener.name}:PLAINTEXT`);
    }
    if (!SUPPORTED_SECURITY_PROTOCOLS.includes(protocol)) {
      throw inconsistent('listeners', formatListener(listener),
        `listener ${listener.name} uses security protocol ${protocol}, which Tributary does not support yet`,
        `listeners mapped to ${SUPPORTED_SECURITY_PROTOCOLS.join(', ')}`);
    }
  }

  const advertisedRaw = get<string[] | null>('advertised.listeners');
  const advertisedListeners = advertisedRaw === null ? clientListeners : advertisedRaw.map(parseListener);
  const advertisedNames = new Set<string>();
  for (const listener of advertisedListeners) {
    if (advertisedRaw === null) break;
    if (!seenNames.has(listener.name)) {
      throw inconsistent('advertised.listeners', formatListener(listener),
        `${listener.name} is not the name of one of the listeners (${[...seenNames].join(', ')})`, 'entries named like entries of listeners');
    }
    if (advertisedNames.has(listener.name)) {
      throw inconsistent('advertised.listeners', shown('advertised.listeners'), `${listener.name} appears twice`, 'one entry per listener name');
    }
    advertisedNames.add(listener.name);
    if (listener.host === '0.0.0.0' || listener.host === '::') {
      throw inconsistent('advertised.listeners', formatListener(listener),
        'clients cannot connect to the non-routable meta-address', 'a host name or address clients can reach');
    }
  }
  return { listeners, advertisedListeners, protocolMap };
}
