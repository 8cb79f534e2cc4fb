/**
 * LazyRemotePartitionLag (host/server/lazy-remote-partition-lag.ts): the remote lag reads load with
 * the first sample that asks for a partition led elsewhere, once, and get that sample's questions
 * and its end, so the leaders are asked in the same sample; a closed one loads nothing more and
 * closes what a load under way brings; a failed load is reported once and leaves remote partitions unknown.
 */
import { describe, expect, it } from 'vitest';
import type { LagPartitionSource } from '../../host/metrics/consumer-lag-monitor.js';
import { LazyRemotePartitionLag, type OwnedRemotePartitionLag } from '../../host/server/lazy-remote-partition-lag.js';
import type { RemotePartitionLag } from '../../host/server/remote-partition-lag.js';

/** A scripted RemotePartitionLag recording what it is asked, answering `known` partitions. */
function scripted(known: ReadonlyMap<string, LagPartitionSource>) {
  const calls: string[] = [];
  let closed = 0;
  const lag = {
    partition(topic: string, partition: number) {
      calls.push(`partition ${topic}-${partition}`);
      return known.get(`${topic}-${partition}`) ?? null;
    },
    sampled() {
      calls.push('sampled');
      return Promise.resolve();
    },
  } as unknown as RemotePartitionLag;
  const owned: OwnedRemotePartitionLag = { lag, close: () => { closed++; } };
  return { owned, calls, closedCount: () => closed };
}

const source: LagPartitionSource = { lastStableOffset: 10, logStartOffset: 0, timestampAt: () => null };

describe('LazyRemotePartitionLag', () => {
  it('loads nothing while no sample asks for a remote partition', async () => {
    let loads = 0;
    const lazy = new LazyRemotePartitionLag(() => { loads++; return Promise.reject(new Error('unexpected')); }, () => {});
    await lazy.sampled();
    await lazy.sampled();
    expect(loads).toBe(0);
  });

  it('loads once with the first sample that asks, hands it that sample\'s questions, then delegates', async () => {
    const remote = scripted(new Map([['orders-1', source]]));
    let loads = 0;
    const lazy = new LazyRemotePartitionLag(() => { loads++; return Promise.resolve(remote.owned); }, () => {});
    expect(lazy.partition('orders', 0)).toBeNull();
    expect(lazy.partition('orders', 1)).toBeNull();
    const first = lazy.sampled();
    const concurrent = lazy.sampled();
    await Promise.all([first, concurrent]);
    expect(loads).toBe(1);
    expect(remote.calls).toEqual(['partition orders-0', 'partition orders-1', 'sampled']);
    expect(lazy.partition('orders', 1)).toBe(source);
    await lazy.sampled();
    expect(remote.calls.slice(3)).toEqual(['partition orders-1', 'sampled']);
    lazy.close();
    expect(remote.closedCount()).toBe(1);
  });

  it('closes what a load under way brings when closed meanwhile, and asks it nothing', async () => {
    const remote = scripted(new Map());
    let finishLoad!: (owned: OwnedRemotePartitionLag) => void;
    const lazy = new LazyRemotePartitionLag(() => new Promise((resolve) => { finishLoad = resolve; }), () => {});
    lazy.partition('orders', 0);
    const sample = lazy.sampled();
    lazy.close();
    finishLoad(remote.owned);
    await sample;
    expect(remote.closedCount()).toBe(1);
    expect(remote.calls).toEqual([]);
    expect(lazy.partition('orders', 0)).toBeNull();
  });

  it('reports a failed load once and leaves remote partitions unknown', async () => {
    const errors: unknown[] = [];
    let loads = 0;
    const lazy = new LazyRemotePartitionLag(() => { loads++; return Promise.reject(new Error('no module')); }, (error) => errors.push(error));
    lazy.partition('orders', 0);
    await lazy.sampled();
    lazy.partition('orders', 0);
    await lazy.sampled();
    expect(loads).toBe(1);
    expect(errors).toHaveLength(1);
    expect(lazy.partition('orders', 0)).toBeNull();
  });
});
