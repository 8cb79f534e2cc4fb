/**
 * Partition reassignment as the Admin asks for it (KIP-455, what `kafka-reassign-partitions.sh`
 * sends): AlterPartitionReassignments (api key 45) to move partitions to new replicas or cancel a
 * move, ListPartitionReassignments (api key 46) for the moves in flight. Both go to the
 * controller (any broker forwards them to the active one).
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { KafkaError } from './errors.js';
import type { Connection } from './transport/connection.js';

/** Runs a request against the controller, retrying NOT_CONTROLLER (the Admin's withController). */
export type WithController = <T>(what: string, body: (connection: Connection) => Promise<T>) => Promise<T>;

/** One partition to move: the target replicas (preferred leader first), or null to cancel its move. */
export interface PartitionReassignment {
  topic: string;
  partition: number;
  replicas: number[] | null;
}

/** A move in flight: `replicas` is the union of old and new while moving. */
export interface OngoingReassignment {
  topic: string;
  partition: number;
  replicas: number[];
  addingReplicas: number[];
  removingReplicas: number[];
}

/**
 * AlterPartitionReassignments v0: one result per partition, in request order: 0, or
 * UNKNOWN_TOPIC_OR_PARTITION (3), INVALID_REPLICA_ASSIGNMENT (39), NO_REASSIGNMENT_IN_PROGRESS (85).
 * @throws KafkaError for a request-wide error
 */
export async function alterPartitionReassignments(withController: WithController, reassignments: readonly PartitionReassignment[], timeoutMs: number):
  Promise<{ topic: string; partition: number; errorCode: number; errorMessage: string | null }[]> {
  const byTopic = new Map<string, { partitionIndex: number; replicas: number[] | null }[]>();
  for (const r of reassignments) {
    const list = byTopic.get(r.topic) ?? [];
    list.push({ partitionIndex: r.partition, replicas: r.replicas === null ? null : [...r.replicas] });
    byTopic.set(r.topic, list);
  }
  const response = await withController('AlterPartitionReassignments', async (connection) => {
    const r = await connection.request(ApiKey.AlterPartitionReassignments, {
      timeoutMs, topics: [...byTopic].map(([name, partitions]) => ({ name, partitions })),
    }, { timeoutMs: timeoutMs * 2 });
    if (r.errorCode !== ErrorCode.NONE) throw new KafkaError(r.errorCode, `AlterPartitionReassignments: ${r.errorMessage ?? ''}`);
    return r;
  });
  return response.responses.flatMap((t) => t.partitions.map((p) => ({
    topic: t.name, partition: p.partitionIndex, errorCode: p.errorCode, errorMessage: p.errorMessage,
  })));
}

/**
 * ListPartitionReassignments v0: the moves in flight of every topic (`topics` absent) or of the
 * partitions named, by topic then partition. @throws KafkaError for a request-wide error
 */
export async function listPartitionReassignments(
  withController: WithController, topics: readonly { topic: string; partitions: number[] }[] | null, timeoutMs: number,
): Promise<OngoingReassignment[]> {
  const response = await withController('ListPartitionReassignments', async (connection) => {
    const r = await connection.request(ApiKey.ListPartitionReassignments, {
      timeoutMs, topics: topics === null ? null : topics.map((t) => ({ name: t.topic, partitionIndexes: [...t.partitions] })),
    }, { timeoutMs: timeoutMs * 2 });
    if (r.errorCode !== ErrorCode.NONE) throw new KafkaError(r.errorCode, `ListPartitionReassignments: ${r.errorMessage ?? ''}`);
    return r;
  });
  return response.topics
    .flatMap((t) => t.partitions.map((p) => ({
      topic: t.name, partition: p.partitionIndex, replicas: p.replicas, addingReplicas: p.addingReplicas, removingReplicas: p.removingReplicas,
    })))
    .sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
}
