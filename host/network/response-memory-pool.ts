/**
 * `queued.max.response.bytes` (Tributary-only): one budget, across the Kafka connections of a
 * broker's TCP listeners (not its WebSocket `/kafka` route: websocket-kafka-connection.ts), for
 * the bytes of responses the peers have not taken yet: completed responses held behind an
 * unanswered request plus what the socket has not handed to the kernel (writableLength).
 *
 * Kafka mutes a channel from the moment it reads a request until its response is sent, so a peer
 * that does not read holds at most one response. We pipeline (up to the in-flight window per
 * connection), so without a shared bound many connections pipelining Fetch requests they never
 * read would each hold their window of responses. While the budget is exceeded, a connection
 * that still has a response pending (a request in flight, or response bytes unsent) dispatches
 * nothing new and stops reading (muted, as in Kafka), until the total falls back to the budget;
 * a connection with nothing pending may still send one request at a time (Kafka's own rule), so
 * peers that read keep being answered while peers that do not read hold the budget. Responses are
 * never dropped, refused or reordered: only the reading of new requests waits.
 *
 * Bound: the budget, plus at most one response per connection (a connection with nothing pending
 * when the budget was passed may send one request), and a Fetch begun while the budget is passed
 * answers with its first record batch only (fetch-api.ts, BrokerServices.responseMemory); plus
 * pending bytes exist only once a response completes, so a Fetch holds its expected size
 * (holdUntilTaskEnds) while the dispatch loop that read it runs: the requests one connection
 * pipelined in one read see the Fetches before them, and past the budget the connection mutes
 * itself and those Fetches take one batch. `max.connections` bounds the connections.
 *
 * Each connection reports its pending bytes with update() whenever its pump runs; between runs
 * the figure can only be too high (the kernel takes bytes without an event), never too low, so the
 * budget is never under-counted.
 */

import { SystemTime } from '../io/time.js';
import { ByteTally } from './byte-tally.js';

const systemTime = new SystemTime();
const systemDefer = (task: () => void): void => systemTime.defer(task);

/** One connection's side of the pool. */
export interface ResponseMemoryHolder {
  /** The total fell to the budget or below: dispatch (and read) again. Called from a deferred task. */
  resume(): void;
}

export class ResponseMemoryPool {
  private readonly holdings = new ByteTally<ResponseMemoryHolder>();
  /** Muted connections, in the order they were muted. */
  private waiters = new Set<ResponseMemoryHolder>();
  private wakeScheduled = false;

  /**
   * @param capacityBytes queued.max.response.bytes
   * @param defer runs the wake-up of muted connections outside the caller's stack, in a later turn
   *   (Time.defer; default the system clock's)
   * @throws Error when `capacityBytes` is not a positive safe integer (a bug: the config is validated)
   */
  constructor(
    readonly capacityBytes: number,
    private readonly defer: (task: () => void) => void = systemDefer,
  ) {
    if (!(Number.isSafeInteger(capacityBytes) && capacityBytes > 0)) {
      throw new Error(`ResponseMemoryPool: capacity must be a positive integer, got ${capacityBytes}`);
    }
  }

  /** Pending response bytes of every connection, as last reported. */
  get usedBytes(): number {
    return this.holdings.total;
  }

  /** Connections muted until the total falls to the budget. */
  get waitingCount(): number {
    return this.waiters.size;
  }

  /** True while the total is above the budget. */
  get overCapacity(): boolean {
    return this.holdings.total > this.capacityBytes;
  }

  /** `holder` now has `bytes` of responses pending (held + unsent). */
  update(holder: ResponseMemoryHolder, bytes: number): void {
    if (this.holdings.set(holder, bytes) < 0) this.wakeIfRoom();
  }

  /** `holder` is muted: resume() it once the total is at the budget or below. */
  wait(holder: ResponseMemoryHolder): void {
    this.waiters.add(holder);
  }

  /**
   * Counts `bytes` until the current synchronous task ends (a microtask): a Fetch read in a
   * connection's dispatch loop, whose response reaches update() only after the loop. Never held
   * across a turn, so a long-polling Fetch holds nothing.
   */
  holdUntilTaskEnds(bytes: number): void {
    if (bytes <= 0) return;
    this.holdings.adjust(bytes);
    queueMicrotask(() => {
      this.holdings.adjust(-bytes);
      this.wakeIfRoom();
    });
  }

  /** `holder` closed: its bytes no longer count and it is not woken. */
  remove(holder: ResponseMemoryHolder): void {
    this.update(holder, 0);
    this.waiters.delete(holder);
  }

  private wakeIfRoom(): void {
    if (this.wakeScheduled || this.waiters.size === 0 || this.overCapacity) return;
    this.wakeScheduled = true;
    this.defer(() => {
      this.wakeScheduled = false;
      if (this.overCapacity) return;
      const woken = this.waiters;
      this.waiters = new Set();
      // A resumed connection that passes the budget again mutes itself again (wait()); the later
      // ones then find it over and wait too, in their old order.
      for (const holder of woken) holder.resume();
    });
  }
}
