/**
 * RemotePartitionLag (host/server/remote-partition-lag.ts) against scripted leaders: what it asks
 * (ListOffsets latest READ_COMMITTED and earliest, a Fetch at the wanted offsets), what it caches,
 * and its bounds (one round in flight, at most consumer.lag.remote.max.partitions per round,
 * partitions not sampled forgotten, partitions this broker leads never asked, stale answers
 * unknown).
 */
import { describe, expect, it } from 'vitest';
import type { NodeChannels } from '../../host/network/node-channels.js';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { RemotePartitionLag } from '../../host/server/remote-partition-lag.js';
import { BatchLayout } from '../../host/wasm/batch-layout.js';

interface Sent { nodeId: number; apiKey: number; body: { isolationLevel: number; topics: { name?: string; topic?: string; partitions: { partitionIndex?: number; partition?: number; timestamp?: number; fetchOffset?: number }[] }[] } }

/** A batch header of 61 bytes whose base offset and CreateTime base timestamp are given. */
function batchHeader(baseOffset: number, timestampMs: number): Uint8Array {
  const bytes = Buffer.alloc(BatchLayout.RECORDS);
  bytes.writeBigInt64BE(BigInt(baseOffset), BatchLayout.BASE_OFFSET);
  bytes.writeInt8(2, BatchLayout.MAGIC);
  bytes.writeBigInt64BE(BigInt(timestampMs), BatchLayout.BASE_TIMESTAMP);
  return bytes;
}

/** Leaders answering from a table: partition → { lso, logStart, timestamp of every offset = 1000 + offset }. */
function scriptedLeaders(options: { batchForFirstOnly?: boolean } = {}): { channels: NodeChannels; sent: Sent[]; release: () => void; hold: boolean } {
  const sent: Sent[] = [];
  const state = { hold: false, waiting: [] as (() => void)[] };
  const channels = {
    setEndpoint: () => undefined,
    send: async (nodeId: number, api: { apiKey: number }, _version: number, body: Sent['body']) => {
      sent.push({ nodeId, apiKey: api.apiKey, body });
      if (state.hold) await new Promise<void>((resolve) => state.waiting.push(resolve));
      if (api.apiKey === ApiKey.ListOffsets) {
        return { kind: 'response', body: { topics: body.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({
          partitionIndex: p.partitionIndex, errorCode: 0, offset: p.timestamp === -2 ? 2 : 10 + p.partitionIndex!,
        })) })) } };
      }
      // batchForFirstOnly: batches larger than the per-partition limit, which only the first partition gets (KIP-74).
      return { kind: 'response', body: { errorCode: 0, responses: body.topics.map((t, ti) => ({ topic: t.topic, partitions: t.partitions.map((p, pi) => ({
        partitionIndex: p.partition, errorCode: 0,
        records: options.batchForFirstOnly === true && (ti > 0 || pi > 0) ? new Uint8Array(0) : batchHeader(p.fetchOffset!, 1000 + p.fetchOffset!),
      })) })) } };
    },
  } as unknown as NodeChannels;
  const scripted = {
    channels, sent,
    release: () => { for (const resolve of state.waiting.splice(0)) resolve(); },
    get hold() { return state.hold; },
    set hold(value: boolean) { state.hold = value; },
  };
  return scripted;
}

function lagCache(channels: NodeChannels, clock: { now: number }, maxPartitions = 100): RemotePartitionLag {
  return new RemotePartitionLag({
    nodeId: 1,
    time: { nowMs: () => clock.now },
    channels,
    // Partition p of any topic is led by broker p + 1; broker 1 is this one.
    leaderOf: (_topic, partition) => partition + 1,
    endpointOf: (brokerId) => ({ host: '127.0.0.1', port: 9000 + brokerId }),
    sampleIntervalMs: 1000,
    maxPartitions,
  });
}

describe('RemotePartitionLag', () => {
  it('answers unknown until the leader answered, then its last stable offset, log start and the timestamp at a wanted offset', async () => {
    const leaders = scriptedLeaders();
    const clock = { now: 50_000 };
    const cache = lagCache(leaders.channels, clock);
    expect(cache.partition('t', 1)).toBeNull();
    await cache.sampled();
    // One ListOffsets latest (READ_COMMITTED) and one earliest to broker 2; no Fetch yet: no timestamp was wanted.
    expect(leaders.sent.map((s) => [s.nodeId, s.apiKey, s.body.isolationLevel, s.body.topics[0]!.partitions[0]!.timestamp])).toEqual([
      [2, ApiKey.ListOffsets, 1, -1], [2, ApiKey.ListOffsets, 0, -2],
    ]);
    const known = cache.partition('t', 1)!;
    expect(known.lastStableOffset).toBe(11);
    expect(known.logStartOffset).toBe(2);
    expect(known.timestampAt(4)).toBeNull();
    await cache.sampled();
    const fetches = leaders.sent.filter((s) => s.apiKey === ApiKey.Fetch);
    expect(fetches.map((s) => [s.nodeId, s.body.isolationLevel, s.body.topics[0]!.partitions[0]!.fetchOffset])).toEqual([[2, 1, 4]]);
    expect(cache.partition('t', 1)!.timestampAt(4)).toBe(1004);
    // Known: no further Fetch for it.
    await cache.sampled();
    expect(leaders.sent.filter((s) => s.apiKey === ApiKey.Fetch)).toHaveLength(1);
  });

  it('never asks for partitions this broker leads, forgets partitions a sample did not ask for, and counts stale answers as unknown', async () => {
    const leaders = scriptedLeaders();
    const clock = { now: 50_000 };
    const cache = lagCache(leaders.channels, clock);
    cache.partition('t', 0);
    cache.partition('t', 2);
    await cache.sampled();
    expect(leaders.sent.map((s) => s.nodeId)).toEqual([3, 3]);
    leaders.sent.length = 0;
    // The next sample asks for nothing: partition 2 is forgotten, nothing is requested.
    await cache.sampled();
    await cache.sampled();
    expect(leaders.sent).toEqual([]);
    expect(cache.partition('t', 2)).toBeNull();
    await cache.sampled();
    expect(cache.partition('t', 2)).not.toBeNull();
    // Two sample intervals plus the request timeout (1 s here) without an answer: unknown.
    clock.now += 3_001;
    expect(cache.partition('t', 2)).toBeNull();
  });

  it('keeps one round in flight and asks for at most max partitions per round, those refreshed longest ago first', async () => {
    const leaders = scriptedLeaders();
    const clock = { now: 50_000 };
    const cache = lagCache(leaders.channels, clock, 2);
    for (const topic of ['a', 'b', 'c']) cache.partition(topic, 1);
    leaders.hold = true;
    const round = cache.sampled();
    for (const topic of ['a', 'b', 'c']) cache.partition(topic, 1);
    const again = cache.sampled();
    expect(leaders.sent).toHaveLength(2);
    leaders.release();
    await Promise.all([round, again]);
    leaders.hold = false;
    const asked = (from: number): string[] => leaders.sent.slice(from).filter((s) => s.body.topics[0]!.partitions[0]!.timestamp === -1).flatMap((s) => s.body.topics.map((t) => t.name!));
    expect(asked(0)).toEqual(['a', 'b']);
    const before = leaders.sent.length;
    clock.now += 100;
    for (const topic of ['a', 'b', 'c']) cache.partition(topic, 1);
    await cache.sampled();
    // c was never refreshed: it goes first.
    expect(asked(before)).toEqual(['c', 'a']);
  });

  it('gives no place in a round to a partition without a remote leader (led here or leaderless)', async () => {
    const leaders = scriptedLeaders();
    const clock = { now: 50_000 };
    const cache = lagCache(leaders.channels, clock, 1);
    // Partition 0 is led by this broker (1): it sorts first (never refreshed) but must not take the one place.
    cache.partition('t', 0);
    cache.partition('t', 1);
    await cache.sampled();
    expect(leaders.sent.map((s) => [s.nodeId, s.body.topics[0]!.partitions[0]!.partitionIndex])).toEqual([[2, 1], [2, 1]]);
  });

  it('reads a large batch in a later round: the partition whose timestamp was read longest ago goes first', async () => {
    const leaders = scriptedLeaders({ batchForFirstOnly: true });
    const clock = { now: 50_000 };
    const cache = lagCache(leaders.channels, clock);
    cache.partition('a', 1);
    cache.partition('b', 1);
    await cache.sampled();
    cache.partition('a', 1)!.timestampAt(3);
    cache.partition('b', 1)!.timestampAt(3);
    await cache.sampled();
    expect(cache.partition('a', 1)!.timestampAt(3)).toBe(1003);
    expect(cache.partition('b', 1)!.timestampAt(3)).toBeNull();
    // a's consumer moved on (a new offset wanted) while b still waits: b, never read, is first and gets its batch.
    clock.now += 100;
    cache.partition('a', 1)!.timestampAt(5);
    await cache.sampled();
    expect(cache.partition('b', 1)!.timestampAt(3)).toBe(1003);
    expect(cache.partition('a', 1)!.timestampAt(5)).toBeNull();
    await cache.sampled();
    expect(cache.partition('a', 1)!.timestampAt(5)).toBe(1005);
  });
});
