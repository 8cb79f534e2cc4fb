/**
 * Shared set-up for the log tests: temp directories, batch building, opening logs on a real or
 * fault-injecting disk, and structural checks (batches parse, indexes equal a rebuild).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { expect } from 'vitest';
import { ManualClock } from '../../host/io/clock.js';
import type { Disk } from '../../host/io/disk.js';
import { defaultLogConfig, type LogConfig } from '../../host/log/log-config.js';
import { createStorageContext, type StorageContext } from '../../host/log/storage-context.js';
import { UnifiedLog, type UnifiedLogOptions } from '../../host/log/unified-log.js';
import { buildRecordBatch, type RecordInput } from '../../host/record/batch-builder.js';
import { readBatch } from '../../host/record/records.js';

const tempDirs: string[] = [];

/** A fresh temporary directory, removed by {@link removeTempDirs}. */
export function tempDir(prefix = 'tributary-log-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

/** Call from afterEach. */
export function removeTempDirs(): void {
  for (const dir of tempDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/** A small config for tests: tiny segments and index interval, everything else Kafka's default. */
export function testConfig(overrides: Partial<LogConfig> = {}): LogConfig {
  return { ...defaultLogConfig, segmentBytes: 4096, indexIntervalBytes: 256, ...overrides };
}

/** One uncompressed batch of `count` records with keys `k<i>` and values of `valueBytes` bytes. */
export function makeBatch(count: number, options: { timestamp?: number; valueBytes?: number; keyPrefix?: string; seed?: number } = {}): Buffer {
  const records: RecordInput[] = [];
  for (let i = 0; i < count; i++) {
    records.push({
      key: `${options.keyPrefix ?? 'k'}${i}`,
      value: Buffer.alloc(options.valueBytes ?? 20, (options.seed ?? 0) + i),
      timestamp: (options.timestamp ?? 1_700_000_000_000) + i,
    });
  }
  return buildRecordBatch({ records });
}

export interface OpenedLog {
  log: UnifiedLog;
  context: StorageContext;
  clock: ManualClock;
}

/** Opens a log in `dir` (default: a new temp dir) on `disk` (default: the real one). */
export function openLog(options: {
  dir?: string; disk?: Disk; clock?: ManualClock; config?: Partial<LogConfig>; context?: StorageContext;
  extra?: Partial<UnifiedLogOptions>; maxOpenFiles?: number; maxEvictableIndexBytes?: number;
} = {}): OpenedLog {
  const clock = options.clock ?? new ManualClock();
  const context = options.context ?? createStorageContext({
    ...(options.disk === undefined ? {} : { disk: options.disk }),
    clock,
    ...(options.maxOpenFiles === undefined ? {} : { maxOpenFiles: options.maxOpenFiles }),
    ...(options.maxEvictableIndexBytes === undefined ? {} : { maxEvictableIndexBytes: options.maxEvictableIndexBytes }),
  });
  const dir = options.dir ?? path.join(tempDir(), 'topic-0');
  const log = UnifiedLog.open({ dir, topic: 'topic', partition: 0, config: testConfig(options.config), context, ...options.extra });
  return { log, context, clock };
}

/** Splits a read result into batches (asserting every one is whole). */
export function splitBatches(records: Buffer): Buffer[] {
  const batches: Buffer[] = [];
  let at = 0;
  while (at < records.length) {
    expect(records.length - at).toBeGreaterThanOrEqual(61);
    const size = 12 + records.readInt32BE(at + 8);
    expect(at + size).toBeLessThanOrEqual(records.length);
    batches.push(records.subarray(at, at + size));
    at += size;
  }
  return batches;
}

/** Reads the whole log from the start, batch by batch, checking CRCs; returns every batch. */
export function readAllBatches(log: UnifiedLog, upperBound = log.logEndOffset): Buffer[] {
  const result: Buffer[] = [];
  let offset = log.logStartOffset;
  while (offset < upperBound) {
    const read = log.read(offset, 64 * 1024, upperBound, true);
    expect(read.errorCode).toBe(0);
    if (read.records.length === 0) break;
    for (const batch of splitBatches(read.records)) {
      const { header } = readBatch(batch); // verifies the CRC
      if (header.lastOffset >= offset) result.push(batch);
      offset = Math.max(offset, header.lastOffset + 1);
    }
  }
  return result;
}

/** Asserts that every segment's in-memory indexes equal a rebuild from its log file. */
export function expectIndexesMatchRebuild(log: UnifiedLog): void {
  for (const segment of log.logSegments) {
    const rebuilt = segment.rebuiltIndexEntries(log.config.indexIntervalBytes);
    expect(segment.offsetIndex.entryBytes().equals(rebuilt.offsetIndex), `offset index of ${segment.logPath}`).toBe(true);
    expect(segment.timeIndex.entryBytes().equals(rebuilt.timeIndex), `time index of ${segment.logPath}`).toBe(true);
  }
}

/** The base offset stored in a batch's header. */
export function baseOffsetOf(batch: Uint8Array): number {
  return Number(Buffer.from(batch.buffer, batch.byteOffset, batch.byteLength).readBigInt64BE(0));
}

/** A copy of `batch` with the base offset and leader epoch a leader would stamp. */
export function stamped(batch: Buffer, baseOffset: number, leaderEpoch: number): Buffer {
  const copy = Buffer.from(batch);
  copy.writeBigInt64BE(BigInt(baseOffset), 0);
  copy.writeInt32BE(leaderEpoch, 12);
  return copy;
}

/**
 * Where each leader epoch starts in `log`, read from its batches' partitionLeaderEpoch over every
 * segment, as `epoch@startOffset` separated by spaces (the first no lower than the log start):
 * what a correct leader-epoch checkpoint holds.
 */
export function epochStartsOfBatches(log: UnifiedLog): string {
  const starts: { epoch: number; startOffset: number }[] = [];
  for (let offset = log.logStartOffset; offset < log.logEndOffset;) {
    const bytes = log.read(offset, 1 << 24, log.logEndOffset, true).records;
    for (let at = 0; at < bytes.length; at += 12 + bytes.readInt32BE(at + 8)) {
      const baseOffset = Number(bytes.readBigInt64BE(at));
      const epoch = bytes.readInt32BE(at + 12);
      if (starts[starts.length - 1]?.epoch !== epoch) starts.push({ epoch, startOffset: Math.max(baseOffset, log.logStartOffset) });
      offset = baseOffset + bytes.readInt32BE(at + 23) + 1;
    }
  }
  return starts.map((entry) => `${entry.epoch}@${entry.startOffset}`).join(' ');
}
