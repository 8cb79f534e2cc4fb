/**
 * Property: the transaction coordinator and the partitions together, under random interleavings
 * of transactional producers (InitProducerId, AddPartitionsToTxn, transactional appends, commit,
 * abort, a producer forgotten until transaction.timeout.ms aborts its transaction, a new instance
 * of a transactional id fencing the previous one), marker writes held back and released late,
 * coordinator failovers (a new coordinator epoch loading `__transaction_state`, the old one's held
 * markers arriving afterwards as a zombie's), and crashes and restarts of the partitions' logs.
 *
 * The model decides each record's fate only from what the producers were told: a record is
 * committed when its transaction's EndTxn(commit) answered NONE, aborted when EndTxn(abort)
 * answered NONE or when the coordinator moved its transactional id past the record's producer
 * epoch (a fence or a timeout aborts the open transaction). After every step read_committed
 * readers (Kafka's consumer rule over the aborted-transactions list) never see an aborted or
 * undecided record, see every committed record below the LSO in offset order, and the LSO never
 * passes an open transaction. At the end, with every marker released and time run past every
 * timeout, nothing is left in a Prepare state, the LSO of every partition is its high watermark
 * (no hanging transaction) and every committed record is read. fast-check prints the seed and the
 * shrunk steps on failure.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InMemoryOffsetsTopic } from '../../host/coordinator/in-memory-offsets-topic.js';
import { TransactionCoordinator } from '../../host/coordinator/transaction-coordinator.js';
import type { TxnMarkerEntry as CoordinatorMarkers, TxnMarkerWriter } from '../../host/coordinator/transaction-marker-channel-manager.js';
import { TransactionState } from '../../host/coordinator/transaction-state.js';
import { NodeDisk } from '../../host/io/disk.js';
import { ManualTime } from '../../host/io/time.js';
import { defaultLogConfig } from '../../host/log/log-config.js';
import { ProducerStateManager } from '../../host/log/producer-state-manager.js';
import { createStorageContext } from '../../host/log/storage-context.js';
import { UnifiedLog } from '../../host/log/unified-log.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { buildRecordBatch } from '../../host/record/batch-builder.js';
import { Partition } from '../../host/replication/partition.js';
import type { ProducePartitionResult } from '../../host/replication/replication-types.js';
import { appendTxnMarkers } from '../../host/replication/txn-markers.js';
import { readCommitted } from '../helpers/read-committed.js';

const TOPIC = 't';
const PARTITIONS = 2;
const IDS = ['tx-a', 'tx-b'];
const TXN_TIMEOUT_MS = 8_000;
const CLEANUP_INTERVAL_MS = 1_000;

type Step =
  | { kind: 'init'; id: number }
  | { kind: 'add'; id: number; partition: number }
  | { kind: 'append'; id: number; partition: number; count: number }
  | { kind: 'end'; id: number; commit: boolean }
  | { kind: 'tick'; ms: number }
  | { kind: 'holdMarkers' }
  | { kind: 'releaseMarkers' }
  | { kind: 'failover' }
  | { kind: 'crash'; partition: number; clean: boolean };

const id = fc.integer({ min: 0, max: IDS.length - 1 });
const partition = fc.integer({ min: 0, max: PARTITIONS - 1 });
const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('init' as const), id }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('add' as const), id, partition }) },
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('append' as const), id, partition, count: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('end' as const), id, commit: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 1_500 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('holdMarkers' as const) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('releaseMarkers' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('failover' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('crash' as const), partition, clean: fc.boolean() }) },
);

type Fate = 'committed' | 'aborted' | 'open';

/** One producer instance of a transactional id, as the client knows itself. */
interface Producer {
  producerId: number;
  producerEpoch: number;
  state: 'ready' | 'inTxn' | 'fenced';
  added: Set<number>;
  sequences: Map<number, number>;
  /** Values of the open transaction. */
  open: string[];
}

/** A data partition's log and leader on real files. */
class DataPartition {
  log!: UnifiedLog;
  partition!: Partition<UnifiedLog>;
  private readonly context = createStorageContext();

  constructor(private readonly dir: string, readonly index: number) {
    this.open(false);
  }

  open(clean: boolean): void {
    this.log = UnifiedLog.open({
      dir: this.dir, topic: TOPIC, partition: this.index, config: { ...defaultLogConfig, segmentBytes: 500 },
      context: this.context, logStartOffset: 0, hadCleanShutdown: clean,
    });
    this.partition = new Partition<UnifiedLog>({
      topic: TOPIC, partition: this.index, log: this.log, localBrokerId: 0, leaderEpoch: 0,
      producerState: new ProducerStateManager({ dir: this.dir, disk: new NodeDisk() }),
    });
  }

  restart(clean: boolean): void {
    if (clean) {
      this.partition.onCleanShutdown();
      this.log.close();
    } else {
      this.log.closeWithoutFlush();
    }
    this.open(clean);
  }
}

/** Writes markers on the data partitions through the replication layer's appendTxnMarkers; `hold` delays them. */
class PartitionMarkerWriter implements TxnMarkerWriter {
  hold = false;
  private held: (() => void)[] = [];

  constructor(private readonly partitions: DataPartition[], private readonly time: ManualTime) {}

  writeMarkers(entry: CoordinatorMarkers): Promise<number[]> {
    const write = async (): Promise<number[]> => {
      const [result] = await appendTxnMarkers((params) => Promise.resolve(params.entries.map((data): ProducePartitionResult => {
        const appended = this.partitions[data.partition]!.partition.appendRecordsToLeader(data.records, -1, 'coordinator');
        return { topic: data.topic, partition: data.partition, errorCode: appended.errorCode, baseOffset: appended.baseOffset } as ProducePartitionResult;
      })), [{
        producerId: entry.producerId, producerEpoch: entry.producerEpoch, coordinatorEpoch: entry.coordinatorEpoch,
        transactionResult: entry.result === 'commit',
        topics: [{ name: TOPIC, partitionIndexes: entry.partitions.map((ref) => ref.partition) }],
      }], 30_000, this.time.nowMs());
      return result!.topics[0]!.partitions.map((p) => p.errorCode);
    };
    if (!this.hold) return write();
    return new Promise((resolve) => this.held.push(() => void write().then(resolve)));
  }

  release(): void {
    this.hold = false;
    for (const write of this.held.splice(0)) write();
  }
}

function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

class World {
  readonly time = new ManualTime(1_700_000_000_000);
  readonly txnLog = new InMemoryOffsetsTopic();
  readonly partitions: DataPartition[];
  readonly writer: PartitionMarkerWriter;
  coordinator!: TransactionCoordinator;
  private coordinatorEpoch = 0;
  private nextProducerId = 1000;
  readonly producers = new Map<string, Producer>();
  readonly fate = new Map<string, Fate>();
  /** Per partition: value by offset, and the first offset of each producer's open transaction. */
  readonly written: Map<number, string>[];
  readonly openFirst: Map<number, number>[];
  private counter = 0;

  constructor(dir: string) {
    this.partitions = Array.from({ length: PARTITIONS }, (_, i) => new DataPartition(path.join(dir, `${TOPIC}-${i}`), i));
    this.written = this.partitions.map(() => new Map());
    this.openFirst = this.partitions.map(() => new Map());
    this.writer = new PartitionMarkerWriter(this.partitions, this.time);
    this.failover();
  }

  /** A new coordinator (the next leader of `__transaction_state`-0) loads the log at a higher epoch. */
  failover(): void {
    if (this.coordinator !== undefined) this.coordinator.shutdown();
    this.coordinator = new TransactionCoordinator({
      transactionLog: this.txnLog,
      time: this.time,
      allocateProducerId: () => Promise.resolve({ errorCode: ErrorCode.NONE, producerId: this.nextProducerId++ }),
      markerWriter: this.writer,
      config: { transactionStateLogNumPartitions: 1, transactionAbortTimedOutTransactionCleanupIntervalMs: CLEANUP_INTERVAL_MS },
    });
    this.coordinator.startup();
    this.coordinator.onElection(0, ++this.coordinatorEpoch);
  }

  async apply(step: Step): Promise<void> {
    switch (step.kind) {
      case 'init': return this.init(IDS[step.id]!);
      case 'add': return this.add(IDS[step.id]!, step.partition);
      case 'append': return this.append(IDS[step.id]!, step.partition, step.count);
      case 'end': return this.end(IDS[step.id]!, step.commit);
      case 'tick': this.time.advance(step.ms); return;
      case 'holdMarkers': this.writer.hold = true; return;
      case 'releaseMarkers': this.writer.release(); return;
      case 'failover': this.failover(); return;
      case 'crash': this.partitions[step.partition]!.restart(step.clean); return;
    }
  }

  private async init(transactionalId: string): Promise<void> {
    const result = await this.coordinator.initProducerId(transactionalId, TXN_TIMEOUT_MS, null);
    if (result.errorCode !== ErrorCode.NONE) {
      expect([ErrorCode.CONCURRENT_TRANSACTIONS, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS]).toContain(result.errorCode);
      return;
    }
    // The new instance replaces the old one (whose open transaction the coordinator aborts).
    const previous = this.producers.get(transactionalId);
    if (previous !== undefined && previous.open.length > 0) this.decide(previous, 'aborted');
    this.producers.set(transactionalId, {
      producerId: result.producerId, producerEpoch: result.producerEpoch, state: 'ready', added: new Set(), sequences: new Map(), open: [],
    });
  }

  private async add(transactionalId: string, index: number): Promise<void> {
    const producer = this.producers.get(transactionalId);
    if (producer === undefined || producer.state === 'fenced' || producer.added.has(index)) return;
    const errorCode = await this.coordinator.addPartitionsToTransaction(transactionalId, producer, [{ topic: TOPIC, partition: index }]);
    if (errorCode === ErrorCode.NONE) {
      producer.state = 'inTxn';
      producer.added.add(index);
    } else if (errorCode === ErrorCode.PRODUCER_FENCED || errorCode === ErrorCode.INVALID_PRODUCER_ID_MAPPING) {
      producer.state = 'fenced';
    } else {
      expect(errorCode).toBe(ErrorCode.CONCURRENT_TRANSACTIONS);
    }
  }

  /**
   * A transactional send as an application makes it: a new instance first when there is none or
   * the last one was fenced (InitProducerId), AddPartitionsToTxn before the partition's first
   * batch, then the append; each stops at the first refusal.
   */
  private async append(transactionalId: string, index: number, count: number): Promise<void> {
    const current = this.producers.get(transactionalId);
    if (current === undefined || current.state === 'fenced') await this.init(transactionalId);
    if (this.producers.get(transactionalId)?.added.has(index) === false) await this.add(transactionalId, index);
    await settle();
    this.observeFences();
    const producer = this.producers.get(transactionalId);
    if (producer === undefined || producer.state !== 'inTxn' || !producer.added.has(index)) return;
    const values = Array.from({ length: count }, () => `v${this.counter++}`);
    const baseSequence = producer.sequences.get(index) ?? 0;
    const batch = buildRecordBatch({
      records: values.map((value) => ({ key: value, value, timestamp: 1_700_000_000_000 })),
      producerId: producer.producerId, producerEpoch: producer.producerEpoch, baseSequence, isTransactional: true,
    });
    const result = this.partitions[index]!.partition.appendRecordsToLeader(batch, -1, 'client');
    if (result.errorCode === ErrorCode.INVALID_PRODUCER_EPOCH || result.errorCode === ErrorCode.PRODUCER_FENCED) {
      producer.state = 'fenced';
      return;
    }
    expect(result.errorCode).toBe(ErrorCode.NONE);
    producer.sequences.set(index, baseSequence + count);
    if (!this.openFirst[index]!.has(producer.producerId)) this.openFirst[index]!.set(producer.producerId, result.baseOffset);
    values.forEach((value, i) => {
      this.written[index]!.set(result.baseOffset + i, value);
      this.fate.set(value, 'open');
      producer.open.push(value);
    });
  }

  private async end(transactionalId: string, commit: boolean): Promise<void> {
    const producer = this.producers.get(transactionalId);
    if (producer === undefined || producer.state !== 'inTxn') return;
    const errorCode = await this.coordinator.endTransaction(transactionalId, producer, commit ? 'commit' : 'abort');
    if (errorCode === ErrorCode.NONE) {
      this.decide(producer, commit ? 'committed' : 'aborted');
      producer.state = 'ready';
      producer.added.clear();
    } else if (errorCode === ErrorCode.PRODUCER_FENCED || errorCode === ErrorCode.INVALID_PRODUCER_ID_MAPPING) {
      producer.state = 'fenced';
    } else {
      expect(errorCode).toBe(ErrorCode.CONCURRENT_TRANSACTIONS);
    }
  }

  private decide(producer: Producer, fate: Fate): void {
    for (const value of producer.open.splice(0)) this.fate.set(value, fate);
    for (const first of this.openFirst) first.delete(producer.producerId);
  }

  /**
   * A coordinator that moved a transactional id past a producer's epoch (or to another producer
   * id) aborted that producer's open transaction (fence or timeout).
   */
  observeFences(): void {
    for (const [transactionalId, producer] of this.producers) {
      if (producer.open.length === 0) continue;
      const metadata = this.coordinator.transaction(transactionalId);
      if (metadata === undefined) continue;
      if (metadata.producerId !== producer.producerId || metadata.producerEpoch > producer.producerEpoch) {
        this.decide(producer, 'aborted');
        producer.state = 'fenced';
      }
    }
  }

  /** read_committed from offset 0 of every partition, checked against the model. */
  checkReaders(): void {
    for (const data of this.partitions) {
      const lso = data.partition.lastStableOffset;
      for (const first of this.openFirst[data.index]!.values()) expect(lso).toBeLessThanOrEqual(first);
      const seen = readCommitted(data.partition).values;
      for (const { value } of seen) expect(this.fate.get(value), `value ${value}`).toBe('committed');
      const expected = [...this.written[data.index]!].sort((a, b) => a[0] - b[0])
        .filter(([offset, value]) => offset < lso && this.fate.get(value) === 'committed')
        .map(([offset, value]) => ({ offset, value }));
      expect(seen).toEqual(expected);
    }
  }

  /** Releases every marker and runs time past every timeout until the coordinator is idle. */
  async quiesce(): Promise<void> {
    this.writer.release();
    for (let round = 0; round < 20; round++) {
      this.time.advance(CLEANUP_INTERVAL_MS);
      await settle();
      this.observeFences();
    }
    this.time.advance(TXN_TIMEOUT_MS + 2 * CLEANUP_INTERVAL_MS);
    for (let round = 0; round < 20; round++) {
      this.time.advance(CLEANUP_INTERVAL_MS);
      await settle();
      this.observeFences();
    }
    for (const transactionalId of IDS) {
      const state = this.coordinator.transaction(transactionalId)?.state;
      expect([undefined, TransactionState.Empty, TransactionState.CompleteCommit, TransactionState.CompleteAbort], `${transactionalId} ${state}`).toContain(state);
    }
    for (const producer of this.producers.values()) expect(producer.open).toEqual([]);
    for (const data of this.partitions) expect(data.partition.lastStableOffset).toBe(data.partition.highWatermark);
    const committed = [...this.fate].filter(([, fate]) => fate === 'committed').map(([value]) => value).sort();
    const read = this.partitions.flatMap((data) => readCommitted(data.partition).values.map((r) => r.value)).sort();
    expect(read).toEqual(committed);
  }

  close(): void {
    this.coordinator.shutdown();
    for (const data of this.partitions) data.log.close();
  }
}

/** Fates decided over all runs (the property must not pass by doing nothing). */
const tally = { committed: 0, aborted: 0, fenced: 0 };

async function runSteps(steps: Step[]): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'txn-coordinator-property-'));
  const world = new World(dir);
  try {
    for (const step of steps) {
      await world.apply(step);
      await settle();
      world.observeFences();
      world.checkReaders();
    }
    await world.quiesce();
    for (const fate of world.fate.values()) if (fate !== 'open') tally[fate]++;
    for (const producer of world.producers.values()) if (producer.state === 'fenced') tally.fenced++;
  } finally {
    world.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('transactions, coordinator and partitions (property)', () => {
  it('read_committed readers see exactly the committed records through timeouts, fencing, held markers, coordinator failovers and crashes', async () => {
    const all = (...steps: Step[]): Step[] => steps;
    // A forgotten transaction aborted by transaction.timeout.ms; its producer is fenced; a new instance commits.
    const timedOut = all(
      { kind: 'init', id: 0 }, { kind: 'add', id: 0, partition: 0 }, { kind: 'append', id: 0, partition: 0, count: 2 },
      { kind: 'tick', ms: 5_000 }, { kind: 'tick', ms: 5_000 }, { kind: 'append', id: 0, partition: 0, count: 1 }, { kind: 'end', id: 0, commit: true },
      { kind: 'init', id: 0 }, { kind: 'add', id: 0, partition: 1 }, { kind: 'append', id: 0, partition: 1, count: 1 }, { kind: 'end', id: 0, commit: true },
    );
    // A commit whose markers are held while the coordinator fails over; the old markers arrive afterwards.
    const zombieMarkers = all(
      { kind: 'init', id: 1 }, { kind: 'add', id: 1, partition: 0 }, { kind: 'add', id: 1, partition: 1 },
      { kind: 'append', id: 1, partition: 0, count: 1 }, { kind: 'append', id: 1, partition: 1, count: 1 },
      { kind: 'holdMarkers' }, { kind: 'end', id: 1, commit: true }, { kind: 'failover' }, { kind: 'crash', partition: 1, clean: false },
      { kind: 'add', id: 1, partition: 0 }, { kind: 'releaseMarkers' }, { kind: 'tick', ms: 100 },
    );
    // Found by CI (seed -1739653940): an abort's marker is the only record of a producer on
    // partition 1, a clean restart forgot that producer, and its fenced epoch then opened a
    // transaction there that the coordinator never heard of.
    const markerOnlyRestart = all(
      { kind: 'append', id: 1, partition: 0, count: 1 }, { kind: 'end', id: 1, commit: false }, { kind: 'add', id: 1, partition: 1 },
      { kind: 'init', id: 1 }, { kind: 'crash', partition: 1, clean: true }, { kind: 'append', id: 1, partition: 1, count: 1 }, { kind: 'init', id: 0 },
    );
    await fc.assert(fc.asyncProperty(fc.array(stepArbitrary, { minLength: 1, maxLength: 80, size: 'max' }), async (steps) => {
      await runSteps(steps);
    }), { numRuns: 40, examples: [[timedOut], [zombieMarkers], [markerOnlyRestart]] });
    expect(tally.committed).toBeGreaterThan(0);
    expect(tally.aborted).toBeGreaterThan(0);
    expect(tally.fenced).toBeGreaterThan(0);
  });
});
