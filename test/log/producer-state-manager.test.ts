import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { NodeDisk } from '../../host/io/disk.js';
import { buildRecordBatch } from '../../host/record/batch-builder.js';
import {
  incrementSequence,
  readProducerBatchInfo,
  ProducerStateManager,
  type ProducerBatchInfo,
  type ProducerStateDisk,
} from '../../host/log/producer-state-manager.js';
import {
  decodeProducerSnapshot,
  encodeProducerSnapshot,
  parseSnapshotFileName,
  snapshotFileName,
  type ProducerStateEntry,
} from '../../host/log/producer-state-snapshot.js';

/** A minimal in-memory disk with the Disk interface's semantics for the calls snapshots make. */
class MemoryDisk implements ProducerStateDisk {
  readonly files = new Map<string, Buffer>();
  private readonly fds = new Map<number, string>();
  private nextFd = 3;

  open(filePath: string, mode: 'read' | 'readWrite' | 'create'): number {
    if (!this.files.has(filePath)) {
      if (mode !== 'create') throw Object.assign(new Error(`ENOENT ${filePath}`), { code: 'ENOENT' });
      this.files.set(filePath, Buffer.alloc(0));
    }
    const fd = this.nextFd++;
    this.fds.set(fd, filePath);
    return fd;
  }
  close(fd: number): void {
    this.fds.delete(fd);
  }
  read(fd: number, target: Uint8Array, targetOffset: number, length: number, position: number): number {
    const data = this.files.get(this.fds.get(fd)!)!;
    const n = Math.max(0, Math.min(length, data.length - position));
    data.copy(target, targetOffset, position, position + n);
    return n;
  }
  write(fd: number, data: Uint8Array, position: number): void {
    const filePath = this.fds.get(fd)!;
    const current = this.files.get(filePath)!;
    const next = Buffer.alloc(Math.max(current.length, position + data.length));
    current.copy(next);
    Buffer.from(data).copy(next, position);
    this.files.set(filePath, next);
  }
  fsync(): void {}
  fileSize(fd: number): number {
    return this.files.get(this.fds.get(fd)!)!.length;
  }
  truncate(fd: number, length: number): void {
    const filePath = this.fds.get(fd)!;
    const next = Buffer.alloc(length);
    this.files.get(filePath)!.copy(next, 0, 0, length);
    this.files.set(filePath, next);
  }
  exists(filePath: string): boolean {
    return this.files.has(filePath);
  }
  rename(from: string, to: string): void {
    this.files.set(to, this.files.get(from)!);
    this.files.delete(from);
  }
  delete(filePath: string): void {
    this.files.delete(filePath);
  }
  list(dir: string): string[] {
    return [...this.files.keys()]
      .filter((p) => p.startsWith(`${dir}/`))
      .map((p) => p.slice(dir.length + 1))
      .sort();
  }
  fsyncDir(): void {}
}

const DIR = '/data/topic-0';

function manager(disk = new MemoryDisk()): { psm: ProducerStateManager; disk: MemoryDisk } {
  return { psm: new ProducerStateManager({ dir: DIR, disk }), disk };
}

function batch(fields: Partial<ProducerBatchInfo> & { producerId: number; baseSequence: number }): ProducerBatchInfo {
  return {
    baseOffset: 0,
    lastOffsetDelta: 0,
    maxTimestamp: 1_000,
    producerEpoch: 0,
    isTransactional: false,
    isControl: false,
    ...fields,
  };
}

/** Appends like the log would: check, then stamp offsets from `psm.mapEndOffset`, then record. */
function append(psm: ProducerStateManager, batches: ProducerBatchInfo[]): ReturnType<ProducerStateManager['checkAndPrepare']> {
  const result = psm.checkAndPrepare(batches);
  if (result.errorCode !== 0 || result.duplicateOf !== undefined) return result;
  let next = psm.mapEndOffset;
  const stamped = batches.map((b) => {
    const s = { ...b, baseOffset: next };
    next += b.lastOffsetDelta + 1;
    return s;
  });
  psm.onAppended(stamped);
  return result;
}

describe('ProducerStateManager sequence checks', () => {
  it('accepts a new producer starting at sequence 0 and consecutive batches after it', () => {
    const { psm } = manager();
    expect(append(psm, [batch({ producerId: 7, baseSequence: 0, lastOffsetDelta: 2 })]).errorCode).toBe(0);
    expect(append(psm, [batch({ producerId: 7, baseSequence: 3, lastOffsetDelta: 0 })]).errorCode).toBe(0);
    expect(psm.lastEntry(7)!.batches.map((b) => [b.firstSequence, b.lastSequence, b.firstOffset, b.lastOffset])).toEqual([
      [0, 2, 0, 2],
      [3, 3, 3, 3],
    ]);
    expect(psm.mapEndOffset).toBe(4);
  });

  it('refuses a gap in the sequence with OUT_OF_ORDER_SEQUENCE_NUMBER', () => {
    const { psm } = manager();
    append(psm, [batch({ producerId: 7, baseSequence: 0, lastOffsetDelta: 4 })]);
    const result = append(psm, [batch({ producerId: 7, baseSequence: 6 })]);
    expect(result.errorCode).toBe(45);
    expect(result.errorMessage).toContain('expected sequence 5');
  });

  it('accepts any first sequence from a producer it has no state for, and tracks it from there (KIP-360)', () => {
    const { psm } = manager();
    expect(append(psm, [batch({ producerId: 9, baseSequence: 12 })]).errorCode).toBe(0);
    expect(append(psm, [batch({ producerId: 9, baseSequence: 14 })]).errorCode).toBe(45);
  });

  it('refuses an older epoch with INVALID_PRODUCER_EPOCH', () => {
    const { psm } = manager();
    append(psm, [batch({ producerId: 7, producerEpoch: 3, baseSequence: 0 })]);
    expect(append(psm, [batch({ producerId: 7, producerEpoch: 2, baseSequence: 1 })]).errorCode).toBe(47);
  });

  it('restarts sequences at 0 on an epoch bump and refuses a bumped epoch that does not', () => {
    const { psm } = manager();
    append(psm, [batch({ producerId: 7, producerEpoch: 0, baseSequence: 0, lastOffsetDelta: 9 })]);
    expect(append(psm, [batch({ producerId: 7, producerEpoch: 1, baseSequence: 10 })]).errorCode).toBe(45);
    expect(append(psm, [batch({ producerId: 7, producerEpoch: 1, baseSequence: 0 })]).errorCode).toBe(0);
    expect(psm.lastEntry(7)!.producerEpoch).toBe(1);
    expect(psm.lastEntry(7)!.batches).toHaveLength(1);
    // The old epoch's batch is no longer a duplicate, and its epoch is now fenced.
    expect(append(psm, [batch({ producerId: 7, producerEpoch: 0, baseSequence: 0, lastOffsetDelta: 9 })]).errorCode).toBe(47);
  });

  it('acknowledges a retry of any of the last five batches with the original offsets, appending nothing', () => {
    const { psm } = manager();
    for (let i = 0; i < 6; i++) append(psm, [batch({ producerId: 7, baseSequence: i * 2, lastOffsetDelta: 1, maxTimestamp: 100 + i })]);
    const before = psm.mapEndOffset;
    const retry = psm.checkAndPrepare([batch({ producerId: 7, baseSequence: 2, lastOffsetDelta: 1 })]);
    expect(retry).toEqual({ errorCode: 0, duplicateOf: { baseOffset: 2, lastOffset: 3, timestamp: 101 } });
    expect(psm.mapEndOffset).toBe(before);
    // The first batch fell out of the 5-batch cache: its retry is out of order.
    expect(psm.checkAndPrepare([batch({ producerId: 7, baseSequence: 0, lastOffsetDelta: 1 })]).errorCode).toBe(45);
  });

  it('checks several batches of one append against each other', () => {
    const { psm } = manager();
    const ok = append(psm, [
      batch({ producerId: 1, baseSequence: 0, lastOffsetDelta: 1 }),
      batch({ producerId: 1, baseSequence: 2 }),
      batch({ producerId: 2, baseSequence: 0 }),
    ]);
    expect(ok.errorCode).toBe(0);
    expect(psm.checkAndPrepare([batch({ producerId: 1, baseSequence: 3 }), batch({ producerId: 1, baseSequence: 5 })]).errorCode).toBe(45);
    expect(psm.lastEntry(1)!.batches).toHaveLength(2);
  });

  it('ignores batches without a producer id, whatever their epoch and sequence fields', () => {
    const { psm } = manager();
    expect(append(psm, [batch({ producerId: -1, producerEpoch: 0, baseSequence: 0 })]).errorCode).toBe(0);
    expect(append(psm, [batch({ producerId: -1, producerEpoch: -1, baseSequence: -1 })]).errorCode).toBe(0);
    expect(psm.producerCount).toBe(0);
    expect(psm.mapEndOffset).toBe(2);
  });

  it('wraps sequences past 2^31-1 to 0', () => {
    expect(incrementSequence(0x7fffffff, 1)).toBe(0);
    expect(incrementSequence(0x7ffffffe, 3)).toBe(1);
    const { psm } = manager();
    psm.onAppended([batch({ producerId: 7, baseSequence: 0x7ffffffe, lastOffsetDelta: 1, baseOffset: 0 })]);
    expect(append(psm, [batch({ producerId: 7, baseSequence: 0 })]).errorCode).toBe(0);
  });

  it('does not change state when a check fails', () => {
    const { psm } = manager();
    append(psm, [batch({ producerId: 7, baseSequence: 0 })]);
    psm.checkAndPrepare([batch({ producerId: 7, baseSequence: 1 }), batch({ producerId: 7, baseSequence: 9 })]);
    expect(append(psm, [batch({ producerId: 7, baseSequence: 1 })]).errorCode).toBe(0);
  });

  it('tracks the first offset of an open transaction until its control batch', () => {
    const { psm } = manager();
    append(psm, [batch({ producerId: 7, baseSequence: 0 })]);
    append(psm, [batch({ producerId: 8, baseSequence: 0, isTransactional: true, lastOffsetDelta: 2 })]);
    expect(psm.firstUnstableOffset()).toBe(1);
    psm.onAppended([batch({
      producerId: 8, baseSequence: -1, isControl: true, isTransactional: true, baseOffset: 4, endTxnMarker: { controlType: 1, coordinatorEpoch: 0 },
    })]);
    // Stable once the high watermark passes the marker (Kafka's unreplicated transactions).
    expect(psm.firstUnstableOffset(4)).toBe(1);
    expect(psm.firstUnstableOffset(5)).toBe(-1);
  });

  it('expires producers idle longer than producer.id.expiration.ms', () => {
    const disk = new MemoryDisk();
    const psm = new ProducerStateManager({ dir: DIR, disk, producerIdExpirationMs: 1000 });
    append(psm, [batch({ producerId: 1, baseSequence: 0, maxTimestamp: 10_000 })]);
    append(psm, [batch({ producerId: 2, baseSequence: 0, maxTimestamp: 10_500 })]);
    expect(psm.removeExpiredProducers(11_200)).toBe(1);
    expect(psm.lastEntry(1)).toBeUndefined();
    expect(psm.lastEntry(2)).toBeDefined();
  });
});

describe('ProducerStateManager snapshots', () => {
  it('names snapshot files with a 20-digit offset', () => {
    expect(snapshotFileName(42)).toBe('00000000000000000042.snapshot');
    expect(parseSnapshotFileName('00000000000000000042.snapshot')).toBe(42);
    expect(parseSnapshotFileName('00000000000000000042.log')).toBe(-1);
    expect(parseSnapshotFileName('00000000000000000042.snapshot.tmp')).toBe(-1);
  });

  it('round-trips entries through the snapshot encoding (property)', () => {
    const int64 = fc.integer({ min: -1, max: Number.MAX_SAFE_INTEGER });
    const int32 = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
    const entry = fc.record({
      producerId: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
      producerEpoch: fc.integer({ min: -1, max: 32767 }),
      coordinatorEpoch: int32,
      currentTxnFirstOffset: int64,
      lastTimestamp: int64,
      batches: fc.array(
        fc.record({ firstSequence: int32, lastSequence: int32, firstOffset: int64, lastOffset: int64, timestamp: int64 }),
        { maxLength: 5 },
      ),
    });
    fc.assert(
      fc.property(fc.nat({ max: Number.MAX_SAFE_INTEGER }), fc.array(entry, { maxLength: 6 }), (offset, entries) => {
        expect(decodeProducerSnapshot(encodeProducerSnapshot(offset, entries))).toEqual({ snapshotOffset: offset, entries });
      }),
    );
  });

  it('rejects a snapshot with a flipped byte, a truncated tail or trailing bytes', () => {
    const entries: ProducerStateEntry[] = [
      { producerId: 5, producerEpoch: 1, coordinatorEpoch: -1, currentTxnFirstOffset: -1, lastTimestamp: 9, batches: [
        { firstSequence: 0, lastSequence: 4, firstOffset: 10, lastOffset: 14, timestamp: 9 },
      ] },
    ];
    const good = encodeProducerSnapshot(15, entries);
    for (let i = 0; i < good.length; i++) {
      const bad = Buffer.from(good);
      bad[i] = bad[i]! ^ 0x01;
      expect(decodeProducerSnapshot(bad)).toBeNull();
    }
    expect(decodeProducerSnapshot(good.subarray(0, good.length - 1))).toBeNull();
    expect(decodeProducerSnapshot(Buffer.concat([good, Buffer.alloc(1)]))).toBeNull();
  });

  it('keeps deduplicating after a snapshot and a restart', () => {
    const { psm, disk } = manager();
    append(psm, [batch({ producerId: 7, baseSequence: 0, lastOffsetDelta: 4, maxTimestamp: 50 })]);
    append(psm, [batch({ producerId: 7, baseSequence: 5, lastOffsetDelta: 4, maxTimestamp: 60 })]);
    psm.takeSnapshot();
    expect(disk.list(DIR)).toEqual(['00000000000000000010.snapshot']);

    const restarted = new ProducerStateManager({ dir: DIR, disk });
    expect(restarted.load(0, 10)).toBe(10);
    expect(restarted.checkAndPrepare([batch({ producerId: 7, baseSequence: 0, lastOffsetDelta: 4 })])).toEqual({
      errorCode: 0,
      duplicateOf: { baseOffset: 0, lastOffset: 4, timestamp: 50 },
    });
    expect(restarted.checkAndPrepare([batch({ producerId: 7, baseSequence: 10 })]).errorCode).toBe(0);
    expect(restarted.checkAndPrepare([batch({ producerId: 7, baseSequence: 11 })]).errorCode).toBe(45);
  });

  it('rebuilds state past the snapshot by replaying the log tail', () => {
    const { psm, disk } = manager();
    const log: ProducerBatchInfo[] = [];
    const appendAndLog = (b: ProducerBatchInfo): void => {
      const stamped = { ...b, baseOffset: psm.mapEndOffset };
      expect(psm.checkAndPrepare([stamped]).errorCode).toBe(0);
      psm.onAppended([stamped]);
      log.push(stamped);
    };
    appendAndLog(batch({ producerId: 1, baseSequence: 0, lastOffsetDelta: 1 }));
    psm.takeSnapshot(); // at offset 2, like a segment roll
    appendAndLog(batch({ producerId: 1, baseSequence: 2, lastOffsetDelta: 1 }));
    appendAndLog(batch({ producerId: -1, baseSequence: -1 }));
    appendAndLog(batch({ producerId: 2, baseSequence: 0 }));
    // Unclean stop: no snapshot at the end. Recovery loads offset 2 and replays the tail.
    const restarted = new ProducerStateManager({ dir: DIR, disk });
    const replayFrom = restarted.load(0, 6);
    expect(replayFrom).toBe(2);
    for (const b of log) if (b.baseOffset >= replayFrom) restarted.replayBatch(b);
    expect(restarted.mapEndOffset).toBe(6);
    expect(restarted.lastEntry(1)).toEqual(psm.lastEntry(1));
    expect(restarted.lastEntry(2)).toEqual(psm.lastEntry(2));
    expect(restarted.checkAndPrepare([batch({ producerId: 1, baseSequence: 2, lastOffsetDelta: 1 })]).duplicateOf).toEqual({
      baseOffset: 2,
      lastOffset: 3,
      timestamp: 1000,
    });
  });

  it('falls back to an older snapshot when the newest is corrupt, deleting it', () => {
    const { psm, disk } = manager();
    append(psm, [batch({ producerId: 1, baseSequence: 0 })]);
    psm.takeSnapshot();
    append(psm, [batch({ producerId: 1, baseSequence: 1 })]);
    psm.takeSnapshot();
    const newest = `${DIR}/${snapshotFileName(2)}`;
    disk.files.set(newest, disk.files.get(newest)!.subarray(0, 10));
    const restarted = new ProducerStateManager({ dir: DIR, disk });
    expect(restarted.load(0, 2)).toBe(1);
    expect(disk.exists(newest)).toBe(false);
    expect(restarted.lastEntry(1)!.batches.map((b) => b.firstSequence)).toEqual([0]);
  });

  it('deletes snapshots past the log end on load (after a truncation)', () => {
    const { psm, disk } = manager();
    append(psm, [batch({ producerId: 1, baseSequence: 0, lastOffsetDelta: 4 })]);
    psm.takeSnapshot();
    const reloaded = new ProducerStateManager({ dir: DIR, disk });
    expect(reloaded.load(0, 3)).toBe(0);
    expect(reloaded.producerCount).toBe(0);
    expect(reloaded.snapshotOffsets()).toEqual([]);
  });

  it('writes no snapshot for an empty log without producers (a clean stop of idle partitions)', () => {
    const { psm, disk } = manager();
    expect(psm.load(0, 0)).toBe(0);
    expect(psm.takeSnapshot()).toBe(false);
    expect(disk.list(DIR)).toEqual([]);
    // Emptied by retention to offset 40: still nothing to load or replay.
    psm.truncateFullyAndStartAt(40);
    expect(psm.takeSnapshot()).toBe(false);
    expect(disk.list(DIR)).toEqual([]);
  });

  it('writes an empty snapshot for a log of non-idempotent batches, so a restart replays nothing', () => {
    const { psm, disk } = manager();
    append(psm, [batch({ producerId: -1, baseSequence: -1, lastOffsetDelta: 9 })]);
    expect(psm.producerCount).toBe(0);
    expect(psm.takeSnapshot()).toBe(true);
    expect(disk.list(DIR)).toEqual([snapshotFileName(10)]);
    const restarted = new ProducerStateManager({ dir: DIR, disk });
    expect(restarted.load(0, 10)).toBe(10);
  });

  it('does not rewrite a snapshot the state has not changed since, and rewrites it once it has', () => {
    const { psm, disk } = manager();
    append(psm, [batch({ producerId: 3, baseSequence: 0, lastOffsetDelta: 1, maxTimestamp: 10 })]);
    expect(psm.takeSnapshot()).toBe(true);
    expect(psm.takeSnapshot()).toBe(false);
    const restarted = new ProducerStateManager({ dir: DIR, disk, producerIdExpirationMs: 100 });
    expect(restarted.load(0, 2)).toBe(2);
    expect(restarted.takeSnapshot()).toBe(false);
    // Expiry changes the state without moving mapEndOffset: the file must be rewritten.
    expect(restarted.removeExpiredProducers(1_000)).toBe(1);
    expect(restarted.takeSnapshot()).toBe(true);
    const again = new ProducerStateManager({ dir: DIR, disk });
    again.load(0, 2);
    expect(again.producerCount).toBe(0);
    // A snapshot loaded and then found partly below the log start is rewritten too.
    const { psm: second, disk: secondDisk } = manager();
    append(second, [batch({ producerId: 1, baseSequence: 0 })]);
    append(second, [batch({ producerId: 2, baseSequence: 0 })]);
    second.takeSnapshot();
    const trimmed = new ProducerStateManager({ dir: DIR, disk: secondDisk });
    expect(trimmed.load(1, 2)).toBe(2);
    expect(trimmed.producerCount).toBe(1);
    expect(trimmed.takeSnapshot()).toBe(true);
    const reread = new ProducerStateManager({ dir: DIR, disk: secondDisk });
    reread.load(0, 2);
    expect(reread.lastEntry(1)).toBeUndefined();
    expect(reread.lastEntry(2)).toBeDefined();
  });

  it('keeps only the newest snapshots', () => {
    const disk = new MemoryDisk();
    const psm = new ProducerStateManager({ dir: DIR, disk, maxSnapshots: 2 });
    for (let i = 0; i < 4; i++) {
      append(psm, [batch({ producerId: 1, baseSequence: i })]);
      psm.takeSnapshot();
    }
    expect(psm.snapshotOffsets()).toEqual([3, 4]);
    expect(disk.list(DIR).some((name) => name.endsWith('.tmp'))).toBe(false);
  });

  it('forgets producers and snapshots below a new log start offset', () => {
    const { psm } = manager();
    append(psm, [batch({ producerId: 1, baseSequence: 0, lastOffsetDelta: 4 })]);
    psm.takeSnapshot();
    append(psm, [batch({ producerId: 2, baseSequence: 0, lastOffsetDelta: 4 })]);
    psm.takeSnapshot();
    psm.truncateHead(6);
    expect(psm.lastEntry(1)).toBeUndefined();
    expect(psm.lastEntry(2)).toBeDefined();
    expect(psm.snapshotOffsets()).toEqual([10]);
    // Producer 1's state is gone: a mid-sequence batch is accepted (KIP-360), where producer 2's gap is not.
    expect(psm.checkAndPrepare([batch({ producerId: 1, baseSequence: 5 })]).errorCode).toBe(0);
    expect(psm.checkAndPrepare([batch({ producerId: 2, baseSequence: 7 })]).errorCode).toBe(45);
  });
});

describe('ProducerStateManager recovery from the log tail', () => {
  /** A stored log: real v2 batches built by the batch builder, offsets stamped as the leader would. */
  function storedLog(specs: Array<{ producerId: number; producerEpoch?: number; baseSequence: number; records: number; transactional?: boolean }>) {
    const batches: Buffer[] = [];
    let offset = 0;
    for (const spec of specs) {
      batches.push(
        buildRecordBatch({
          baseOffset: offset,
          producerId: spec.producerId,
          producerEpoch: spec.producerEpoch ?? 0,
          baseSequence: spec.baseSequence,
          isTransactional: spec.transactional ?? false,
          records: Array.from({ length: spec.records }, (_, i) => ({ value: `v${offset + i}`, timestamp: 1_000 + offset + i })),
        }),
      );
      offset += spec.records;
    }
    const firstOffsets = batches.map((b) => Number(b.readBigInt64BE(0)));
    const read = (fetchOffset: number, maxBytes: number): Buffer => {
      const parts: Buffer[] = [];
      let size = 0;
      for (let i = 0; i < batches.length; i++) {
        const last = (firstOffsets[i + 1] ?? offset) - 1;
        if (last < fetchOffset) continue;
        if (parts.length > 0 && size + batches[i]!.length > maxBytes) break;
        parts.push(batches[i]!);
        size += batches[i]!.length;
      }
      return Buffer.concat(parts);
    };
    return { read, logEndOffset: offset };
  }

  it('reads producer fields from stored batch headers', () => {
    const batch = buildRecordBatch({
      baseOffset: 42,
      producerId: 9,
      producerEpoch: 2,
      baseSequence: 7,
      isTransactional: true,
      records: [{ value: 'a', timestamp: 5 }, { value: 'b', timestamp: 6 }],
    });
    expect(readProducerBatchInfo(batch, 0)).toEqual({
      baseOffset: 42,
      lastOffsetDelta: 1,
      maxTimestamp: 6,
      producerId: 9,
      producerEpoch: 2,
      baseSequence: 7,
      isTransactional: true,
      isControl: false,
    });
  });

  it('rebuilds from real batches on disk without a snapshot, and from a snapshot plus the tail', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'psm-'));
    try {
      const disk = new NodeDisk();
      const log = storedLog([
        { producerId: 1, baseSequence: 0, records: 3 },
        { producerId: -1, baseSequence: -1, records: 2 },
        { producerId: 2, baseSequence: 0, records: 1 },
        { producerId: 1, baseSequence: 3, records: 2 },
      ]);
      const full = new ProducerStateManager({ dir, disk });
      expect(full.recover(0, log.logEndOffset, log.read)).toBe(4);
      expect(full.mapEndOffset).toBe(8);
      expect(full.lastEntry(1)!.batches.map((b) => [b.firstSequence, b.lastSequence, b.firstOffset, b.lastOffset])).toEqual([
        [0, 2, 0, 2],
        [3, 4, 6, 7],
      ]);
      expect(full.checkAndPrepare([batch({ producerId: 1, baseSequence: 3, lastOffsetDelta: 1 })]).duplicateOf).toMatchObject({
        baseOffset: 6,
        lastOffset: 7,
      });

      // A snapshot at 5 (say a segment roll) then a restart: only the two batches after it are replayed.
      const partial = new ProducerStateManager({ dir, disk });
      partial.recover(0, 5, log.read);
      partial.takeSnapshot();
      expect(readdirSync(dir)).toEqual(['00000000000000000005.snapshot']);
      const restarted = new ProducerStateManager({ dir, disk });
      expect(restarted.recover(0, log.logEndOffset, log.read)).toBe(2);
      expect(restarted.lastEntry(1)).toEqual(full.lastEntry(1));
      expect(restarted.lastEntry(2)).toEqual(full.lastEntry(2));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
