/**
 * DescribeTopicPartitions (KIP-966) against a fake cluster view: name order from the cursor,
 * partition paging with next_cursor, unknown and illegal names, offline replicas and leader -1
 * for a leader that is not alive, the cursor checks.
 */
import { describe, expect, it } from 'vitest';
import type { ApiRequestContext } from '../../host/api/api-definition.js';
import type { TopicState } from '../../host/api/cluster-metadata.js';
import { describeTopicPartitionsApi } from '../../host/api/describe-topic-partitions-api.js';
import type { DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponseInit } from '../../host/protocol/generated/describe-topic-partitions.js';

const topic = (name: string, partitions: number, leaderOf: (p: number) => number = () => 1): TopicState => ({
  name, topicId: name.padEnd(32, '0').slice(0, 32).replace(/[^0-9a-f]/g, 'a'), isInternal: false, configs: new Map(),
  partitions: Array.from({ length: partitions }, (_, p) => ({ partition: p, leaderId: leaderOf(p), leaderEpoch: 2, partitionEpoch: 3, replicas: [1, 2], isr: [1, 2] })),
});
const topics = [topic('b', 3), topic('a', 2, (p) => (p === 1 ? 2 : 1))];

function handle(request: Partial<DescribeTopicPartitionsRequest>): DescribeTopicPartitionsResponseInit {
  const broker = {
    // ClusterMetadata.topics() is in name order (the handler pages through it by binary search).
    metadata: { topics: () => [...topics].sort((x, y) => (x.name < y.name ? -1 : 1)), topic: (name: string) => topics.find((t) => t.name === name) },
    brokers: () => [{ nodeId: 1, host: 'h', port: 1, rack: null }], // broker 2 is fenced
  };
  const context = { apiVersion: 0, listenerName: 'PLAINTEXT', broker } as unknown as ApiRequestContext;
  return describeTopicPartitionsApi.handle({ topics: [], responsePartitionLimit: 2000, cursor: null, ...request }, context) as DescribeTopicPartitionsResponseInit;
}

describe('DescribeTopicPartitions', () => {
  it('answers every topic in name order with offline replicas and leader -1 where the leader is not alive', () => {
    const response = handle({});
    expect(response.topics.map((t) => t.name)).toEqual(['a', 'b']);
    expect(response.topics[0]!.partitions).toEqual([
      { errorCode: 0, partitionIndex: 0, leaderId: 1, leaderEpoch: 2, replicaNodes: [1, 2], isrNodes: [1, 2], eligibleLeaderReplicas: [], lastKnownElr: [], offlineReplicas: [2] },
      { errorCode: 0, partitionIndex: 1, leaderId: -1, leaderEpoch: 2, replicaNodes: [1, 2], isrNodes: [1, 2], eligibleLeaderReplicas: [], lastKnownElr: [], offlineReplicas: [2] },
    ]);
    expect(response.nextCursor).toBeNull();
  });

  it('pages by response_partition_limit with next_cursor, and resumes at the cursor', () => {
    const first = handle({ responsePartitionLimit: 3 });
    expect(first.topics.map((t) => [t.name, t.partitions.map((p) => p.partitionIndex)])).toEqual([['a', [0, 1]], ['b', [0]]]);
    expect(first.nextCursor).toEqual({ topicName: 'b', partitionIndex: 1 });
    const second = handle({ responsePartitionLimit: 3, cursor: first.nextCursor! });
    expect(second.topics.map((t) => [t.name, t.partitions.map((p) => p.partitionIndex)])).toEqual([['b', [1, 2]]]);
    expect(second.nextCursor).toBeNull();
    // A limit that ends exactly at a topic's end points the cursor at the next topic.
    expect(handle({ responsePartitionLimit: 2 }).nextCursor).toEqual({ topicName: 'b', partitionIndex: 0 });
  });

  it('answers named unknown topics UNKNOWN_TOPIC_OR_PARTITION (3) or INVALID_TOPIC_EXCEPTION (17), and a bad cursor INVALID_REQUEST (42)', () => {
    const response = handle({ topics: [{ name: 'b' }, { name: 'nope' }, { name: 'bad name!' }] });
    expect(response.topics.map((t) => [t.name, t.errorCode])).toEqual([['b', 0], ['bad name!', 17], ['nope', 3]]);
    const missing = handle({ topics: [{ name: 'b' }], cursor: { topicName: 'a', partitionIndex: 0 } });
    expect(missing.topics.map((t) => t.errorCode)).toEqual([42]);
    const negative = handle({ topics: [{ name: 'a' }, { name: 'b' }], cursor: { topicName: 'a', partitionIndex: -1 } });
    expect(negative.topics.map((t) => [t.name, t.errorCode])).toEqual([['a', 42], ['b', 42]]);
  });
});
