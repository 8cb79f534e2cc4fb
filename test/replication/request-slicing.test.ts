/**
 * Produce and Fetch naming more than request.max.partitions.per.turn partitions are worked through
 * in slices, one event-loop turn each (issue 15): the answers equal the one-turn answers, in
 * request order, with the same byte budget across slices; appends stay in call order (a Produce
 * arriving while a sliced one is under way reaches the logs after it), and other work runs
 * between two slices.
 */
import { describe, expect, it } from 'vitest';
import { ManualScheduler } from '../../host/replication/delay-scheduler.js';
import { ReplicaManager, type FetchParams, type ProduceParams } from '../../host/replication/replica-manager.js';
import type { RequestSlicing } from '../../host/replication/request-slicing.js';
import { blob, FakeLog } from './fake-log.js';

const PARTITIONS = 7;

/** A leader of t-0 .. t-6 whose partition p already holds p + 1 batches of 10 bytes. */
function leader(slicing?: RequestSlicing, scheduler = new ManualScheduler()): ReplicaManager<FakeLog> {
  const replicaManager = new ReplicaManager<FakeLog>({ localBrokerId: 1, scheduler, ...(slicing === undefined ? {} : { requestSlicing: slicing }) });
  for (let partition = 0; partition < PARTITIONS; partition++) {
    const log = new FakeLog('t', partition);
    const p = replicaManager.becomeLeader({ topic: 't', partition, log, leaderEpoch: 0 });
    for (let i = 0; i <= partition; i++) p.appendRecordsToLeader(blob(10, partition + 1), 1);
  }
  return replicaManager;
}

/** Slices of 2, each later turn run only when `turn()` is called (counted). */
function manualTurns(): RequestSlicing & { turn(): void; turns: number } {
  const queued: (() => void)[] = [];
  return {
    maxPartitionsPerTurn: 2,
    defer: (task) => queued.push(task),
    turns: 0,
    turn() {
      const tasks = queued.splice(0);
      if (tasks.length > 0) this.turns++;
      for (const task of tasks) task();
    },
  };
}

/** Runs every queued turn (and the promise reactions between them) until `promise` settles. */
async function drive<T>(promise: Promise<T>, slicing: { turn(): void }): Promise<T> {
  let settled = false;
  void promise.then(() => (settled = true), () => (settled = true));
  for (let i = 0; i < 100 && !settled; i++) {
    for (let j = 0; j < 5; j++) await Promise.resolve();
    slicing.turn();
  }
  return promise;
}

const fetchParams = (overrides: Partial<FetchParams> = {}): FetchParams => ({
  maxWaitMs: 0, minBytes: 1, maxBytes: 45, isolationLevel: 0, minOneMessage: true,
  partitions: [6, 0, 3, 9, 1, 5, 2, 4].map((partition) => ({ topic: 't', partition, fetchOffset: 0, partitionMaxBytes: 25, currentLeaderEpoch: -1, lastFetchedEpoch: -1, logStartOffset: -1 })),
  ...overrides,
});

const produceParams = (partitions: readonly number[], fill: number): ProduceParams => ({
  requiredAcks: 1, timeoutMs: 1_000, entries: partitions.map((partition) => ({ topic: 't', partition, records: blob(4, fill) })),
});

describe('request slicing in the ReplicaManager', () => {
  it('answers a Fetch read in slices as one read in one turn: same partitions in request order, same byte budget, an unknown partition in place', async () => {
    const slicing = manualTurns();
    const sliced = await drive(leader(slicing).fetchMessages(fetchParams()), slicing);
    const whole = await leader().fetchMessages(fetchParams());
    expect(slicing.turns).toBeGreaterThanOrEqual(3);
    expect(sliced.map((r) => ({ ...r, records: [...r.records] }))).toEqual(whole.map((r) => ({ ...r, records: [...r.records] })));
    expect(sliced.map((r) => r.partition)).toEqual([6, 0, 3, 9, 1, 5, 2, 4]);
    // 45 bytes: partition 6 gives 20 (of its 70, partitionMaxBytes 25), 0 gives 10, 3 gives 10, then the budget is spent.
    expect(sliced.map((r) => r.records.length)).toEqual([20, 10, 10, 0, 0, 0, 0, 0]);
  });

  it('answers a Produce appended in slices as in one turn, and an append arriving meanwhile reaches the log after it', async () => {
    const slicing = manualTurns();
    const replicaManager = leader(slicing);
    const first = replicaManager.appendRecords(produceParams([0, 1, 2, 3, 4, 5, 6], 7));
    // Only the first slice (partitions 0 and 1) is appended in this turn.
    expect(replicaManager.getPartition('t', 6)!.log.logEndOffset).toBe(7);
    const second = replicaManager.appendRecords(produceParams([6], 8));
    const [firstResults, secondResults] = await drive(Promise.all([first, second]), slicing);
    const whole = await leader().appendRecords(produceParams([0, 1, 2, 3, 4, 5, 6], 7));
    expect(firstResults).toEqual(whole);
    expect(firstResults.map((r) => r.baseOffset)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(secondResults.map((r) => r.baseOffset)).toEqual([8]);
    const log6 = replicaManager.getPartition('t', 6)!.log;
    expect(log6.batches.slice(-2).map((b) => b.bytes[0])).toEqual([7, 8]);
  });

  it('keeps small requests in one turn when no sliced append is under way', async () => {
    const slicing = manualTurns();
    const replicaManager = leader(slicing);
    const results = await replicaManager.appendRecords(produceParams([0, 1], 9));
    expect(results.map((r) => r.errorCode)).toEqual([0, 0]);
    expect((await replicaManager.fetchMessages(fetchParams({ partitions: fetchParams().partitions.slice(0, 2) }))).map((r) => r.partition)).toEqual([6, 0]);
    expect(slicing.turns).toBe(0);
  });

  it('answers a long poll that waited (DelayedFetch) with a read in slices too, equal to the read in one turn', async () => {
    const slicing = manualTurns();
    const scheduler = new ManualScheduler();
    // No unknown partition (an error answers at once) and more bytes asked for than there are: it waits.
    const longPoll = fetchParams({ maxWaitMs: 500, minBytes: 1_000_000, partitions: fetchParams().partitions.filter((p) => p.partition !== 9) });
    const sliced = leader(slicing, scheduler).fetchMessages(longPoll);
    let answered = false;
    void sliced.then(() => (answered = true));
    for (let i = 0; i < 10; i++) { // the first read, in slices
      for (let j = 0; j < 5; j++) await Promise.resolve();
      slicing.turn();
    }
    expect(answered).toBe(false);
    const turnsBefore = slicing.turns;
    scheduler.advance(500); // max_wait_ms passes: the DelayedFetch reads again
    const results = await drive(sliced, slicing);
    expect(slicing.turns).toBeGreaterThan(turnsBefore);
    const wholeScheduler = new ManualScheduler();
    const whole = leader(undefined, wholeScheduler).fetchMessages(longPoll);
    wholeScheduler.advance(500);
    expect(results.map((r) => ({ ...r, records: [...r.records] }))).toEqual((await whole).map((r) => ({ ...r, records: [...r.records] })));
  });
});
