/**
 * Property (issue 11, librdkafka's fatal OUT_OF_ORDER_SEQUENCE_NUMBER in the Jepsen campaign):
 * three replicas of one partition (real UnifiedLogs, small segments so rolls and producer-state
 * snapshots happen) and one idempotent producer with at most 5 batches in flight, through random
 * interleavings of appends, partial follower fetches, leader elections (the followers truncate to
 * their common prefix with the new leader, as KIP-101/279 leave them), crashes and clean restarts
 * of any replica, and epoch bumps (KIP-360). Checked after every step:
 *
 * - every replica's producer state is exactly what a rebuild from its log alone gives (no state
 *   learned from batches it no longer has, none missing for batches it has);
 * - after an election the producer's unacknowledged batches, retried in order on the new leader,
 *   are all accepted (as new appends or as duplicates with their offsets there): a new leader never
 *   answers OUT_OF_ORDER_SEQUENCE_NUMBER to the head-of-line batch, which librdkafka treats as fatal.
 *
 * fast-check prints the seed and the shrunk steps on failure.
 */
import * as path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { NodeDisk } from '../../host/io/disk.js';
import { ProducerStateManager } from '../../host/log/producer-state-manager.js';
import { createStorageContext } from '../../host/log/storage-context.js';
import { UnifiedLog } from '../../host/log/unified-log.js';
import { buildRecordBatch } from '../../host/record/batch-builder.js';
import { Partition } from '../../host/replication/partition.js';
import { removeTempDirs, tempDir, testConfig } from '../log/log-test-helpers.js';

afterEach(() => removeTempDirs());

const PRODUCER_ID = 7;
const MAX_IN_FLIGHT = 5;
const REPLICAS = [0, 1, 2];

type Step =
  | { kind: 'produce'; count: number }
  | { kind: 'fetch'; replica: number; maxBytes: number }
  | { kind: 'elect'; replica: number }
  | { kind: 'crash'; replica: number }
  | { kind: 'restart'; replica: number }
  | { kind: 'bump' };

const replicaArbitrary = fc.constantFrom(...REPLICAS);
const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('produce' as const), count: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('fetch' as const), replica: replicaArbitrary, maxBytes: fc.constantFrom(1, 150, 1 << 20) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('elect' as const), replica: replicaArbitrary }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('crash' as const), replica: replicaArbitrary }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('restart' as const), replica: replicaArbitrary }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('bump' as const) }) },
);

class Replica {
  log!: UnifiedLog;
  partition!: Partition<UnifiedLog>;
  producerState!: ProducerStateManager;
  private readonly context = createStorageContext();

  constructor(readonly id: number, readonly dir: string) {}

  open(clean: boolean, leaderId: number, leaderEpoch: number): void {
    this.log = UnifiedLog.open({
      dir: this.dir, topic: 't', partition: 0, config: testConfig({ segmentBytes: 300 }), context: this.context, hadCleanShutdown: clean,
    });
    this.producerState = new ProducerStateManager({ dir: this.dir, disk: new NodeDisk() });
    this.partition = new Partition<UnifiedLog>({
      topic: 't', partition: 0, log: this.log, localBrokerId: this.id, leaderId, leaderEpoch, partitionEpoch: leaderEpoch,
      replicas: REPLICAS, isr: REPLICAS, producerState: this.producerState,
    });
  }

  /** Every stored batch as bytes, keyed by base offset. */
  batches(): Map<number, Buffer> {
    const out = new Map<number, Buffer>();
    const bytes = this.log.read(this.log.logStartOffset, 1 << 24, this.log.logEndOffset, true).records;
    for (let at = 0; at < bytes.length;) {
      const size = 12 + bytes.readInt32BE(at + 8);
      out.set(Number(bytes.readBigInt64BE(at)), bytes.subarray(at, at + size));
      at += size;
    }
    return out;
  }
}

/** The offset up to which (exclusive) two logs hold the same batches, byte for byte. */
function commonPrefix(a: Replica, b: Replica): number {
  const ours = a.batches();
  let end = 0;
  for (const [baseOffset, bytes] of [...b.batches()].sort((x, y) => x[0] - y[0])) {
    const mine = ours.get(baseOffset);
    if (mine === undefined || !mine.equals(bytes)) break;
    end = Number(bytes.readBigInt64BE(0)) + bytes.readInt32BE(23) + 1;
  }
  return end;
}

/** The producer state a fresh manager rebuilds from `replica`'s log alone (its snapshots hidden). */
function rebuiltFromLog(replica: Replica): ProducerStateManager {
  const disk = Object.assign(Object.create(new NodeDisk()) as NodeDisk, { list: (): string[] => [] });
  const manager = new ProducerStateManager({ dir: replica.dir, disk });
  const log = replica.log;
  manager.recover(log.logStartOffset, log.logEndOffset, (offset, maxBytes) => log.read(offset, maxBytes, log.logEndOffset, true).records);
  return manager;
}

function producerView(manager: ProducerStateManager): unknown {
  const entry = manager.lastEntry(PRODUCER_ID);
  if (entry === undefined) return null;
  return {
    producerEpoch: entry.producerEpoch,
    batches: entry.batches.map((b) => ({ firstSequence: b.firstSequence, lastSequence: b.lastSequence, firstOffset: b.firstOffset, lastOffset: b.lastOffset })),
  };
}

interface SentBatch {
  readonly epoch: number;
  readonly baseSequence: number;
  readonly count: number;
  readonly label: number;
}

function batchFor(sent: SentBatch): Buffer {
  return buildRecordBatch({
    records: Array.from({ length: sent.count }, (_, i) => ({ value: `b${sent.label}-${i}`, timestamp: 1_700_000_000_000 })),
    producerId: PRODUCER_ID, producerEpoch: sent.epoch, baseSequence: sent.baseSequence,
  });
}

function runSteps(steps: readonly Step[]): void {
  const root = tempDir('tributary-idem-failover-');
  const replicas = REPLICAS.map((id) => new Replica(id, path.join(root, `r${id}`, 't-0')));
  let leader = 0;
  let leaderEpoch = 1;
  for (const replica of replicas) replica.open(false, leader, leaderEpoch);
  let epoch = 0;
  let nextSequence = 0;
  let labels = 0;
  /** Sent, not acknowledged yet (the high watermark has not passed them), oldest first. */
  let unacked: { sent: SentBatch; lastOffset: number }[] = [];
  const highWatermark = (): number => Math.min(...replicas.map((r) => (r.id === leader ? r.log.logEndOffset : commonPrefix(replicas[leader]!, r))));
  try {
    for (const step of steps) {
      const current = replicas[leader]!;
      switch (step.kind) {
        case 'produce': {
          if (unacked.length >= MAX_IN_FLIGHT) break;
          const sent = { epoch, baseSequence: nextSequence, count: step.count, label: labels++ };
          const result = current.partition.appendRecordsToLeader(batchFor(sent), 1);
          expect(result, `append of ${JSON.stringify(sent)}`).toMatchObject({ errorCode: 0 });
          nextSequence += step.count;
          unacked.push({ sent, lastOffset: result.lastOffset });
          break;
        }
        case 'fetch': {
          const follower = replicas[step.replica]!;
          if (follower.id === leader || follower.log.logEndOffset >= current.log.logEndOffset) break;
          const records = current.log.read(follower.log.logEndOffset, step.maxBytes, current.log.logEndOffset, true).records;
          expect(follower.partition.appendRecordsAsFollower(records).errorCode).toBe(0);
          break;
        }
        case 'elect': {
          if (step.replica === leader) break;
          leader = step.replica;
          leaderEpoch++;
          const elected = replicas[leader]!;
          elected.partition.makeLeader({ leaderEpoch, partitionEpoch: leaderEpoch, isr: REPLICAS, replicas: REPLICAS });
          for (const follower of replicas) {
            if (follower === elected) continue;
            follower.partition.makeFollower({ leaderId: leader, leaderEpoch, partitionEpoch: leaderEpoch, isr: REPLICAS, replicas: REPLICAS });
            const keep = commonPrefix(elected, follower);
            if (keep < follower.log.logEndOffset) follower.partition.truncateTo(keep);
          }
          // The producer retries what it has no answer for, in order (librdkafka after a leader change).
          unacked = unacked.map(({ sent }) => {
            const result = elected.partition.appendRecordsToLeader(batchFor(sent), 1);
            expect(result, `retry of ${JSON.stringify(sent)} on the new leader ${leader}`).toMatchObject({ errorCode: 0 });
            return { sent, lastOffset: result.lastOffset };
          });
          break;
        }
        case 'crash': case 'restart': {
          const replica = replicas[step.replica]!;
          if (step.kind === 'restart') {
            replica.partition.onCleanShutdown();
            replica.log.close();
          } else {
            replica.log.closeWithoutFlush();
          }
          replica.open(step.kind === 'restart', leader, leaderEpoch);
          break;
        }
        case 'bump':
          // KIP-360: an idempotent producer bumps its epoch once nothing is in flight.
          if (unacked.length > 0) break;
          epoch++;
          nextSequence = 0;
          break;
      }
      const hw = highWatermark();
      unacked = unacked.filter((batch) => batch.lastOffset >= hw);
      for (const replica of replicas) {
        expect(producerView(replica.producerState), `replica ${replica.id}'s producer state after ${JSON.stringify(step)}`)
          .toEqual(producerView(rebuiltFromLog(replica)));
      }
    }
  } finally {
    for (const replica of replicas) replica.log.close();
  }
}

describe('idempotent producer state across replication, elections and restarts (property)', () => {
  it('every replica\'s producer state matches its log, and a new leader accepts the producer\'s retries in order', () => {
    fc.assert(fc.property(fc.array(stepArbitrary, { minLength: 1, maxLength: 60 }), (steps) => {
      runSteps(steps);
    }), { numRuns: Number(process.env.IDEMPOTENT_FAILOVER_RUNS ?? 50) });
  });
});
