/**
 * describeProducers (host/clients/admin-transactions.ts) against a scripted cluster: one
 * DescribeProducers per leader for all its partitions, answers in the order asked, and the errors
 * of a partition the metadata does not list or that has no leader.
 */
import { describe, expect, it } from 'vitest';
import { describeProducers } from '../../host/clients/admin-transactions.js';
import type { Cluster } from '../../host/clients/cluster.js';
import { KafkaError } from '../../host/clients/errors.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';

/** Partition p of the topic (4 partitions) is led by broker p % 2 + 1, partition 3 by nobody. */
function scriptedCluster(): { cluster: Cluster; asked: { nodeId: number; partitionIndexes: number[] }[] } {
  const asked: { nodeId: number; partitionIndexes: number[] }[] = [];
  const cluster = {
    refreshMetadata: async () => undefined,
    partitionCount: () => 4,
    leaderFor: (_topic: string, partition: number) => (partition === 3 ? -1 : partition % 2 + 1),
    connectionTo: async (nodeId: number) => ({
      request: async (_apiKey: number, body: { topics: { name: string; partitionIndexes: number[] }[] }) => {
        const partitionIndexes = body.topics[0]!.partitionIndexes;
        asked.push({ nodeId, partitionIndexes });
        return { topics: [{ name: body.topics[0]!.name, partitions: partitionIndexes.map((partitionIndex) => ({
          partitionIndex, errorCode: 0, errorMessage: null,
          activeProducers: [{ producerId: 100 + partitionIndex, producerEpoch: 0, lastSequence: 4, lastTimestamp: 7, coordinatorEpoch: -1, currentTxnStartOffset: -1 }],
        })) }] };
      },
    }),
  } as unknown as Cluster;
  return { cluster, asked };
}

describe('describeProducers', () => {
  it('asks each leader once for all its partitions and answers in the order asked', async () => {
    const { cluster, asked } = scriptedCluster();
    const described = await describeProducers(cluster, 't', [2, 1, 0]);
    expect(described.map((d) => [d.partition, d.leaderId, d.producers[0]!.producerId])).toEqual([[2, 1, 102], [1, 2, 101], [0, 1, 100]]);
    expect(asked.sort((a, b) => a.nodeId - b.nodeId)).toEqual([{ nodeId: 1, partitionIndexes: [2, 0] }, { nodeId: 2, partitionIndexes: [1] }]);
  });

  it('refuses a partition the metadata does not list (UNKNOWN_TOPIC_OR_PARTITION) and one without a leader (LEADER_NOT_AVAILABLE)', async () => {
    const { cluster } = scriptedCluster();
    await expect(describeProducers(cluster, 't', [0, 7])).rejects.toMatchObject({ errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION });
    await expect(describeProducers(cluster, 't', [3])).rejects.toBeInstanceOf(KafkaError);
    await expect(describeProducers(cluster, 't', [3])).rejects.toMatchObject({ errorCode: ErrorCode.LEADER_NOT_AVAILABLE });
  });
});
