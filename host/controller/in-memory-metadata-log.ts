/**
 * A MetadataLog in memory: for tests, simulations, and handler tests elsewhere that want a real
 * QuorumController without a disk. `failNextAppends` injects storage failures.
 */
import { type MetadataLog, type MetadataLogEntry, MetadataLogError } from './metadata-log.js';

export class InMemoryMetadataLog implements MetadataLog {
  private readonly entries: MetadataLogEntry[] = [];
  /** Batch boundaries: the offset of each appended batch's first record. */
  readonly batchBaseOffsets: number[] = [];
  /** While > 0, each append fails with MetadataLogError and decrements it. */
  failNextAppends = 0;

  append(values: readonly Uint8Array[]): number {
    if (this.failNextAppends > 0) {
      this.failNextAppends--;
      throw new MetadataLogError('injected metadata log failure');
    }
    const baseOffset = this.entries.length;
    this.batchBaseOffsets.push(baseOffset);
    values.forEach((value, i) => this.entries.push({ offset: baseOffset + i, value: Uint8Array.from(value) }));
    return baseOffset;
  }

  readAll(): Iterable<MetadataLogEntry> {
    return [...this.entries];
  }

  endOffset(): number {
    return this.entries.length;
  }
}
