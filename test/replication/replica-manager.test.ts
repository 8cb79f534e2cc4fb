import { describe, expect, it } from 'vitest';
import { ManualScheduler } from '../../host/replication/delay-scheduler.js';
import { Partition } from '../../host/replication/partition.js';
import { ReplicaManager, type FetchParams, type FetchPartitionResult } from '../../host/replication/replica-manager.js';
import { blob, FakeLog } from './fake-log.js';

function setup(partitions: Array<[string, number]> = [['t', 0]], options: { maxDelayedFetches?: number } = {}) {
  const scheduler = new ManualScheduler();
  const errors: object[] = [];
  const replicaManager = new ReplicaManager({
    localBrokerId: 1,
    scheduler,
    maxDelayedFetches: options.maxDelayedFetches,
    logger: { error: (fields) => errors.push(fields) },
  });
  const logs = new Map<string, FakeLog>();
  for (const [topic, partition] of partitions) {
    const log = new FakeLog(topic, partition);
    logs.set(`${topic}-${partition}`, log);
    replicaManager.becomeLeader({ topic, partition, log, leaderEpoch: 3 });
  }
  return { replicaManager, scheduler, logs, errors };
}

function fetchParams(partitions: FetchParams['partitions'], overrides: Partial<FetchParams> = {}): FetchParams {
  return { maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, minOneMessage: true, partitions, ...overrides };
}

async function settled<T>(promise: Promise<T>): Promise<{ done: boolean; value?: T }> {
  let state: { done: boolean; value?: T } = { done: false };
  promise.then((value) => (state = { done: true, value }));
  for (let i = 0; i < 5; i++) await Promise.resolve();
  return state;
}

describe('Partition', () => {
  it('moves the high watermark to the log end after each append (ISR = {self})', () => {
    const log = new FakeLog('t', 0);
    const partition = new Partition({ topic: 't', partition: 0, log, localBrokerId: 1, leaderEpoch: 5 });
    const result = partition.appendRecordsToLeader(blob(10), 1);
    expect(result).toMatchObject({ errorCode: 0, baseOffset: 0, lastOffset: 0, appendedBytes: 10 });
    expect(partition.highWatermark).toBe(1);
    expect(partition.isr).toEqual([1]);
    expect(log.leaderEpochs).toEqual([5]);
  });

  it('refuses acks=all with NOT_ENOUGH_REPLICAS when the ISR is below min.insync.replicas, writing nothing', () => {
    const log = new FakeLog('t', 0);
    log.config.minInsyncReplicas = 2;
    const partition = new Partition({ topic: 't', partition: 0, log, localBrokerId: 1, leaderEpoch: 0 });
    expect(partition.appendRecordsToLeader(blob(10), -1)).toMatchObject({ errorCode: 19, baseOffset: -1 });
    expect(log.batches).toHaveLength(0);
    expect(partition.appendRecordsToLeader(blob(10), 1).errorCode).toBe(0);
  });

  it('answers reads outside [logStartOffset, logEndOffset] with OFFSET_OUT_OF_RANGE', () => {
    const log = new FakeLog('t', 0);
    log.logStartOffset = 10;
    const partition = new Partition({ topic: 't', partition: 0, log, localBrokerId: 1, leaderEpoch: 0 });
    partition.appendRecordsToLeader(blob(4), 1);
    const read = (fetchOffset: number) =>
      partition.readRecords({ fetchOffset, maxBytes: 100, isolationLevel: 0, minOneMessage: true });
    expect(read(9)).toMatchObject({ errorCode: 1, highWatermark: -1 });
    expect(read(12)).toMatchObject({ errorCode: 1 });
    expect(read(11)).toMatchObject({ errorCode: 0, highWatermark: 11, records: Buffer.alloc(0) });
    expect(read(10).records.length).toBe(4);
  });

  it('reads read_committed only up to the last stable offset', () => {
    const log = new FakeLog('t', 0);
    const partition = new Partition({ topic: 't', partition: 0, log, localBrokerId: 1, leaderEpoch: 0 });
    partition.appendRecordsToLeader(blob(4, 1), 1);
    partition.appendRecordsToLeader(blob(4, 2), 1);
    log.lastStableOffset = 1;
    const committed = partition.readRecords({ fetchOffset: 0, maxBytes: 100, isolationLevel: 1, minOneMessage: true });
    expect(committed).toMatchObject({ highWatermark: 2, lastStableOffset: 1 });
    expect(committed.records).toEqual(blob(4, 1));
    const uncommitted = partition.readRecords({ fetchOffset: 0, maxBytes: 100, isolationLevel: 0, minOneMessage: true });
    expect(uncommitted.records.length).toBe(8);
  });

  it('fences an older current leader epoch and flags a newer one', () => {
    const log = new FakeLog('t', 0);
    const partition = new Partition({ topic: 't', partition: 0, log, localBrokerId: 1, leaderEpoch: 4 });
    const read = (currentLeaderEpoch: number) =>
      partition.readRecords({ fetchOffset: 0, maxBytes: 100, isolationLevel: 0, minOneMessage: true, currentLeaderEpoch }).errorCode;
    expect([read(3), read(5), read(4), read(-1)]).toEqual([74, 75, 0, 0]);
  });
});

describe('ReplicaManager produce', () => {
  it('answers each partition on its own: unknown, corrupt and good partitions in one request', async () => {
    const { replicaManager } = setup([['t', 0], ['t', 1]]);
    const results = await replicaManager.appendRecords({
      requiredAcks: 1,
      timeoutMs: 1000,
      entries: [
        { topic: 't', partition: 0, records: blob(10) },
        { topic: 't', partition: 1, records: Buffer.from([0xff, 0, 0]) },
        { topic: 'missing', partition: 0, records: blob(10) },
        { topic: 't', partition: 0, records: blob(5) },
      ],
    });
    expect(results.map((r) => [r.topic, r.partition, r.errorCode, r.baseOffset])).toEqual([
      ['t', 0, 0, 0],
      ['t', 1, 2, -1],
      ['missing', 0, 3, -1],
      ['t', 0, 0, 1],
    ]);
  });

  it('refuses acks other than -1, 0 and 1 for every partition without writing', async () => {
    const { replicaManager, logs } = setup();
    const results = await replicaManager.appendRecords({ requiredAcks: 2, timeoutMs: 0, entries: [{ topic: 't', partition: 0, records: blob(3) }] });
    expect(results[0]!.errorCode).toBe(21);
    expect(logs.get('t-0')!.batches).toHaveLength(0);
  });

  it('completes acks=all at once on a single node and checks min.insync.replicas', async () => {
    const { replicaManager, logs } = setup([['t', 0], ['u', 0]]);
    logs.get('u-0')!.config.minInsyncReplicas = 2;
    const results = await replicaManager.appendRecords({
      requiredAcks: -1,
      timeoutMs: 1000,
      entries: [
        { topic: 't', partition: 0, records: blob(3) },
        { topic: 'u', partition: 0, records: blob(3) },
      ],
    });
    expect(results.map((r) => r.errorCode)).toEqual([0, 19]);
    expect(replicaManager.delayedProduceCount).toBe(0);
  });

  it('refuses client writes to internal topics unless allowed', async () => {
    const { replicaManager } = setup([['__consumer_offsets', 0]]);
    const entries = [{ topic: '__consumer_offsets', partition: 0, records: blob(3) }];
    expect((await replicaManager.appendRecords({ requiredAcks: 1, timeoutMs: 0, entries }))[0]!.errorCode).toBe(17);
    expect((await replicaManager.appendRecords({ requiredAcks: 1, timeoutMs: 0, entries, internalTopicsAllowed: true }))[0]!.errorCode).toBe(0);
  });

  it('maps a disk failure to KAFKA_STORAGE_ERROR and a bug to UNKNOWN_SERVER_ERROR, for that partition only', async () => {
    const { replicaManager, logs, errors } = setup([['t', 0], ['t', 1]]);
    logs.get('t-0')!.throwOnNext = Object.assign(new Error('ENOSPC: write'), { name: 'DiskError', code: 'ENOSPC' });
    logs.get('t-1')!.throwOnNext = new Error('bug');
    const entries = [0, 1, 0].map((partition) => ({ topic: 't', partition, records: blob(3) }));
    const results = await replicaManager.appendRecords({ requiredAcks: 1, timeoutMs: 0, entries });
    expect(results.map((r) => r.errorCode)).toEqual([56, -1, 0]);
    expect(errors).toHaveLength(2);
  });
});

describe('ReplicaManager deleteRecords', () => {
  it('moves the log start offset, to the high watermark for -1, and refuses offsets past it', async () => {
    const { replicaManager } = setup([['t', 0], ['t', 1]]);
    for (const partition of [0, 1]) {
      for (let i = 0; i < 4; i++) {
        await replicaManager.appendRecords({ requiredAcks: 1, timeoutMs: 0, entries: [{ topic: 't', partition, records: blob(5) }] });
      }
    }
    const results = replicaManager.deleteRecords([
      { topic: 't', partition: 0, offset: 2 },
      { topic: 't', partition: 1, offset: 9 },
      { topic: 'nope', partition: 0, offset: 0 },
      { topic: 't', partition: 1, offset: -1 },
    ]);
    expect(results.map((r) => [r.errorCode, r.lowWatermark])).toEqual([
      [0, 2],
      [1, -1],
      [3, -1],
      [0, 4],
    ]);
    const [read] = replicaManager.readFromLocalLog(fetchParams([{ topic: 't', partition: 0, fetchOffset: 1, partitionMaxBytes: 100 }]));
    expect(read!.errorCode).toBe(1);
  });
});

describe('ReplicaManager fetch', () => {
  async function produce(replicaManager: ReplicaManager, topic: string, partition: number, size: number): Promise<void> {
    const [result] = await replicaManager.appendRecords({ requiredAcks: 1, timeoutMs: 0, entries: [{ topic, partition, records: blob(size) }] });
    expect(result!.errorCode).toBe(0);
  }

  it('limits partitions by partition max bytes and the request by max bytes, in request order', async () => {
    const { replicaManager } = setup([['t', 0], ['t', 1], ['t', 2]]);
    for (const p of [0, 1, 2]) for (let i = 0; i < 3; i++) await produce(replicaManager, 't', p, 10);
    const results = await replicaManager.fetchMessages(
      fetchParams(
        [0, 1, 2].map((partition) => ({ topic: 't', partition, fetchOffset: 0, partitionMaxBytes: 25 })),
        { maxBytes: 45 },
      ),
    );
    expect(results.map((r) => r.records.length)).toEqual([20, 20, 0]);
    expect(results.map((r) => r.highWatermark)).toEqual([3, 3, 3]);
  });

  it('returns the first batch even above the limits for Fetch v3+, and only for the first partition with data', async () => {
    const { replicaManager } = setup([['t', 0], ['t', 1]]);
    await produce(replicaManager, 't', 0, 100);
    await produce(replicaManager, 't', 1, 100);
    const partitions = [0, 1].map((partition) => ({ topic: 't', partition, fetchOffset: 0, partitionMaxBytes: 10 }));
    const v3 = await replicaManager.fetchMessages(fetchParams(partitions, { maxBytes: 50 }));
    expect(v3.map((r) => r.records.length)).toEqual([100, 0]);
    const v2 = await replicaManager.fetchMessages(fetchParams(partitions, { maxBytes: 50, minOneMessage: false }));
    expect(v2.map((r) => r.records.length)).toEqual([0, 0]);
  });

  it('answers unknown partitions and bad offsets at once, without waiting', async () => {
    const { replicaManager } = setup();
    const results = await replicaManager.fetchMessages(
      fetchParams(
        [
          { topic: 'nope', partition: 0, fetchOffset: 0, partitionMaxBytes: 100 },
          { topic: 't', partition: 0, fetchOffset: 7, partitionMaxBytes: 100 },
        ],
        { maxWaitMs: 500 },
      ),
    );
    expect(results.map((r) => [r.errorCode, r.highWatermark, r.lastStableOffset, r.logStartOffset])).toEqual([
      [3, -1, -1, -1],
      [1, -1, -1, -1],
    ]);
    expect(replicaManager.delayedFetchCount).toBe(0);
  });

  it('holds a long poll until an append brings min.bytes, then returns the new records', async () => {
    const { replicaManager } = setup([['t', 0], ['t', 1]]);
    const pending = replicaManager.fetchMessages(
      fetchParams(
        [0, 1].map((partition) => ({ topic: 't', partition, fetchOffset: 0, partitionMaxBytes: 1000 })),
        { maxWaitMs: 500, minBytes: 15 },
      ),
    );
    expect((await settled(pending)).done).toBe(false);
    expect(replicaManager.delayedFetchCount).toBe(1);
    await produce(replicaManager, 't', 1, 10);
    expect((await settled(pending)).done).toBe(false);
    await produce(replicaManager, 't', 0, 10);
    const results = (await settled(pending)).value as FetchPartitionResult[];
    expect(results.map((r) => r.records.length)).toEqual([10, 10]);
    expect(replicaManager.delayedFetchCount).toBe(0);
  });

  it('answers a long poll with what there is when max.wait.ms passes', async () => {
    const { replicaManager, scheduler } = setup();
    const pending = replicaManager.fetchMessages(
      fetchParams([{ topic: 't', partition: 0, fetchOffset: 0, partitionMaxBytes: 1000 }], { maxWaitMs: 500, minBytes: 100 }),
    );
    await produce(replicaManager, 't', 0, 10);
    scheduler.advance(499);
    expect((await settled(pending)).done).toBe(false);
    scheduler.advance(1);
    const results = (await settled(pending)).value as FetchPartitionResult[];
    expect(results[0]!.records.length).toBe(10);
  });

  it('counts at most partition max bytes of each append toward min.bytes', async () => {
    const { replicaManager, scheduler } = setup();
    const pending = replicaManager.fetchMessages(
      fetchParams([{ topic: 't', partition: 0, fetchOffset: 0, partitionMaxBytes: 10 }], { maxWaitMs: 500, minBytes: 50 }),
    );
    await produce(replicaManager, 't', 0, 100);
    expect((await settled(pending)).done).toBe(false);
    scheduler.advance(500);
    expect((await settled(pending)).done).toBe(true);
  });

  it('answers a waiting fetch when its partition is removed', async () => {
    const { replicaManager } = setup();
    const pending = replicaManager.fetchMessages(
      fetchParams([{ topic: 't', partition: 0, fetchOffset: 0, partitionMaxBytes: 1000 }], { maxWaitMs: 500 }),
    );
    replicaManager.removePartition('t', 0);
    const results = (await settled(pending)).value as FetchPartitionResult[];
    expect(results[0]!.errorCode).toBe(3);
  });

  it('answers fetches at once beyond the delayed-fetch bound, and all of them at shutdown', async () => {
    const { replicaManager } = setup([['t', 0]], { maxDelayedFetches: 1 });
    const params = fetchParams([{ topic: 't', partition: 0, fetchOffset: 0, partitionMaxBytes: 1000 }], { maxWaitMs: 500 });
    const first = replicaManager.fetchMessages(params);
    const second = replicaManager.fetchMessages(params);
    expect((await settled(first)).done).toBe(false);
    expect((await settled(second)).done).toBe(true);
    replicaManager.shutdown();
    expect((await settled(first)).done).toBe(true);
    // After shutdown nothing waits any more.
    expect((await settled(replicaManager.fetchMessages(params))).done).toBe(true);
  });

  it('does not wait when max.wait.ms is 0 or min.bytes is already there', async () => {
    const { replicaManager } = setup();
    const partitions = [{ topic: 't', partition: 0, fetchOffset: 0, partitionMaxBytes: 1000 }];
    expect((await settled(replicaManager.fetchMessages(fetchParams(partitions, { maxWaitMs: 0 })))).done).toBe(true);
    await produce(replicaManager, 't', 0, 10);
    expect((await settled(replicaManager.fetchMessages(fetchParams(partitions, { maxWaitMs: 500 })))).done).toBe(true);
  });
});
