/**
 * The failed form of each QuorumController operation's answer (a {@link FailedResponse}): what
 * an operation answers when its batch is not appended or not committed (NOT_CONTROLLER 41,
 * KAFKA_STORAGE_ERROR 56, a refusal of the metadata log). Per-item answers fail item by item
 * (controller-result.ts); AlterPartition, ElectLeaders and AlterPartitionReassignments fail as a
 * whole, with the top-level error code and nothing per item.
 */
import type { AlterPartitionReassignmentsResponseInit } from '../protocol/generated/alter-partition-reassignments.js';
import type { AlterPartitionResponseInit } from '../protocol/generated/alter-partition.js';
import type { ElectLeadersResponseInit } from '../protocol/generated/elect-leaders.js';
import type { BrokerHeartbeatReply, RegisterBrokerResult } from './cluster-control-manager.js';
import { type ApiError, emptyRecord, failedResult, failedResults } from './controller-result.js';
import type { ProducerIdBlockResult } from './producer-id-control-manager.js';
import type { CreateTopicResult, DeleteTopicResult } from './replication-control-manager.js';
import { ZERO_TOPIC_ID } from './topic-id.js';

/** The failed form of a CreateTopics item: no id, no partitions, no configs. */
export const failedCreateTopics = failedResults<CreateTopicResult>((r, error) => ({
  ...r, ...error, topicId: ZERO_TOPIC_ID, numPartitions: -1, replicationFactor: -1, configs: emptyRecord(),
}));
export const failedDeleteTopics = failedResults<DeleteTopicResult>((r, error) => ({ ...r, ...error, topicId: ZERO_TOPIC_ID }));
export const failedRegistration = failedResult<RegisterBrokerResult>((r, error) => ({ ...r, ...error, brokerEpoch: -1 }));
export const failedProducerIds = failedResult<ProducerIdBlockResult>((r, error) => ({ ...r, ...error, producerIdStart: -1, producerIdLen: 0 }));
export const failedPlain = failedResult<ApiError>((r, error) => ({ ...r, ...error }));
export const failedHeartbeat = failedResult<BrokerHeartbeatReply>((r, error) => ({ ...r, ...error, isCaughtUp: false, isFenced: true, shouldShutDown: false }));

export const failedAlterPartition = (response: AlterPartitionResponseInit, error: ApiError): AlterPartitionResponseInit =>
  ({ ...response, errorCode: error.errorCode, topics: [] });
export const failedElectLeaders = (response: ElectLeadersResponseInit, error: ApiError): ElectLeadersResponseInit =>
  ({ ...response, errorCode: error.errorCode, replicaElectionResults: [] });
export const failedAlterPartitionReassignments = (response: AlterPartitionReassignmentsResponseInit, error: ApiError): AlterPartitionReassignmentsResponseInit =>
  ({ ...response, errorCode: error.errorCode, errorMessage: error.errorMessage, responses: [] });
