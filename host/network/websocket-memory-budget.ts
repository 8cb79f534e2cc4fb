/**
 * `websocket.max.total.buffered.bytes` (Tributary-only): one bound on the bytes all of a gateway's
 * WebSockets hold together (both routes: `/kafka` requests received but not dispatched, held
 * responses and uWS's buffered output; `/json` buffered output).
 *
 * Each socket has its own hard bound (websocket.max.buffered.bytes) and the gateway has
 * max.connections, but their product is no bound at all (10,000 x 128 MiB). uWebSockets.js cannot
 * stop reading a WebSocket, so the TCP listeners' answer (stop reading: queued.max.request.bytes
 * and queued.max.response.bytes) is not available: a socket that keeps sending while it does not
 * read can only be cut off. Past the bound, the socket holding the most is cut off (without a
 * close frame, which would queue behind what its peer ignores), then the next largest, until the
 * total is back under it: peers that read hold little, and are not the largest while one that
 * does not read exists.
 *
 * Each socket reports what it holds with update() after its events (a message, a pump of its
 * responses, a drain, the gateway's periodic timer check). The cut-off runs in a later event-loop
 * turn (`defer`), never inside the reporting socket's own callback; the figures are re-read
 * then, so a socket that drained meanwhile is not cut. Between a report and that turn the total
 * can pass the bound by what one turn adds, itself bounded per socket.
 */

import { ByteTally } from './byte-tally.js';

/** One socket's side of the budget. */
export interface BufferedMemoryHolder {
  /** Bytes the socket holds now (re-read before a cut-off). */
  readonly heldBytes: number;
  /** Cuts the socket off without a close frame, logging `reason`. */
  terminate(reason: string): void;
}

/** The config named in the cut-off reason. */
export const WEBSOCKET_TOTAL_BUFFERED_CONFIG = 'websocket.max.total.buffered.bytes';

export class WebSocketMemoryBudget {
  private readonly holdings = new ByteTally<BufferedMemoryHolder>();
  private checkScheduled = false;
  private cutOffCount = 0;

  /**
   * @param capacityBytes websocket.max.total.buffered.bytes, bytes
   * @param defer runs the cut-off in a later event-loop turn (Time.defer)
   * @throws RangeError when `capacityBytes` is not a positive safe integer
   */
  constructor(
    readonly capacityBytes: number,
    private readonly defer: (task: () => void) => void,
  ) {
    if (!(Number.isSafeInteger(capacityBytes) && capacityBytes > 0)) {
      throw new RangeError(`WebSocketMemoryBudget: capacity must be a positive integer, got ${capacityBytes}`);
    }
  }

  /** Bytes held by every socket, as last reported. */
  get usedBytes(): number {
    return this.holdings.total;
  }

  /** Sockets cut off by this budget since it was made. */
  get cutOffs(): number {
    return this.cutOffCount;
  }

  /** `holder` holds `bytes` now; past the capacity, a cut-off is scheduled for a later turn. */
  update(holder: BufferedMemoryHolder, bytes: number): void {
    this.holdings.set(holder, bytes);
    if (this.holdings.total > this.capacityBytes && !this.checkScheduled) {
      this.checkScheduled = true;
      this.defer(() => this.enforce());
    }
  }

  /** `holder` closed: its bytes no longer count. */
  remove(holder: BufferedMemoryHolder): void {
    this.update(holder, 0);
  }

  /** Re-reads every figure, then cuts off the largest holders until the total is under the capacity. */
  private enforce(): void {
    // Held while re-reading and cutting: reports made meanwhile are covered by this pass.
    for (const [holder] of [...this.holdings.entries()]) this.update(holder, holder.heldBytes);
    while (this.holdings.total > this.capacityBytes) {
      let largest: BufferedMemoryHolder | null = null;
      let largestBytes = 0;
      for (const [holder, bytes] of this.holdings.entries()) {
        if (bytes > largestBytes) {
          largest = holder;
          largestBytes = bytes;
        }
      }
      if (largest === null) break;
      const total = this.holdings.total;
      // Removed first: the socket's close reports back or not; it no longer counts either way.
      this.remove(largest);
      this.cutOffCount++;
      largest.terminate(
        `holds ${largestBytes} bytes, the most of the WebSockets holding ${total} bytes together, ` +
          `above ${WEBSOCKET_TOTAL_BUFFERED_CONFIG} (${this.capacityBytes}): the peer is not reading its responses`,
      );
    }
    this.checkScheduled = false;
  }
}
