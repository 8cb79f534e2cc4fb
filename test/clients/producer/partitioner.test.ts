import { describe, expect, it } from 'vitest';
import { DefaultPartitioner } from '../../../host/clients/producer/partitioner.js';

const all = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

describe('DefaultPartitioner', () => {
  it('sends equal keys to the same murmur2 partition', () => {
    const partitioner = new DefaultPartitioner();
    const key = new TextEncoder().encode('foobar');
    const first = partitioner.partition({ topic: 't', key, value: null, partitionCount: 10, availablePartitions: all(10) });
    expect(first).toBe(6);
    expect(partitioner.partition({ topic: 't', key, value: null, partitionCount: 10, availablePartitions: [] })).toBe(6);
  });

  it('sticks to one partition for null keys until its batch closes, then moves elsewhere', () => {
    const partitioner = new DefaultPartitioner(() => 0.99);
    const args = { topic: 't', key: null, value: null, partitionCount: 4, availablePartitions: all(4) };
    const sticky = partitioner.partition(args);
    expect(sticky).toBe(3);
    for (let i = 0; i < 10; i++) expect(partitioner.partition(args)).toBe(sticky);
    partitioner.onBatchClosed('t', 2, 4, all(4));
    expect(partitioner.partition(args)).toBe(sticky);
    partitioner.onBatchClosed('t', sticky, 4, all(4));
    const next = partitioner.partition(args);
    expect(next).not.toBe(sticky);
  });

  it('prefers partitions that have a leader for null keys', () => {
    const partitioner = new DefaultPartitioner(() => 0.5);
    for (let i = 0; i < 20; i++) {
      const p = partitioner.partition({ topic: `t${i}`, key: null, value: null, partitionCount: 6, availablePartitions: [4] });
      expect(p).toBe(4);
    }
  });

  it('keeps sticky choices per topic', () => {
    let n = 0;
    const partitioner = new DefaultPartitioner(() => [0.1, 0.9][n++ % 2]!);
    const a = partitioner.partition({ topic: 'a', key: null, value: null, partitionCount: 2, availablePartitions: all(2) });
    const b = partitioner.partition({ topic: 'b', key: null, value: null, partitionCount: 2, availablePartitions: all(2) });
    expect([a, b]).toEqual([0, 1]);
  });
});
