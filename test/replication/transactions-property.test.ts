/**
 * Property: random interleavings of transactional producers (appends, COMMIT, ABORT), plain
 * appends, crashes (the log reopened from disk without a clean shutdown), clean restarts and
 * retention (DeleteRecords) and compaction (the cleaner removes aborted transactions' batches, and
 * markers with no data left once a pass runs past delete.retention.ms),
 * with read_committed readers after every step. Readers never see an
 * aborted or an uncommitted record, see every committed record at or past the log start below
 * the LSO, in offset order; the LSO never goes backwards and never passes an open transaction's
 * first offset. Real files in a temp dir; small segments so that rolls, producer-state snapshots
 * and several `.txnindex` files happen. fast-check prints the seed and the shrunk steps on failure.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NodeDisk } from '../../host/io/disk.js';
import { LogCleaner } from '../../host/log/log-cleaner.js';
import { defaultLogConfig } from '../../host/log/log-config.js';
import { ProducerStateManager } from '../../host/log/producer-state-manager.js';
import { createStorageContext } from '../../host/log/storage-context.js';
import { UnifiedLog } from '../../host/log/unified-log.js';
import { buildControlBatch, buildRecordBatch } from '../../host/record/batch-builder.js';
import { ControlRecordType } from '../../host/record/records.js';
import { Partition } from '../../host/replication/partition.js';
import { readCommitted } from '../helpers/read-committed.js';

type Step =
  | { kind: 'txn'; producer: number; count: number }
  | { kind: 'plain'; count: number }
  | { kind: 'end'; producer: number; commit: boolean }
  | { kind: 'crash' }
  | { kind: 'restart' }
  | { kind: 'retention'; fraction: number }
  | { kind: 'clean'; laterMs: number }
  | { kind: 'read'; fraction: number; maxBytes: number };

const PRODUCERS = [11, 12, 13];

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('txn' as const), producer: fc.constantFrom(...PRODUCERS), count: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('plain' as const), count: fc.integer({ min: 1, max: 2 }) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('end' as const), producer: fc.constantFrom(...PRODUCERS), commit: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('crash' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('restart' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('retention' as const), fraction: fc.double({ min: 0, max: 1, noNaN: true }) }) },
  // A clean now, or past delete.retention.ms (markers with no data left are removed then).
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('clean' as const), laterMs: fc.constantFrom(0, defaultLogConfig.deleteRetentionMs + 1) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('read' as const), fraction: fc.double({ min: 0, max: 1, noNaN: true }), maxBytes: fc.constantFrom(1, 200, 1 << 20) }) },
);

type Status = 'committed' | 'aborted' | 'open';

/** What the test knows: every record's value by offset and its fate. */
class Model {
  readonly records = new Map<number, { value: string; producer: number }>();
  readonly open = new Map<number, number>(); // producer -> first offset
  readonly status = new Map<string, Status>();
  readonly txnOf = new Map<number, string[]>();
  sequences = new Map<number, number>();
  logStartOffset = 0;
  lastLso = 0;
  next = 0;
  /** The cleaner's clock. */
  nowMs = 1_700_000_000_000;
}

class Broker {
  log!: UnifiedLog;
  partition!: Partition<UnifiedLog>;
  readonly context = createStorageContext();
  constructor(private readonly dir: string) {}

  open(model: Model, clean: boolean): void {
    this.log = UnifiedLog.open({
      dir: this.dir, topic: 't', partition: 0, config: { ...defaultLogConfig, segmentBytes: 400, cleanupPolicy: ['compact', 'delete'] },
      context: this.context, logStartOffset: model.logStartOffset, hadCleanShutdown: clean,
    });
    this.partition = new Partition<UnifiedLog>({
      topic: 't', partition: 0, log: this.log, localBrokerId: 0, leaderEpoch: 0,
      producerState: new ProducerStateManager({ dir: this.dir, disk: new NodeDisk() }),
    });
  }

  append(records: Buffer, origin: 'client' | 'coordinator' = 'client'): { errorCode: number; baseOffset: number } {
    return this.partition.appendRecordsToLeader(records, -1, origin);
  }
}

function runSteps(steps: Step[]): void {
  const dir = mkdtempSync(path.join(tmpdir(), 'txn-property-'));
  const model = new Model();
  const broker = new Broker(path.join(dir, 't-0'));
  let counter = 0;
  broker.open(model, false);
  try {
    for (const step of steps) {
      switch (step.kind) {
        case 'txn': case 'plain': {
          const producer = step.kind === 'txn' ? step.producer : -1;
          const values = Array.from({ length: step.count }, () => `v${counter++}`);
          const baseSequence = producer < 0 ? -1 : model.sequences.get(producer) ?? 0;
          const batch = buildRecordBatch({
            // Unique keys: compaction removes only what the cleaner removes for transactions.
            records: values.map((value) => ({ key: value, value, timestamp: 1_700_000_000_000 })),
            producerId: producer, producerEpoch: producer < 0 ? -1 : 0, baseSequence, isTransactional: producer >= 0,
          });
          const result = broker.append(batch);
          expect(result.errorCode).toBe(0);
          if (producer >= 0) {
            model.sequences.set(producer, baseSequence + values.length);
            if (!model.open.has(producer)) {
              model.open.set(producer, result.baseOffset);
              model.txnOf.set(producer, []);
            }
          }
          values.forEach((value, i) => {
            model.records.set(result.baseOffset + i, { value, producer });
            model.status.set(value, producer < 0 ? 'committed' : 'open');
            if (producer >= 0) model.txnOf.get(producer)!.push(value);
          });
          break;
        }
        case 'end': {
          const marker = buildControlBatch({
            type: step.commit ? ControlRecordType.COMMIT : ControlRecordType.ABORT, producerId: step.producer, producerEpoch: 0, coordinatorEpoch: 0,
            timestamp: 1_700_000_000_000,
          });
          expect(broker.append(marker, 'coordinator').errorCode).toBe(0);
          for (const value of model.txnOf.get(step.producer) ?? []) model.status.set(value, step.commit ? 'committed' : 'aborted');
          model.open.delete(step.producer);
          model.txnOf.set(step.producer, []);
          break;
        }
        case 'crash': case 'restart': {
          if (step.kind === 'restart') {
            broker.partition.onCleanShutdown();
            broker.log.close();
          } else {
            broker.log.closeWithoutFlush();
          }
          broker.open(model, step.kind === 'restart');
          break;
        }
        case 'retention': {
          const offset = model.logStartOffset + Math.floor(step.fraction * (broker.log.highWatermark - model.logStartOffset));
          expect(broker.log.deleteRecordsBefore(offset)).toBe(0);
          broker.partition.onLogStartOffsetMaybeIncremented();
          model.logStartOffset = broker.log.logStartOffset;
          break;
        }
        case 'clean':
          model.nowMs += step.laterMs;
          new LogCleaner(broker.context).clean(broker.log, model.nowMs);
          break;
        case 'read': break;
      }
      checkReaders(broker, model, step.kind === 'read' ? step : { fraction: 0, maxBytes: 1 << 20 });
    }
  } finally {
    broker.log.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function checkReaders(broker: Broker, model: Model, read: { fraction: number; maxBytes: number }): void {
  const lso = broker.partition.lastStableOffset;
  // The LSO never goes backwards and never passes an open transaction's first offset.
  expect(lso).toBeGreaterThanOrEqual(model.lastLso);
  for (const first of model.open.values()) expect(lso).toBeLessThanOrEqual(first);
  model.lastLso = lso;
  const start = Math.max(broker.log.logStartOffset, model.logStartOffset);
  const from = start + Math.floor(read.fraction * Math.max(0, lso - start));
  const seen = readCommitted(broker.partition, from, read.maxBytes);
  for (const { value } of seen.values) expect(model.status.get(value), `value ${value}`).toBe('committed');
  const expected: { offset: number; value: string }[] = [];
  for (const [offset, record] of [...model.records].sort((a, b) => a[0] - b[0])) {
    if (offset >= from && offset < lso && model.status.get(record.value) === 'committed') expected.push({ offset, value: record.value });
  }
  expect(seen.values).toEqual(expected);
}

describe('transactions, log side (property)', () => {
  it('read_committed readers see exactly the committed records, in order, through crashes, restarts and retention', () => {
    // A producer that aborts then commits, with rolls and a cleaning after (the committed batches stay).
    const abortThenCommit: Step[] = [
      { kind: 'txn', producer: 11, count: 2 }, { kind: 'end', producer: 11, commit: false },
      { kind: 'txn', producer: 11, count: 1 }, { kind: 'txn', producer: 12, count: 1 }, { kind: 'end', producer: 11, commit: true },
      ...Array.from({ length: 8 }, (): Step => ({ kind: 'plain', count: 2 })), { kind: 'clean', laterMs: 0 }, { kind: 'crash' },
    ];
    // The aborted transaction's marker removed past delete.retention.ms; the producer's later transaction stays visible.
    const markerRemoved: Step[] = [
      ...abortThenCommit.slice(0, 4), { kind: 'end', producer: 11, commit: true }, { kind: 'end', producer: 12, commit: true },
      ...Array.from({ length: 8 }, (): Step => ({ kind: 'plain', count: 2 })), { kind: 'clean', laterMs: 0 },
      ...Array.from({ length: 4 }, (): Step => ({ kind: 'plain', count: 2 })), { kind: 'clean', laterMs: defaultLogConfig.deleteRetentionMs + 1 },
      { kind: 'txn', producer: 11, count: 1 }, { kind: 'end', producer: 11, commit: true }, { kind: 'crash' },
    ];
    // DeleteRecords past an open transaction's first batch, then a crash: the restart must still
    // know the transaction (the last stable offset stays at its first offset).
    const deletedPastOpenTxn: Step[] = [
      { kind: 'txn', producer: 11, count: 1 }, { kind: 'plain', count: 1 }, { kind: 'retention', fraction: 0.5 }, { kind: 'crash' },
      { kind: 'txn', producer: 11, count: 1 }, { kind: 'end', producer: 11, commit: false }, { kind: 'crash' },
    ];
    fc.assert(fc.property(fc.array(stepArbitrary, { minLength: 1, maxLength: 60 }), (steps) => {
      runSteps(steps);
    }), { numRuns: 60, examples: [[abortThenCommit], [markerRemoved], [deletedPastOpenTxn]] });
  });
});
