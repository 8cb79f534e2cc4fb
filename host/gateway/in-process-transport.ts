/**
 * A client Transport (host/clients/transport/transport.ts) that hands Kafka request frames
 * straight to the broker's RequestHandler in this process: no socket, no size prefix, the same
 * dispatcher, limits and semantics as a TCP client gets. The JSON subprotocol drives the client
 * library's Producer and Consumer over it, so `/json` is built on Kafka semantics (groups,
 * commits, idempotence) rather than on broker internals.
 *
 * Like a TCP connection, it answers in request order even when handlers complete out of order,
 * and a request answered with null (Produce acks=0) produces no frame. Responses are delivered
 * asynchronously (never inside `send()`), as a network would. When the handler refuses the
 * connection (`ConnectionContext.close(reason)`, e.g. an unreadable header) the transport closes
 * with a ConnectionError carrying that reason; a handler exception is a broker bug and closes it
 * the same way.
 */
import { ConnectionError } from '../clients/errors.js';
import type { BrokerAddress, Transport, TransportFactory, TransportHandlers, TransportOptions } from '../clients/transport/transport.js';
import type { ConnectionContext, RequestHandler, ResponseBytes } from '../network/network-types.js';

interface Slot {
  done: boolean;
  response: ResponseBytes | null;
}

export interface InProcessTransportOptions {
  handler: RequestHandler;
  /** `peer` reported to the handler (logs), e.g. `127.0.0.1/json#3`; a sequence number is appended. */
  peer: string;
  /** Listener name reported to the handler (Metadata answers with that listener's endpoint). */
  listenerName: string;
}

let nextConnectionId = 1;

export class InProcessTransport implements Transport {
  private handlers: TransportHandlers | null = null;
  private readonly queue: Slot[] = [];
  private isClosed = false;
  private delivering = false;
  private readonly context: ConnectionContext;

  constructor(private readonly options: InProcessTransportOptions, private readonly maxFrameBytes: number) {
    const id = nextConnectionId++;
    const self = this;
    this.context = {
      id,
      peer: `${options.peer}>${id}`,
      listenerName: options.listenerName,
      get closed() {
        return self.isClosed;
      },
      close: (reason: string) => self.fail(new ConnectionError(`the broker closed the connection: ${reason}`)),
    };
  }

  get bufferedBytes(): number {
    return 0;
  }

  connect(handlers: TransportHandlers): Promise<void> {
    if (this.handlers !== null || this.isClosed) return Promise.reject(new ConnectionError('in-process transport: connect called twice'));
    this.handlers = handlers;
    return Promise.resolve();
  }

  send(frame: Uint8Array): boolean {
    if (this.isClosed || this.handlers === null) return false;
    const request = Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength);
    const slot: Slot = { done: false, response: null };
    this.queue.push(slot);
    let result: ResponseBytes | null | Promise<ResponseBytes | null>;
    try {
      result = this.options.handler(request, this.context);
    } catch (error) {
      this.fail(new ConnectionError('the broker failed handling a request', { cause: error }));
      return false;
    }
    if (typeof (result as Promise<unknown> | null)?.then === 'function') {
      (result as Promise<ResponseBytes | null>).then(
        (response) => this.complete(slot, response),
        (error: unknown) => this.fail(new ConnectionError('the broker failed handling a request', { cause: error })),
      );
    } else {
      // Deliver after send() returns, as a network would.
      queueMicrotask(() => this.complete(slot, result as ResponseBytes | null));
    }
    return true;
  }

  close(): Promise<void> {
    return this.finish(undefined);
  }

  private complete(slot: Slot, response: ResponseBytes | null): void {
    if (this.isClosed) return;
    slot.done = true;
    slot.response = response;
    this.deliver();
  }

  private deliver(): void {
    if (this.delivering) return;
    this.delivering = true;
    try {
      while (!this.isClosed && this.queue.length > 0 && this.queue[0]!.done) {
        const { response } = this.queue.shift()!;
        if (response === null) continue;
        const frame = Buffer.isBuffer(response) ? response : Buffer.concat(response as readonly Buffer[]);
        if (frame.length > this.maxFrameBytes) {
          this.fail(new ConnectionError(`the broker sent a frame of ${frame.length} bytes (limit ${this.maxFrameBytes})`));
          return;
        }
        this.handlers?.onFrame(frame);
      }
    } finally {
      this.delivering = false;
    }
  }

  private fail(error: Error): void {
    void this.finish(error);
  }

  /** Closes at once; the client hears about it in a microtask (never inside its own send()). */
  private finish(error: Error | undefined): Promise<void> {
    if (this.isClosed) return Promise.resolve();
    this.isClosed = true;
    this.queue.length = 0;
    const handlers = this.handlers;
    this.handlers = null;
    return Promise.resolve().then(() => handlers?.onClose(error));
  }
}

/**
 * A TransportFactory for the client library: every "broker address" leads to `handler` (this
 * process is the only broker the client can reach).
 */
export function inProcessTransportFactory(options: InProcessTransportOptions): TransportFactory {
  return (_address: BrokerAddress, transportOptions: TransportOptions) => new InProcessTransport(options, transportOptions.maxFrameBytes);
}
