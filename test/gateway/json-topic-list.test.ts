/**
 * The /json sessions share one listTopics read (json-topic-list.ts, issue 15): however many calls
 * come while one read is in flight, at most one more read starts after it, and each call is
 * answered by a read that began after the call.
 */
import { describe, expect, it } from 'vitest';
import { type JsonTopicEntry, metadataTopicFetcher, SharedTopicList } from '../../host/gateway/json-topic-list.js';

/** A fetcher whose reads the test completes, each with the topic count at the time it began. */
function heldReads(): { fetch: () => Promise<readonly JsonTopicEntry[]>; began: number; complete: () => void; topics: number } {
  const pending: (() => void)[] = [];
  const state = {
    began: 0,
    topics: 1,
    fetch: () => {
      state.began++;
      const snapshot = Array.from({ length: state.topics }, (_, i) => ({ name: `t${i}`, partitions: 1 }));
      return new Promise<readonly JsonTopicEntry[]>((resolve) => pending.push(() => resolve(snapshot)));
    },
    complete: () => pending.shift()?.(),
  };
  return state;
}

const settle = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

describe('SharedTopicList', () => {
  it('starts one read for the first call and one for all the calls made while it ran', async () => {
    const reads = heldReads();
    const list = new SharedTopicList(reads.fetch);
    const first = list.list();
    reads.topics = 2;
    const during = Array.from({ length: 500 }, () => list.list());
    expect(reads.began).toBe(1);
    reads.complete();
    expect(await first).toHaveLength(1);
    await settle();
    expect(reads.began).toBe(2);
    reads.complete();
    // The calls made during the first read see the topic created before them.
    for (const answer of await Promise.all(during)) expect(answer).toHaveLength(2);
    expect(reads.began).toBe(2);
  });

  it('starts afresh once nothing is in flight, and a failed read does not stop the next', async () => {
    let calls = 0;
    const list = new SharedTopicList(async () => {
      calls++;
      if (calls === 1) throw new Error('broker unreachable');
      return [{ name: 'a', partitions: 3 }];
    });
    await expect(list.list()).rejects.toThrow('unreachable');
    expect(await list.list()).toEqual([{ name: 'a', partitions: 3 }]);
    expect(await list.list()).toEqual([{ name: 'a', partitions: 3 }]);
    expect(calls).toBe(3);
  });

  it('answers from the broker\'s metadata without a request, mapping each array the cache hands out once', async () => {
    let reads = 0;
    let array = [
      { name: '__consumer_offsets', isInternal: true, partitions: { length: 50 } },
      { name: 'a', isInternal: false, partitions: { length: 3 } },
    ];
    const fetch = metadataTopicFetcher(() => {
      reads++;
      return array;
    });
    const first = await fetch();
    expect(first).toEqual([{ name: 'a', partitions: 3 }]);
    expect(await fetch()).toBe(first);
    array = [...array, { name: 'b', isInternal: false, partitions: { length: 1 } }];
    expect(await fetch()).toEqual([{ name: 'a', partitions: 3 }, { name: 'b', partitions: 1 }]);
    expect(reads).toBe(3);
  });
});
