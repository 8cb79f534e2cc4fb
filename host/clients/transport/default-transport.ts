/**
 * Which transport clients use when none is given. In Node it is TCP, loaded lazily so that this
 * module (and everything importing it) stays free of Node built-ins for browser bundles; a
 * browser entry point registers its WebSocket transport with setDefaultTransportFactory().
 */
import type { BrokerAddress, Transport, TransportFactory, TransportOptions } from './transport.js';

let registered: TransportFactory | null = null;

/** Makes `factory` the transport of every client created without an explicit `transportFactory`. */
export function setDefaultTransportFactory(factory: TransportFactory | null): void {
  registered = factory;
}

/**
 * The registered factory, else TCP when running on Node.
 * @throws Error when neither is available (a browser without a registered transport)
 */
export async function resolveDefaultTransportFactory(): Promise<TransportFactory> {
  if (registered !== null) return registered;
  const isNode = typeof globalThis.process === 'object' && typeof globalThis.process?.versions?.node === 'string';
  if (!isNode) {
    throw new Error('no transport: pass transportFactory (e.g. a WebSocket transport) or call setDefaultTransportFactory()');
  }
  const tcp = await import('./tcp-transport.js');
  return tcp.tcpTransportFactory;
}

/** A factory that resolves the default lazily on first use (keeps constructors synchronous). */
export function lazyDefaultTransportFactory(): TransportFactory {
  let resolved: TransportFactory | null = registered;
  return (address: BrokerAddress, options: TransportOptions): Transport => {
    if (resolved !== null) return resolved(address, options);
    let inner: Transport | null = null;
    // The first connection waits for the module load; later ones use `resolved` directly.
    const transport: Transport = {
      get bufferedBytes() { return inner?.bufferedBytes ?? 0; },
      async connect(handlers) {
        resolved ??= await resolveDefaultTransportFactory();
        inner = resolved(address, options);
        await inner.connect(handlers);
      },
      send(frame) { return inner !== null && inner.send(frame); },
      async close() { if (inner !== null) await inner.close(); },
    };
    return transport;
  };
}
