/**
 * The Jepsen-style check of the cluster tests: every write a client was told was acknowledged
 * must be read back, at the offset it was acknowledged at, exactly once.
 *
 * Writers record each acknowledged value with its topic, partition and offset; readers hand back
 * everything they read from offset 0 to the end. {@link AckLedger.verify} lists every violation:
 * an acknowledged value missing or changed at its offset (lost write), a value read at two offsets
 * (duplicate), offsets going backwards within a partition's read. Unacknowledged writes (timeouts,
 * errors) may or may not appear; they are not violations.
 */
export interface ReadRecord {
  readonly offset: number;
  readonly value: string;
}

/** One violation, human-readable. */
export type Violation = string;

export class AckLedger {
  private readonly acked = new Map<string, Map<number, string>>();
  /** Writes attempted whose outcome is unknown (timed out, failed). */
  indeterminate = 0;

  /** Records that `value` was acknowledged at `offset` of `topic`-`partition`. */
  ack(topic: string, partition: number, offset: number, value: string): void {
    const key = `${topic}-${partition}`;
    let byOffset = this.acked.get(key);
    if (byOffset === undefined) this.acked.set(key, (byOffset = new Map()));
    const earlier = byOffset.get(offset);
    if (earlier !== undefined && earlier !== value) {
      throw new Error(`two acknowledgements for ${key}@${offset}: ${earlier} and ${value} (the cluster acknowledged two writes at one offset)`);
    }
    byOffset.set(offset, value);
  }

  /** Number of acknowledged writes. */
  get size(): number {
    let n = 0;
    for (const byOffset of this.acked.values()) n += byOffset.size;
    return n;
  }

  /** The partitions written to, as `topic-partition` keys. */
  partitions(): string[] {
    return [...this.acked.keys()];
  }

  /**
   * Compares the acknowledged writes with what was read back.
   * @param read `topic-partition` → the records read from the start, in read order
   * @returns every violation found (empty when the check passes)
   */
  verify(read: ReadonlyMap<string, readonly ReadRecord[]>): Violation[] {
    const violations: Violation[] = [];
    for (const [key, records] of read) {
      const seenAt = new Map<string, number>();
      let previous = -1;
      for (const record of records) {
        if (record.offset <= previous) violations.push(`${key}: offset ${record.offset} read after ${previous}`);
        previous = record.offset;
        const other = seenAt.get(record.value);
        if (other !== undefined) violations.push(`${key}: value ${record.value} at offsets ${other} and ${record.offset}`);
        seenAt.set(record.value, record.offset);
      }
    }
    for (const [key, byOffset] of this.acked) {
      const atOffset = new Map((read.get(key) ?? []).map((record) => [record.offset, record.value]));
      for (const [offset, value] of byOffset) {
        const found = atOffset.get(offset);
        if (found === undefined) violations.push(`${key}: acknowledged ${value}@${offset} lost`);
        else if (found !== value) violations.push(`${key}: acknowledged ${value}@${offset} reads back as ${found}`);
      }
    }
    return violations;
  }
}
