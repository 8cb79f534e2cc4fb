/**
 * The leader's side of replication over real logs and a manual clock: followers' Fetch requests
 * move the high watermark, acks=all produces complete on follower progress, the ISR expands and
 * shrinks through an AlterPartitionSink, and KIP-320 diverging epochs are answered.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualTime } from '../../host/io/time.js';
import type { UnifiedLog } from '../../host/log/unified-log.js';
import type { AlterPartitionItem, AlterPartitionResult, AlterPartitionSink } from '../../host/replication/alter-partition-sink.js';
import type { FetcherPartition } from '../../host/replication/partition-fetch-state.js';
import { Partition } from '../../host/replication/partition.js';
import { ReplicaManager, type FetchPartitionResult } from '../../host/replication/replica-manager.js';
import { closeReplicaLogs, openReplicaLog, recordsBatch, removeTempDirs } from './replication-test-helpers.js';

afterEach(() => {
  closeReplicaLogs();
  removeTempDirs();
});

const TOPIC_ID = '0123456789abcdef0123456789abcdef';
const LAG_MS = 30_000;

/** A controller that answers every proposal as told (default: commits it with partitionEpoch + 1). */
class FakeSink implements AlterPartitionSink {
  readonly items: AlterPartitionItem[] = [];
  private readonly waiting: Array<(result: AlterPartitionResult) => void> = [];
  autoCommit = true;

  submit(item: AlterPartitionItem): Promise<AlterPartitionResult> {
    this.items.push(item);
    if (this.autoCommit) return Promise.resolve(committed(item));
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  answer(result: AlterPartitionResult): void {
    this.waiting.shift()!(result);
  }
}

function committed(item: AlterPartitionItem): AlterPartitionResult {
  return { errorCode: 0, leaderId: 1, leaderEpoch: item.leaderEpoch, partitionEpoch: item.partitionEpoch + 1, isr: item.newIsr };
}

async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

async function settled<T>(promise: Promise<T>): Promise<{ done: boolean; value?: T }> {
  let state: { done: boolean; value?: T } = { done: false };
  promise.then((value) => (state = { done: true, value }));
  await flush();
  return state;
}

function setup(options: {
  isr?: number[]; minInsyncReplicas?: number; sink?: FakeSink; leaderEpoch?: number; eligible?: (brokerId: number) => boolean; brokerEpochs?: Map<number, number>;
} = {}) {
  const time = new ManualTime({ startMs: 1_000_000, monotonicStartMs: 0 });
  const replicaManager = new ReplicaManager<UnifiedLog>({
    localBrokerId: 1,
    scheduler: time,
    replicaLagTimeMaxMs: LAG_MS,
    ...(options.sink === undefined ? {} : { alterPartitionSink: options.sink }),
    ...(options.eligible === undefined ? {} : { isReplicaIsrEligible: options.eligible }),
    ...(options.brokerEpochs === undefined ? {} : { brokerEpochOf: (brokerId: number) => options.brokerEpochs!.get(brokerId) ?? -1 }),
  });
  const leaderLog = openReplicaLog({ minInsyncReplicas: options.minInsyncReplicas ?? 1 });
  const leader = replicaManager.becomeLeader({
    topic: 't', partition: 0, log: leaderLog, leaderEpoch: options.leaderEpoch ?? 1, partitionEpoch: 0,
    replicas: [1, 2, 3], isr: options.isr ?? [1, 2, 3], topicId: TOPIC_ID,
  });
  const followers = new Map<number, Partition<UnifiedLog>>();
  for (const brokerId of [2, 3]) {
    followers.set(brokerId, new Partition({
      topic: 't', partition: 0, log: openReplicaLog(), localBrokerId: brokerId, leaderId: 1,
      leaderEpoch: options.leaderEpoch ?? 1, replicas: [1, 2, 3], isr: options.isr ?? [1, 2, 3],
    }));
  }
  const produce = (count: number, acks = 1) =>
    replicaManager.appendRecords({ requiredAcks: acks, timeoutMs: 60_000, entries: [{ topic: 't', partition: 0, records: recordsBatch(count) }] });
  /** One fetch of follower `brokerId` from its log end (what a ReplicaFetcher sends), appended as it would. */
  const replicate = async (brokerId: number): Promise<FetchPartitionResult> => {
    const follower = followers.get(brokerId)!;
    const [result] = await replicaManager.fetchMessages({
      maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, minOneMessage: true, replicaId: brokerId,
      partitions: [{
        topic: 't', partition: 0, fetchOffset: follower.logEndOffset, partitionMaxBytes: 1 << 20,
        currentLeaderEpoch: leader.leaderEpoch, lastFetchedEpoch: follower.latestEpoch, logStartOffset: follower.logStartOffset,
      }],
    });
    if (result!.errorCode === 0 && result!.divergingEpoch === undefined) {
      if (result!.records.length > 0) expect(follower.appendRecordsAsFollower(result!.records).errorCode).toBe(0);
      follower.updateFollowerHighWatermark(result!.highWatermark);
    }
    await flush();
    return result!;
  };
  return { time, replicaManager, leader, leaderLog, followers, produce, replicate };
}

describe('the leader high watermark', () => {
  it('is the smallest log end offset over the ISR, from the followers fetch offsets', async () => {
    const { leader, produce, replicate, followers } = setup();
    await produce(3);
    expect(leader.highWatermark).toBe(0);
    await replicate(2);
    expect(leader.highWatermark).toBe(0);
    await replicate(2);
    expect(leader.followerState(2)?.logEndOffset).toBe(3);
    expect(leader.highWatermark).toBe(0);
    await replicate(3);
    await replicate(3);
    expect(leader.highWatermark).toBe(3);
    // The followers learn it from their next fetch.
    await replicate(2);
    expect(followers.get(2)!.highWatermark).toBe(3);
  });

  it('answers a consumer fetching between the high watermark and the log end with no records and no error (Kafka checks the log end, not the high watermark)', async () => {
    // A consumer that read up to the old leader's high watermark may ask a new leader whose own
    // high watermark has not caught up yet: Kafka answers empty (the consumer retries), and
    // OFFSET_OUT_OF_RANGE (1) only outside [log start, log end], which would reset the consumer.
    const { replicaManager, leader, produce } = setup();
    await produce(5);
    expect([leader.highWatermark, leader.logEndOffset]).toEqual([0, 5]);
    const read = (fetchOffset: number) => replicaManager.readFromLocalLog({
      maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, minOneMessage: true,
      partitions: [{ topic: 't', partition: 0, fetchOffset, partitionMaxBytes: 1 << 20 }],
    })[0]!;
    for (const fetchOffset of [3, 5]) {
      const answer = read(fetchOffset);
      expect([answer.errorCode, answer.records.length, answer.highWatermark]).toEqual([0, 0, 0]);
    }
    expect(read(6).errorCode).toBe(1);
  });

  it('a Partition is what the ReplicaFetcher needs of a follower', () => {
    const { followers } = setup();
    const replica: FetcherPartition = followers.get(2)!;
    expect(replica.latestEpoch).toBe(-1);
  });

  it('answers acks=all once every ISR member has the records, and consumers see them only then', async () => {
    const { replicaManager, produce, replicate } = setup();
    const acked = produce(2, -1);
    const consumer = replicaManager.fetchMessages({
      maxWaitMs: 60_000, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, minOneMessage: true,
      partitions: [{ topic: 't', partition: 0, fetchOffset: 0, partitionMaxBytes: 1 << 20 }],
    });
    await replicate(2);
    await replicate(3);
    expect((await settled(acked)).done).toBe(false);
    expect((await settled(consumer)).done).toBe(false);
    await replicate(2);
    expect((await settled(acked)).done).toBe(false);
    await replicate(3);
    const answer = await settled(acked);
    expect(answer.value?.[0]).toMatchObject({ errorCode: 0, baseOffset: 0, lastOffset: 1 });
    const consumed = await settled(consumer);
    expect(consumed.done).toBe(true);
    expect(consumed.value?.[0]?.records.length).toBeGreaterThan(0);
  });

  it('wakes a follower long poll on a leader append (the consumer one waits for the high watermark)', async () => {
    const { replicaManager, produce } = setup();
    const followerPoll = replicaManager.fetchMessages({
      maxWaitMs: 60_000, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, minOneMessage: true, replicaId: 2,
      partitions: [{ topic: 't', partition: 0, fetchOffset: 0, partitionMaxBytes: 1 << 20, currentLeaderEpoch: 1 }],
    });
    expect((await settled(followerPoll)).done).toBe(false);
    await produce(1);
    const answered = await settled(followerPoll);
    expect(answered.value?.[0]?.records.length).toBeGreaterThan(0);
    expect(answered.value?.[0]?.highWatermark).toBe(0);
  });

  it('refuses acks=all with NOT_ENOUGH_REPLICAS (19) below min.insync.replicas, before writing', async () => {
    const { produce, leader } = setup({ isr: [1], minInsyncReplicas: 2 });
    const [result] = await produce(1, -1);
    expect(result!.errorCode).toBe(19);
    expect(leader.logEndOffset).toBe(0);
    expect((await produce(1, 1))[0]!.errorCode).toBe(0);
  });
});

describe('ISR changes through the AlterPartitionSink', () => {
  it('expands the ISR with a follower that caught up, holding the high watermark for it while pending', async () => {
    const sink = new FakeSink();
    sink.autoCommit = false;
    const { leader, produce, replicate } = setup({ isr: [1], sink });
    await produce(2);
    expect(leader.highWatermark).toBe(2);
    await replicate(2);
    expect(sink.items).toHaveLength(0);
    await replicate(2);
    expect(sink.items).toEqual([{
      topicId: TOPIC_ID, topic: 't', partition: 0, leaderEpoch: 1, partitionEpoch: 0, newIsr: [1, 2],
      newIsrWithEpochs: [{ brokerId: 1, brokerEpoch: -1 }, { brokerId: 2, brokerEpoch: -1 }],
    }]);
    expect(leader.pendingIsrChange).toEqual({ kind: 'expand', newIsr: [1, 2] });
    // Pending: follower 2 counts for the high watermark (maximal ISR), not for min.insync.replicas.
    await produce(1);
    expect(leader.highWatermark).toBe(2);
    sink.answer(committed(sink.items[0]!));
    await flush();
    expect(leader).toMatchObject({ isr: [1, 2], partitionEpoch: 1, pendingIsrChange: null });
    await replicate(2);
    await replicate(2);
    expect(leader.highWatermark).toBe(3);
  });

  it('sends each follower\'s broker epoch of its last fetch with the proposal (KIP-903), as the metadata knew it when the fetch came', async () => {
    const sink = new FakeSink();
    sink.autoCommit = false;
    const brokerEpochs = new Map([[1, 5], [2, 10], [3, 30]]);
    const { produce, replicate } = setup({ isr: [1, 3], sink, brokerEpochs });
    await produce(2);
    await replicate(3);
    await replicate(2);
    await replicate(2);
    expect(sink.items).toHaveLength(1);
    expect(sink.items[0]!.newIsrWithEpochs).toEqual([{ brokerId: 1, brokerEpoch: -1 }, { brokerId: 3, brokerEpoch: 30 }, { brokerId: 2, brokerEpoch: 10 }]);
    // Broker 2 re-registered (epoch 20) meanwhile: the controller refuses fetch state of its old
    // registration (INELIGIBLE_REPLICA); its next fetch is recorded under the new one and proposed again.
    sink.answer({ errorCode: 107, leaderId: -1, leaderEpoch: -1, partitionEpoch: -1, isr: [] });
    await flush();
    brokerEpochs.set(2, 20);
    await replicate(2);
    expect(sink.items).toHaveLength(2);
    expect(sink.items[1]!.newIsrWithEpochs).toEqual([{ brokerId: 1, brokerEpoch: -1 }, { brokerId: 3, brokerEpoch: 30 }, { brokerId: 2, brokerEpoch: 20 }]);
  });

  it('neither waits for nor proposes a caught-up follower whose broker is not ISR-eligible (fenced, shutting down)', async () => {
    const run = async (eligible: boolean) => {
      const sink = new FakeSink();
      const { leader, produce, replicate } = setup({ isr: [1], sink, eligible: (brokerId) => eligible || brokerId !== 2 });
      await replicate(2);
      await produce(2);
      const highWatermark = leader.highWatermark;
      await replicate(2);
      await replicate(2);
      return { highWatermark, proposals: sink.items.length };
    };
    // Eligible: the caught-up joiner holds the high watermark and is proposed for the ISR.
    expect(await run(true)).toEqual({ highWatermark: 0, proposals: 1 });
    // Not eligible (Kafka's isReplicaIsrEligible): the leader's appends are committed alone, no proposal.
    expect(await run(false)).toEqual({ highWatermark: 2, proposals: 0 });
  });

  it('shrinks out a follower that has not caught up for replica.lag.time.max.ms, and answers waiting acks=all with 20 when the ISR fell below min.insync.replicas', async () => {
    const sink = new FakeSink();
    const { leader, time, replicaManager, produce, replicate } = setup({ isr: [1, 2], minInsyncReplicas: 2, sink });
    await produce(1, 1);
    await replicate(2);
    await replicate(2);
    expect(leader.highWatermark).toBe(1);
    const acked = produce(1, -1);
    expect((await settled(acked)).done).toBe(false);
    time.advance(LAG_MS);
    expect(replicaManager.maybeShrinkIsr()).toBe(0);
    time.advance(1);
    expect(replicaManager.maybeShrinkIsr()).toBe(1);
    await flush();
    expect(sink.items.map((item) => item.newIsr)).toEqual([[1]]);
    expect(leader.isr).toEqual([1]);
    expect(leader.highWatermark).toBe(2);
    const answer = await settled(acked);
    expect(answer.value?.[0]?.errorCode).toBe(20);
  });

  it('never shrinks out a follower at the leader log end, and counts one as caught up when it reached the leader end of its previous fetch', async () => {
    const sink = new FakeSink();
    const { time, replicaManager, produce, replicate } = setup({ isr: [1, 2], sink });
    await produce(1);
    await replicate(2);
    await replicate(2);
    time.advance(10 * LAG_MS);
    expect(replicaManager.maybeShrinkIsr()).toBe(0);
    await replicate(2); // at the leader end: caught up now (B)
    await produce(1);
    time.advance(20_000);
    await replicate(2); // (C) behind, but has what the leader had at B: caught up at B
    await produce(1);
    time.advance(5_000);
    await replicate(2); // behind, but has what the leader had at C: caught up at C
    time.advance(LAG_MS - 5_000);
    expect(replicaManager.maybeShrinkIsr()).toBe(0);
    time.advance(1);
    expect(replicaManager.maybeShrinkIsr()).toBe(1);
    expect(sink.items.map((item) => item.newIsr)).toEqual([[1]]);
  });

  it('goes back to the committed ISR when the controller did not apply the proposal, and waits for metadata otherwise', async () => {
    const sink = new FakeSink();
    sink.autoCommit = false;
    const { leader, produce, replicate } = setup({ isr: [1], sink });
    await produce(1);
    await replicate(2);
    await replicate(2);
    sink.answer({ errorCode: 55, leaderId: 1, leaderEpoch: 1, partitionEpoch: 0, isr: [1] });
    await flush();
    expect(leader.pendingIsrChange).toBeNull();
    await replicate(2);
    expect(sink.items).toHaveLength(2);
    sink.answer({ errorCode: 108, leaderId: 1, leaderEpoch: 1, partitionEpoch: 0, isr: [1] });
    await flush();
    expect(leader.pendingIsrChange).not.toBeNull();
    await replicate(2);
    expect(sink.items).toHaveLength(2);
    // The metadata update carries the controller's committed state.
    leader.makeLeader({ leaderEpoch: 1, partitionEpoch: 3, isr: [1, 2] });
    expect(leader).toMatchObject({ pendingIsrChange: null, isr: [1, 2], partitionEpoch: 3 });
  });

  it('proposes nothing without a sink: the ISR is what the metadata says', async () => {
    const { leader, time, replicaManager, produce, replicate } = setup({ isr: [1, 2] });
    await produce(1);
    time.advance(10 * LAG_MS);
    expect(replicaManager.maybeShrinkIsr()).toBe(0);
    await replicate(3);
    await replicate(3);
    expect(leader.isr).toEqual([1, 2]);
    expect(leader.highWatermark).toBe(0);
  });
});

describe('follower fetches on the leader', () => {
  it('answers a DivergingEpoch when the follower last fetched epoch ended before its fetch offset, recording nothing', async () => {
    const { replicaManager, leader, produce } = setup({ isr: [1] });
    await produce(3);
    leader.makeLeader({ leaderEpoch: 4 });
    await produce(2);
    const fetchAs = async (fetchOffset: number, lastFetchedEpoch: number) => (await replicaManager.fetchMessages({
      maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, minOneMessage: true, replicaId: 2,
      partitions: [{ topic: 't', partition: 0, fetchOffset, partitionMaxBytes: 1 << 20, currentLeaderEpoch: 4, lastFetchedEpoch }],
    }))[0]!;
    // Epoch 2 is not the leader's: epoch 1 ended at 3, before offset 4.
    expect(await fetchAs(4, 2)).toMatchObject({ errorCode: 0, divergingEpoch: { epoch: 1, endOffset: 3 }, records: Buffer.alloc(0) });
    expect(leader.followerState(2)?.logEndOffset).toBe(-1);
    // Epoch 1 ended at 3: offset 3 is consistent.
    const ok = await fetchAs(3, 1);
    expect(ok.divergingEpoch).toBeUndefined();
    expect(ok.records.length).toBeGreaterThan(0);
    expect(leader.followerState(2)?.logEndOffset).toBe(3);
    // An epoch newer than the leader's: it cannot place it.
    expect((await fetchAs(5, 7)).errorCode).toBe(1);
  });

  it('refuses a replica id outside the replicas, and any fetch to a follower', async () => {
    const { replicaManager, followers } = setup();
    const fetch = (replicaId: number, currentLeaderEpoch: number) => replicaManager.fetchMessages({
      maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, minOneMessage: true, replicaId,
      partitions: [{ topic: 't', partition: 0, fetchOffset: 0, partitionMaxBytes: 1 << 20, currentLeaderEpoch }],
    });
    expect((await fetch(9, 1))[0]!.errorCode).toBe(75);
    expect((await fetch(9, -1))[0]!.errorCode).toBe(6);
    expect(followers.get(2)!.readRecords({ fetchOffset: 0, maxBytes: 100, isolationLevel: 0, minOneMessage: true, replicaId: 3 }).errorCode).toBe(6);
  });
});

describe('ListOffsets on replicas', () => {
  it('answers a follower NOT_LEADER_OR_FOLLOWER, and a replica asking the leader for latest gets the log end offset', async () => {
    const { listOffsetsApi } = await import('../../host/api/list-offsets-api.js');
    const { replicaManager, produce, followers } = setup();
    await produce(3);
    const ask = async (manager: ReplicaManager<UnifiedLog>, replicaId: number) => {
      const context = { apiVersion: 1, broker: { replicaManager: manager, config: { listOffsetsMaxPartitionsPerTurn: 500 } } } as unknown as Parameters<typeof listOffsetsApi.handle>[1];
      const response = await listOffsetsApi.handle(
        { replicaId, isolationLevel: 0, topics: [{ name: 't', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1, maxNumOffsets: 1 }] }] },
        context,
      );
      return (response as { topics: { partitions: { errorCode: number; offset?: number }[] }[] }).topics[0]!.partitions[0]!;
    };
    expect(await ask(replicaManager, -1)).toMatchObject({ errorCode: 0, offset: 0 });
    expect(await ask(replicaManager, 2)).toMatchObject({ errorCode: 0, offset: 3 });
    const followerManager = new ReplicaManager<UnifiedLog>({ localBrokerId: 2 });
    followerManager.becomeFollower({
      topic: 't', partition: 0, log: followers.get(2)!.log, leaderId: 1, leaderEpoch: 1, partitionEpoch: 0, replicas: [1, 2, 3], isr: [1, 2, 3],
    });
    expect(await ask(followerManager, -1)).toMatchObject({ errorCode: 6 });
  });
});
