/**
 * Bytes held per holder and their sum: the bookkeeping of the memory bounds shared across
 * connections (queued.max.response.bytes, response-memory-pool.ts; websocket.max.total.buffered.bytes,
 * websocket-memory-budget.ts). A holder at 0 bytes is forgotten, so the map holds only the
 * connections holding something.
 */
export class ByteTally<K> {
  private readonly byHolder = new Map<K, number>();
  private sum = 0;

  /** Bytes of every holder plus the unowned reservations (adjust), bytes. */
  get total(): number {
    return this.sum;
  }

  /** `holder` holds `bytes` now (0 forgets it); returns the change, bytes (negative when it fell). */
  set(holder: K, bytes: number): number {
    const before = this.byHolder.get(holder) ?? 0;
    if (bytes === before) return 0;
    if (bytes === 0) this.byHolder.delete(holder);
    else this.byHolder.set(holder, bytes);
    this.sum += bytes - before;
    return bytes - before;
  }

  /** Counts `bytes` held by no holder (a reservation; negative gives it back). */
  adjust(bytes: number): void {
    this.sum += bytes;
  }

  /** The holders holding something, with their bytes, in the order they first held. */
  entries(): IterableIterator<[K, number]> {
    return this.byHolder.entries();
  }
}
