/**
 * DescribeQuorum (api key 55), v0-2 (KIP-595, KIP-836): the metadata quorum's leader, epoch, high
 * watermark and each voter's and observer's log end offset and last fetch / caught-up times, what
 * `kafka-metadata-quorum.sh describe --status/--replication` and `tributary cluster info` show.
 *
 * ```
 * DescribeQuorum Request (Version: 0-2) => [topics] (flexible)
 *   topics => topic_name [partitions]   partitions => partition_index
 * DescribeQuorum Response (Version: 0-2) => error_code error_message (v2+) [topics] [nodes] (v2+)
 *   topics => topic_name [partitions]
 *     partitions => partition_index error_code error_message (v2+) leader_id leader_epoch high_watermark
 *       [current_voters] [observers]
 *         replica_state => replica_id replica_directory_id (v2+) log_end_offset
 *           last_fetch_timestamp (v1+) last_caught_up_timestamp (v1+)
 * ```
 * On a broker listener, as in Kafka, the answer is the active controller's (the broker asks it over
 * the CONTROLLER listener; only the leader knows the replicas' progress). Only
 * `__cluster_metadata-0` is described: any other partition answers UNKNOWN_TOPIC_OR_PARTITION (3).
 * `nodes` (v2, the voters' listeners) is left empty.
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import {
  decodeDescribeQuorumRequest,
  encodeDescribeQuorumResponse,
  type DescribeQuorumRequest,
  type DescribeQuorumResponseInit,
  type DescribeQuorumResponsePartitionDataInit,
} from '../protocol/generated/describe-quorum.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { defineApi } from './api-definition.js';

const METADATA_TOPIC = '__cluster_metadata';

export const describeQuorumApi = defineApi<DescribeQuorumRequest, DescribeQuorumResponseInit>({
  apiKey: ApiKey.DescribeQuorum,
  name: 'DescribeQuorum',
  minVersion: 0,
  maxVersion: 2,
  decode: decodeDescribeQuorumRequest,
  encode: encodeDescribeQuorumResponse,
  async handle(request, context) {
    const wanted = request.topics.some((t) => t.topicName === METADATA_TOPIC && t.partitions.some((p) => p.partitionIndex === 0));
    const quorum = wanted ? await context.broker.describeQuorum() : null;
    return {
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      topics: request.topics.map((topic) => ({
        topicName: topic.topicName,
        partitions: topic.partitions.map((p): DescribeQuorumResponsePartitionDataInit => {
          if (quorum === null || topic.topicName !== METADATA_TOPIC || p.partitionIndex !== 0) {
            return { partitionIndex: p.partitionIndex, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, leaderId: -1, leaderEpoch: -1, highWatermark: -1, currentVoters: [], observers: [] };
          }
          return { partitionIndex: 0, ...quorum, currentVoters: [...quorum.currentVoters], observers: [...quorum.observers] };
        }),
      })),
      nodes: [],
    };
  },
  errorResponse: (_version, errorCode) => ({ errorCode, topics: [] }),
});
