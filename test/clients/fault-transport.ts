/**
 * Wraps any TransportFactory so that chosen responses are lost: the request reaches the broker
 * (and takes effect), its response is discarded and the connection closed, so the client cannot
 * know whether it was applied (what idempotent retries exist for). Transport-neutral, so the same
 * fault runs over TCP and over the gateway (test/browser/transports.test.ts).
 */
import { ConnectionError } from '../../host/clients/errors.js';
import { tcpTransportFactory } from '../../host/clients/transport/tcp-transport.js';
import type { Transport, TransportFactory } from '../../host/clients/transport/transport.js';

export class ResponseDropper {
  /** Requests sent per api key. */
  readonly sent = new Map<number, number>();
  private readonly dropsLeft = new Map<number, number>();

  constructor(private readonly inner: TransportFactory) {}

  /** Drops the responses of the next `count` requests of `apiKey`. */
  dropResponses(apiKey: number, count = 1): void {
    this.dropsLeft.set(apiKey, (this.dropsLeft.get(apiKey) ?? 0) + count);
  }

  readonly factory: TransportFactory = (address, options) => {
    const inner = this.inner(address, options);
    const doomed = new Set<number>();
    let closed = false;
    const transport: Transport = {
      get bufferedBytes() { return inner.bufferedBytes; },
      connect: (handlers) => inner.connect({
        onFrame: (frame) => {
          if (closed) return;
          const correlationId = new DataView(frame.buffer, frame.byteOffset, 4).getInt32(0);
          if (doomed.has(correlationId)) {
            closed = true;
            void inner.close();
            handlers.onClose(new ConnectionError('fault injection dropped a response'));
            return;
          }
          handlers.onFrame(frame);
        },
        onClose: (error) => {
          if (closed) return;
          closed = true;
          handlers.onClose(error);
        },
      }),
      send: (frame) => {
        const view = new DataView(frame.buffer, frame.byteOffset, 8);
        const apiKey = view.getInt16(0);
        this.sent.set(apiKey, (this.sent.get(apiKey) ?? 0) + 1);
        const left = this.dropsLeft.get(apiKey) ?? 0;
        if (left > 0) {
          this.dropsLeft.set(apiKey, left - 1);
          doomed.add(view.getInt32(4));
        }
        return inner.send(frame);
      },
      close: () => inner.close(),
    };
    return transport;
  };
}

/** The same fault over the TCP transport (the client's default in Node). */
export class FaultInjector extends ResponseDropper {
  constructor() {
    super(tcpTransportFactory);
  }
}
