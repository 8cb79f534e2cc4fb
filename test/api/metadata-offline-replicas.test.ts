/**
 * Metadata per partition in a cluster with a broker down (Kafka's KRaftMetadataCache): replicas on
 * fenced or unregistered brokers are offline_replicas, a partition with no live in-sync replica
 * answers leader -1 with LEADER_NOT_AVAILABLE (5), and only live brokers are listed.
 */
import { describe, expect, it } from 'vitest';
import type { ApiRequestContext } from '../../host/api/api-definition.js';
import type { TopicState } from '../../host/api/cluster-metadata.js';
import { metadataApi } from '../../host/api/metadata-api.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import type { MetadataResponseInit } from '../../host/protocol/generated/metadata.js';

const topic: TopicState = {
  name: 't', topicId: '0'.repeat(32), isInternal: false, configs: new Map(),
  partitions: [
    { partition: 0, leaderId: 1, leaderEpoch: 3, partitionEpoch: 5, replicas: [2, 1, 3], isr: [1, 3] },
    { partition: 1, leaderId: -1, leaderEpoch: 4, partitionEpoch: 6, replicas: [2, 4], isr: [2] },
  ],
};

function context(apiVersion: number): ApiRequestContext {
  const broker = {
    config: { autoCreateTopicsEnable: false },
    metadata: { clusterId: 'c', controllerId: 1, topics: () => [topic], topic: (name: string) => (name === 't' ? topic : undefined) },
    // Broker 2 is fenced and 4 unregistered: only 1 and 3 are alive.
    brokers: () => [{ nodeId: 1, host: 'h', port: 1, rack: null }, { nodeId: 3, host: 'h', port: 3, rack: null }],
  };
  return { apiVersion, listenerName: 'PLAINTEXT', broker } as unknown as ApiRequestContext;
}

describe('Metadata with brokers down', () => {
  it('lists replicas on fenced or unregistered brokers as offline, and a leaderless partition as LEADER_NOT_AVAILABLE with leader -1', async () => {
    const response = await metadataApi.handle({ topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false }, context(8)) as MetadataResponseInit;
    expect(response.brokers.map((b) => b.nodeId)).toEqual([1, 3]);
    const [p0, p1] = response.topics[0]!.partitions!;
    expect(p0).toMatchObject({ errorCode: ErrorCode.NONE, leaderId: 1, replicaNodes: [2, 1, 3], isrNodes: [1, 3], offlineReplicas: [2] });
    expect(p1).toMatchObject({ errorCode: ErrorCode.LEADER_NOT_AVAILABLE, leaderId: -1, leaderEpoch: 4, replicaNodes: [2, 4], isrNodes: [2], offlineReplicas: [2, 4] });
    expect(response.topics[0]!.errorCode).toBe(ErrorCode.NONE);
  });
});
