/**
 * The console's topic list (host/console/console-topics-page.ts) over a fake broker state that
 * counts what a page reads: pages end at console.topics.max.page.partitions partitions, walking
 * `nextOffset` visits every kept topic exactly once, offsets come from the replicas this broker
 * leads (ListOffsets only for partitions led elsewhere), no turn reads more than the bound, and an
 * unchanged snapshot is not scanned again; the overview's counts come from the same state. All
 * counts, no clocks.
 */
import { describe, expect, it } from 'vitest';
import type { TopicsPage } from '../../host/console/console-api-types.js';
import {
  type ConsoleTopicState, type LocalReplica, type PartitionBounds, TopicsPager, type TopicsPageLimits, type TopicsPageSource,
} from '../../host/console/console-topics-page.js';

const NODE = 1;

/** Topics in JavaScript string order; partition p of each led by `leaderOf(p)`, ISR short where `underReplicated(p)`. */
function topicsOf(
  sizes: Record<string, number>, leaderOf: (p: number) => number = () => NODE, underReplicated: (p: number) => boolean = () => false,
): ConsoleTopicState[] {
  return Object.keys(sizes).sort().map((name) => ({
    name,
    isInternal: name.startsWith('__'),
    partitions: Array.from({ length: sizes[name]! }, (_, partition) => ({
      partition, leaderId: leaderOf(partition), replicas: [NODE, 2], isr: underReplicated(partition) ? [NODE] : [NODE, 2],
    })),
  }));
}

/** A fake broker state: counts its reads, and the most partitions read within one turn. */
class FakeBroker implements TopicsPageSource {
  snapshot: ConsoleTopicState[];
  snapshotReads = 0;
  replicaReads = 0;
  readsThisTurn = 0;
  mostReadsInATurn = 0;
  turns = 0;
  readonly remoteAsks: { topic: string; partitions: number[] }[] = [];

  constructor(snapshot: ConsoleTopicState[], private readonly local: (topic: string, partition: number) => LocalReplica | undefined) {
    this.snapshot = snapshot;
  }

  topics(): readonly ConsoleTopicState[] {
    this.snapshotReads++;
    return this.snapshot;
  }

  localReplica(topic: string, partition: number): LocalReplica | undefined {
    this.replicaReads++;
    this.readsThisTurn++;
    this.mostReadsInATurn = Math.max(this.mostReadsInATurn, this.readsThisTurn);
    return this.local(topic, partition);
  }

  async remoteBounds(topic: string, partitions: number[]): Promise<PartitionBounds[]> {
    this.remoteAsks.push({ topic, partitions });
    return partitions.map((partition) => ({ partition, low: 100, high: 107 }));
  }

  defer(task: () => void): void {
    this.turns++;
    setImmediate(() => {
      this.readsThisTurn = 0;
      task();
    });
  }
}

/** Every partition local and led here: log start 10, high watermark 10 + partition, 1000 bytes. */
const ledHere = (): LocalReplica => ({ isLeader: true, log: { size: 1000, logStartOffset: 10, highWatermark: 13 } });

const limits = (maxPagePartitions: number, pageSize = 50): TopicsPageLimits => ({ pageSize, maxPageSize: 200, maxPagePartitions });

function query(params: Record<string, string | number | boolean> = {}): URLSearchParams {
  return new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]));
}

/** Follows nextOffset from 0: every page, in order. */
async function walk(pager: TopicsPager, params: Record<string, string | number | boolean> = {}): Promise<TopicsPage[]> {
  const pages: TopicsPage[] = [];
  let offset: number | null = 0;
  while (offset !== null) {
    const page = await pager.page(query({ ...params, offset }));
    pages.push(page);
    expect(pages.length).toBeLessThan(1000);
    offset = page.nextOffset;
  }
  return pages;
}

/** A deterministic spread of topic sizes (1..40 partitions), mulberry32-free: a linear congruence. */
function spreadSizes(count: number): Record<string, number> {
  const sizes: Record<string, number> = { '__consumer_offsets': 50 };
  let x = 7;
  for (let i = 0; i < count; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    sizes[`${i % 3 === 0 ? 'Orders' : 'events'}-${i}`] = 1 + (x % 40);
  }
  return sizes;
}

describe('The console\'s topic list', () => {
  it('ends a page before the topic that would take it over console.topics.max.page.partitions, unless it is the page\'s only topic', async () => {
    const broker = new FakeBroker(topicsOf({ a: 3, b: 4, c: 2, d: 6, e: 1, f: 10, g: 2 }), ledHere);
    const pages = await walk(new TopicsPager(broker, limits(8)));
    expect(pages.map((p) => p.topics.map((t) => `${t.name}${t.partitions}`))).toEqual([['a3', 'b4'], ['c2', 'd6'], ['e1'], ['f10'], ['g2']]);
    expect(pages.map((p) => [p.offset, p.nextOffset])).toEqual([[0, 2], [2, 4], [4, 5], [5, 6], [6, null]]);
    expect(pages.every((p) => p.total === 7 && p.limit === 50)).toBe(true);
  });

  it('ends a page at `limit` topics when their partitions stay under the bound', async () => {
    const broker = new FakeBroker(topicsOf({ a: 1, b: 1, c: 1, d: 1, e: 1 }), ledHere);
    const pager = new TopicsPager(broker, limits(5000, 2));
    expect((await walk(pager)).map((p) => p.topics.map((t) => t.name))).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect((await pager.page(query({ limit: 4 }))).topics.map((t) => t.name)).toEqual(['a', 'b', 'c', 'd']);
    expect(await pager.page(query({ offset: 5 }))).toMatchObject({ total: 5, offset: 5, nextOffset: null, topics: [] });
  });

  it.each([
    ['no filter', {}],
    ['internal topics too', { internal: true }],
    ['a search, case ignored', { search: 'ORDERS' }],
    ['a search and internal topics', { search: 's-1', internal: true }],
  ])('walks every topic the filter keeps exactly once, in name order, with %s', async (_, params: Record<string, string | boolean>) => {
    const snapshot = topicsOf(spreadSizes(300));
    const broker = new FakeBroker(snapshot, ledHere);
    const pages = await walk(new TopicsPager(broker, limits(60, 25)), params);
    const search = String(params['search'] ?? '').toLowerCase();
    const expected = snapshot.filter((t) => (params['internal'] === true || !t.isInternal) && t.name.toLowerCase().includes(search)).map((t) => t.name);
    expect(expected.length).toBeGreaterThan(10);
    expect(pages.flatMap((p) => p.topics.map((t) => t.name))).toEqual(expected);
    for (const page of pages) {
      expect(page.total).toBe(expected.length);
      expect(page.topics.length).toBeLessThanOrEqual(25);
      const partitions = page.topics.reduce((sum, t) => sum + t.partitions, 0);
      expect(partitions <= 60 || page.topics.length === 1).toBe(true);
    }
    expect(pages.length).toBeGreaterThan(Math.ceil(expected.length / 25)); // the partition bound ended some pages early
  });

  it('reads offsets and sizes from the replicas this broker leads, asks the leaders only for the others, and reads nothing beyond the page', async () => {
    // Partition p: led here when p % 3 == 0, led by broker 2 (a follower here) when p % 3 == 1, by broker 3 (not held here) when p % 3 == 2; offline: p == 4.
    const leaderOf = (p: number) => (p === 4 ? -1 : [NODE, 2, 3][p % 3]!);
    const local = (_: string, p: number): LocalReplica | undefined => (p % 3 === 2 ? undefined
      : { isLeader: leaderOf(p) === NODE, log: { size: 10 * p, logStartOffset: p, highWatermark: 3 * p + 1 } });
    const broker = new FakeBroker(topicsOf({ big: 9, other: 2, zzz: 5 }, leaderOf, (p) => p === 1), local);
    const page = await new TopicsPager(broker, limits(5000, 1)).page(query());
    expect(page.topics).toEqual([{
      name: 'big', internal: false, partitions: 9, replicationFactor: 2, underReplicatedPartitions: 1, offlinePartitions: 1,
      // local leaders 0, 3, 6: (1-0) + (10-3) + (19-6) = 21; led elsewhere 1, 2, 5, 7, 8 (4 has no leader): 7 each = 35
      messages: 21 + 35,
      // local replicas 0, 1, 3, 4, 6, 7
      sizeBytes: 10 * (0 + 1 + 3 + 4 + 6 + 7),
    }]);
    expect(broker.remoteAsks).toEqual([{ topic: 'big', partitions: [1, 2, 5, 7, 8] }]);
    expect(broker.replicaReads).toBe(9);
    expect(broker.snapshotReads).toBe(1);
  });

  it('counts no messages for partitions whose leaders do not answer, and still answers the page', async () => {
    const broker = new FakeBroker(topicsOf({ t: 4 }, () => 2), () => undefined);
    broker.remoteBounds = async () => { throw new Error('NOT_LEADER_OR_FOLLOWER'); };
    expect((await new TopicsPager(broker, limits(100)).page(query())).topics).toEqual([expect.objectContaining({ name: 't', messages: 0, sizeBytes: null })]);
  });

  it('reads at most console.topics.max.page.partitions partitions per event-loop turn, also for one topic over the bound', async () => {
    const broker = new FakeBroker(topicsOf({ huge: 25, small: 3 }), ledHere);
    const page = await new TopicsPager(broker, limits(8)).page(query());
    expect(page.topics.map((t) => [t.name, t.messages])).toEqual([['huge', 25 * 3]]);
    expect(page.nextOffset).toBe(1);
    expect(broker.replicaReads).toBe(25);
    expect(broker.mostReadsInATurn).toBe(8);
    expect(broker.turns).toBe(3);
  });

  it('scans the names in slices of the bound, and not again for the same snapshot and filter', async () => {
    const names = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`${i % 2 === 0 ? 'orders' : 'events'}-${i}`, 1]));
    const broker = new FakeBroker(topicsOf(names(100)), ledHere);
    const pager = new TopicsPager(broker, limits(20, 10));
    const first = await pager.page(query({ search: 'ORD' }));
    expect(first).toMatchObject({ total: 50, nextOffset: 10 });
    expect(broker.turns).toBe(4); // 5 slices of 20 names, a turn between two; the page's 10 partitions fit one slice
    broker.turns = 0;
    expect(await pager.page(query({ search: 'ord', offset: 10 }))).toMatchObject({ total: 50, offset: 10, nextOffset: 20 });
    expect(broker.turns).toBe(0);
    broker.snapshot = topicsOf({ ...names(100), 'orders-new': 1 }); // a change: the cache hands out a new array
    expect(await pager.page(query({ search: 'ord' }))).toMatchObject({ total: 51 });
    expect(broker.turns).toBe(5);
  });

  it('counts the overview\'s topics and partitions (internal ones left out) in slices of the bound, once per snapshot', async () => {
    const leaderOf = (p: number) => (p === 2 ? -1 : NODE);
    const broker = new FakeBroker(topicsOf({ '__consumer_offsets': 50, a: 7, b: 7, c: 7 }, leaderOf, (p) => p < 2), ledHere);
    const pager = new TopicsPager(broker, limits(5));
    expect(await pager.totals()).toEqual({ topics: 3, partitions: 21, underReplicatedPartitions: 6, offlinePartitions: 3 });
    expect(broker.turns).toBe(4); // 21 partitions, 5 a turn
    expect(broker.replicaReads).toBe(0);
    await pager.totals();
    expect(broker.turns).toBe(4);
    broker.snapshot = topicsOf({ a: 7 }, leaderOf);
    expect(await pager.totals()).toEqual({ topics: 1, partitions: 7, underReplicatedPartitions: 0, offlinePartitions: 1 });
  });
});
