/**
 * `queued.max.request.bytes` (Kafka's name, KIP-72): one budget, across all connections of a
 * broker, for the bytes of request frames being received. Kafka reserves a frame's whole size from
 * its MemoryPool as soon as the size prefix is read and mutes the channel while the pool has no
 * room; we do the same: a connection holds `max(bytes buffered, size of the frame it is gathering)`
 * and, when that would take the pool past its capacity, stops reading (TCP backpressure, the peer
 * waits) until other connections' frames complete or close. So a flood of half-sent requests
 * cannot grow memory past the capacity (plus at most one socket read per connection that was
 * already in flight when it stopped).
 *
 * Waiters are let in first come, first served; a connection is let in whenever nothing else holds
 * memory, so a frame larger than the whole pool (queued.max.request.bytes below
 * socket.request.max.bytes) still gets through, alone.
 */

/** One connection's side of the pool. */
export interface RequestMemoryHolder {
  /** Stops reading its socket (called when it must wait for memory). */
  pause(): void;
  /** Reads its socket again. */
  resume(): void;
}

interface Holding {
  bytes: number;
  waiting: boolean;
}

export class RequestMemoryPool {
  private readonly holdings = new Map<RequestMemoryHolder, Holding>();
  /** Bytes held by connections that are reading (not waiting). */
  private grantedBytes = 0;
  private readonly waiters: RequestMemoryHolder[] = [];

  /** @param capacityBytes queued.max.request.bytes */
  constructor(readonly capacityBytes: number) {
    if (!(Number.isSafeInteger(capacityBytes) && capacityBytes > 0)) {
      throw new Error(`RequestMemoryPool: capacity must be a positive integer, got ${capacityBytes}`);
    }
  }

  /** Bytes held by every connection (reading or waiting). */
  get usedBytes(): number {
    let total = 0;
    for (const holding of this.holdings.values()) total += holding.bytes;
    return total;
  }

  /** Connections waiting for memory. */
  get waitingCount(): number {
    return this.waiters.length;
  }

  /**
   * `holder` now holds `bytes`. Growing past the capacity makes it wait (pause) until there is
   * room; shrinking lets waiters in. A waiting holder's new size is noted and it keeps waiting.
   */
  update(holder: RequestMemoryHolder, bytes: number): void {
    let holding = this.holdings.get(holder);
    if (holding === undefined) {
      if (bytes === 0) return;
      holding = { bytes: 0, waiting: false };
      this.holdings.set(holder, holding);
    }
    if (holding.waiting) {
      holding.bytes = bytes;
      return;
    }
    const grown = bytes > holding.bytes;
    this.grantedBytes += bytes - holding.bytes;
    holding.bytes = bytes;
    if (grown && this.grantedBytes > this.capacityBytes && this.grantedBytes > bytes) {
      this.grantedBytes -= bytes;
      holding.waiting = true;
      this.waiters.push(holder);
      holder.pause();
      return;
    }
    if (bytes === 0) this.holdings.delete(holder);
    if (!grown) this.admitWaiters();
  }

  /** `holder` closed: its memory goes back to the pool. */
  remove(holder: RequestMemoryHolder): void {
    const holding = this.holdings.get(holder);
    if (holding === undefined) return;
    this.holdings.delete(holder);
    if (holding.waiting) {
      this.waiters.splice(this.waiters.indexOf(holder), 1);
      return;
    }
    this.grantedBytes -= holding.bytes;
    this.admitWaiters();
  }

  private admitWaiters(): void {
    while (this.waiters.length > 0) {
      const next = this.waiters[0]!;
      const holding = this.holdings.get(next)!;
      if (this.grantedBytes > 0 && this.grantedBytes + holding.bytes > this.capacityBytes) return;
      this.waiters.shift();
      holding.waiting = false;
      this.grantedBytes += holding.bytes;
      next.resume();
    }
  }
}
