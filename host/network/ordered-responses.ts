/**
 * The ordered-response pipeline of one Kafka connection (held by KafkaConnection, whose state
 * machine serves TCP and WebSocket `/kafka` alike): each request frame is dispatched to the RequestHandler at once,
 * handlers may complete in any order, and responses leave in request order (Kafka's protocol
 * guide: "on a single TCP connection, requests will be processed in the order they are sent and
 * responses will return in that order as well"; clients rely on it).
 *
 *   dispatch(frame) ─► slot queued ─► handler ─► response checked, slot done ─► onCompleted()
 *   flush() ─► while the head slot is done and canWrite(): write(response), slot dropped
 *
 * The owner keeps everything else: where frames come from, how a response is put on the wire
 * (size prefix on TCP, one binary message on WebSocket), backpressure and closing.
 * Per request the pipeline allocates one slot (and, for a Promise result, its two callbacks);
 * response bytes go to the owner as the handler returned them, never copied or concatenated.
 *
 * A handler that throws, rejects or returns something other than ResponseBytes or null is a bug:
 * `onHandlerFailed` is called (once the connection is closed, nothing is called any more).
 */
import type { ConnectionContext, RequestHandler, ResponseBytes } from './network-types.js';

/** What the pipeline asks of the connection that owns it. */
export interface OrderedResponsesOwner {
  /** A response became ready (it may not be the head one): flush and dispatch more if allowed. */
  onCompleted(): void;
  /** The handler threw, rejected or returned a bad value (a bug): close the connection. */
  onHandlerFailed(error: unknown): void;
  /** False holds this response and the later ones until the next flush (output backpressure). */
  canWrite(): boolean;
  /** Puts one response frame (header + body without size prefix, `bytes` long) on the wire. */
  write(response: ResponseBytes, bytes: number): void;
}

/**
 * Largest response frame, bytes: Kafka's frame size is an int32 on every transport, so a
 * handler result above it is a bug rather than something to send.
 */
export const MAX_RESPONSE_BYTES = 0x7fffffff;

/** One request in the queue; `done` once its handler completed with a valid response. */
interface Slot {
  done: boolean;
  response: ResponseBytes | null;
  bytes: number;
}

/** The in-order response queue of one connection (see the file header). */
export class OrderedResponses {
  private readonly queue: Slot[] = [];
  private heldBytes = 0;

  /** `context` is the connection handed to the handler; its `closed` stops all completions. */
  constructor(
    private readonly handler: RequestHandler,
    private readonly context: ConnectionContext,
    private readonly owner: OrderedResponsesOwner,
  ) {}

  /** Requests dispatched whose response is not yet written (or skipped, for a null response). */
  get inFlightRequests(): number {
    return this.queue.length;
  }

  /** Bytes of completed responses still queued (behind an unfinished request, or not yet flushed). */
  get heldResponseBytes(): number {
    return this.heldBytes;
  }

  /** True when the oldest request is answered, i.e. flush() has something to write. */
  get headCompleted(): boolean {
    return this.queue.length > 0 && this.queue[0]!.done;
  }

  /**
   * Queues a slot for `frame` and calls the handler; a synchronous result completes before this
   * returns (owner.onCompleted runs inside, so the owner's pump must tolerate re-entry).
   */
  dispatch(frame: Buffer): void {
    const slot: Slot = { done: false, response: null, bytes: 0 };
    this.queue.push(slot);
    let result: ResponseBytes | null | Promise<ResponseBytes | null>;
    try {
      result = this.handler(frame, this.context);
    } catch (error) {
      this.fail(error);
      return;
    }
    if (isPromiseLike(result)) {
      result.then(
        (response) => this.complete(slot, response),
        (error: unknown) => this.fail(error),
      );
    } else {
      this.complete(slot, result);
    }
  }

  /**
   * Writes the leading completed responses in request order (null ones are skipped) until one is
   * not done or owner.canWrite() refuses; returns how many slots left the queue.
   */
  flush(): number {
    const queue = this.queue;
    let flushed = 0;
    try {
      while (flushed < queue.length && queue[flushed]!.done && !this.context.closed) {
        if (!this.owner.canWrite()) break;
        const slot = queue[flushed]!;
        flushed++;
        this.heldBytes -= slot.bytes;
        if (slot.response !== null) this.owner.write(slot.response, slot.bytes);
      }
    } finally {
      queue.splice(0, flushed);
    }
    return flushed;
  }

  /** Drops every slot (the connection closed); late completions are then ignored. */
  clear(): void {
    this.queue.length = 0;
    this.heldBytes = 0;
  }

  private complete(slot: Slot, response: ResponseBytes | null): void {
    if (this.context.closed) return;
    const bytes = responseLength(response);
    if (bytes < 0) {
      this.fail(new Error(`request handler returned ${describe(response)}, expected Buffer, Buffer[] or null`));
      return;
    }
    if (bytes > MAX_RESPONSE_BYTES) {
      this.fail(new Error(`request handler returned a ${bytes}-byte response, above the int32 frame size`));
      return;
    }
    slot.done = true;
    slot.response = response;
    slot.bytes = bytes;
    this.heldBytes += bytes;
    this.owner.onCompleted();
  }

  private fail(error: unknown): void {
    if (this.context.closed) return;
    this.owner.onHandlerFailed(error);
  }
}

/** Total byte length of a handler result, or -1 when it is not a Buffer, Buffer[] or null. */
function responseLength(response: unknown): number {
  if (response === null) return 0;
  if (Buffer.isBuffer(response)) return response.length;
  if (!Array.isArray(response)) return -1;
  let total = 0;
  for (const part of response) {
    if (!Buffer.isBuffer(part)) return -1;
    total += part.length;
  }
  return total;
}

function isPromiseLike<T>(value: unknown): value is PromiseLike<T> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  return typeof value === 'object' ? Object.prototype.toString.call(value) : typeof value;
}
