/**
 * The log's hot paths against raw node:fs in the same run, on the same bytes:
 * - UnifiedLog.appendAsLeader of a 1 MiB batch (core validate + stamp, write, index) vs
 *   fs.writeSync of that batch at the end of a file (goal >= 0.8x), with the floor any
 *   validating append has beside it (the core's prepareAppend + fs.writeSync): appends are
 *   bound by CRC-32C over the batch, which is slower than a page-cache write;
 * - UnifiedLog.read of one 1 MiB batch by offset (index lookup, header read, read) vs
 *   fs.readSync of the same byte range into a fresh buffer (goal >= 0.8x).
 * Both sides write to the page cache (default flush policy, no fsync) in os.tmpdir(); both wrap
 * around after WRAP_BYTES so the run's disk use stays bounded (the log by truncating to 0, raw
 * writes by ftruncate), which affects a few calls, not the medians.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { defaultLogConfig } from '../host/log/log-config.js';
import { createStorageContext } from '../host/log/storage-context.js';
import { UnifiedLog } from '../host/log/unified-log.js';
import { buildRecordBatch } from '../host/record/batch-builder.js';
import { runBenchTable } from './run.js';

const WRAP_BYTES = 256 * 1024 * 1024;
const READ_BATCHES = 16;

function oneMebibyteBatch(): Buffer {
  const value = Buffer.alloc(1000);
  for (let i = 0; i < value.length; i++) value[i] = (i * 31) % 251;
  const records = Array.from({ length: 1030 }, (_, i) => ({ key: `key-${i}`, value, timestamp: 1_700_000_000_000 + i }));
  return buildRecordBatch({ records });
}

export async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tributary-log-bench-'));
  try {
    const batch = oneMebibyteBatch();
    const config = { ...defaultLogConfig, segmentBytes: 64 * 1024 * 1024, retentionMs: -1, maxMessageBytes: 2 * 1024 * 1024 };
    const context = createStorageContext();

    // ---- append ----
    const appendLog = UnifiedLog.open({ dir: path.join(dir, 'append-0'), topic: 'append', partition: 0, config, context });
    const rawPath = path.join(dir, 'raw-append');
    const rawFd = fs.openSync(rawPath, 'w+');
    let rawPosition = 0;
    await runBenchTable(`append one ${batch.length}-byte batch (page cache)`, [
      {
        name: 'fs.writeSync (baseline)',
        bytesPerCall: batch.length,
        fn: () => {
          if (rawPosition >= WRAP_BYTES) {
            fs.ftruncateSync(rawFd, 0);
            rawPosition = 0;
          }
          fs.writeSync(rawFd, batch, 0, batch.length, rawPosition);
          rawPosition += batch.length;
        },
      },
      {
        // What any validating append must do at least: the core's validate + stamp, then the write.
        name: 'core.prepareAppend + fs.writeSync',
        bytesPerCall: batch.length,
        fn: () => {
          if (rawPosition >= WRAP_BYTES) {
            fs.ftruncateSync(rawFd, 0);
            rawPosition = 0;
          }
          const prepared = context.core.prepareAppend(batch, 0, 0, -1);
          fs.writeSync(rawFd, prepared.bytes, 0, prepared.bytes.length, rawPosition);
          rawPosition += batch.length;
        },
      },
      {
        name: 'UnifiedLog.appendAsLeader',
        bytesPerCall: batch.length,
        fn: () => {
          if (appendLog.size >= WRAP_BYTES) appendLog.truncateTo(0);
          const result = appendLog.appendAsLeader(batch, 0);
          if (result.errorCode !== 0) throw new Error(`append failed with ${result.errorCode}`);
        },
      },
    ], { rounds: 5 });
    fs.closeSync(rawFd);
    appendLog.close();

    // ---- read ----
    const readLog = UnifiedLog.open({ dir: path.join(dir, 'read-0'), topic: 'read', partition: 0, config, context });
    const offsets: number[] = [];
    const positions: number[] = [];
    const readPath = path.join(dir, 'raw-read');
    const readFd = fs.openSync(readPath, 'w+');
    for (let i = 0; i < READ_BATCHES; i++) {
      offsets.push(readLog.appendAsLeader(batch, 0).baseOffset);
      positions.push(i * batch.length);
      fs.writeSync(readFd, batch, 0, batch.length, i * batch.length);
    }
    // Clean pages on both sides: reads of pages still under writeback would measure the disk.
    readLog.flush();
    fs.fsyncSync(readFd);
    const end = readLog.logEndOffset;
    let next = 0;
    let rawNext = 0;
    let randomNext = 0;
    // A fixed permutation in which no offset follows its predecessor (no sequential cursor hits).
    const shuffled = Array.from({ length: READ_BATCHES }, (_, i) => (i * 7) % READ_BATCHES);
    await runBenchTable(`read one ${batch.length}-byte batch by offset (page cache)`, [
      {
        name: 'fs.readSync (baseline)',
        bytesPerCall: batch.length,
        fn: () => {
          const buffer = Buffer.allocUnsafe(batch.length);
          fs.readSync(readFd, buffer, 0, batch.length, positions[rawNext]!);
          rawNext = (rawNext + 1) % READ_BATCHES;
        },
      },
      {
        name: 'UnifiedLog.read (sequential, like a consumer)',
        bytesPerCall: batch.length,
        fn: () => {
          const result = readLog.read(offsets[next]!, batch.length, end, true);
          if (result.records.length !== batch.length) throw new Error(`read returned ${result.records.length} bytes`);
          next = (next + 1) % READ_BATCHES;
        },
      },
      {
        name: 'UnifiedLog.read (random order: index + header scan)',
        bytesPerCall: batch.length,
        fn: () => {
          const result = readLog.read(offsets[shuffled[randomNext]!]!, batch.length, end, true);
          if (result.records.length !== batch.length) throw new Error(`read returned ${result.records.length} bytes`);
          randomNext = (randomNext + 1) % READ_BATCHES;
        },
      },
    ], { rounds: 5 });
    fs.closeSync(readFd);
    readLog.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
