/**
 * ElectLeaders (api key 43), v0-2 (KIP-183, KIP-460): an administrator asks for leader elections,
 * what `kafka-leader-election.sh` and the admin clients' electLeaders send. Any broker answers:
 * the elections are the controller's, forwarded to the active one when this node's is not.
 *
 * ```
 * ElectLeaders Request (Version: 0-2) => election_type (v1+) [topic_partitions] timeout_ms
 *   topic_partitions => topic [partitions]         (null: every partition)
 * ElectLeaders Response (Version: 0-2) => throttle_time_ms error_code (v1+) [replica_election_results]
 *   replica_election_results => topic [partition_result]
 *     partition_result => partition_id error_code error_message
 * ```
 * Version notes that matter: v0 elects the preferred replica only and has no top-level error (a
 * request-wide error is given to every partition); v1 adds election_type (0 PREFERRED, 1 UNCLEAN)
 * and the top-level error_code; v2 is flexible. Per partition: ELECTION_NOT_NEEDED (84),
 * PREFERRED_LEADER_NOT_AVAILABLE (80), ELIGIBLE_LEADERS_NOT_AVAILABLE (83),
 * UNKNOWN_TOPIC_OR_PARTITION (3); with a null list the partitions that needed nothing are left
 * out. An election is answered once committed; brokers learn the new leader from the metadata log.
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import {
  decodeElectLeadersRequest,
  type ElectLeadersRequest,
  type ElectLeadersResponseInit,
  encodeElectLeadersResponse,
} from '../protocol/generated/elect-leaders.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { defineApi } from './api-definition.js';

export const electLeadersApi = defineApi<ElectLeadersRequest, ElectLeadersResponseInit>({
  apiKey: ApiKey.ElectLeaders,
  name: 'ElectLeaders',
  minVersion: 0,
  maxVersion: 2,
  decode: decodeElectLeadersRequest,
  encode: encodeElectLeadersResponse,
  async handle(request, context) {
    const metadata = context.broker.metadata;
    const electionType = context.apiVersion >= 1 ? request.electionType : 0;
    const answer = metadata.electLeaders === undefined
      ? { errorCode: ErrorCode.NOT_CONTROLLER, results: [] }
      : await metadata.electLeaders(electionType, request.topicPartitions);
    if (answer.errorCode !== ErrorCode.NONE && context.apiVersion === 0) {
      // v0 has no top-level error: every requested partition carries it.
      return {
        throttleTimeMs: 0,
        replicaElectionResults: (request.topicPartitions ?? []).map((t) => ({
          topic: t.topic, partitionResult: t.partitions.map((partitionId) => ({ partitionId, errorCode: answer.errorCode, errorMessage: null })),
        })),
      };
    }
    return {
      throttleTimeMs: 0,
      errorCode: answer.errorCode,
      replicaElectionResults: answer.results.map((r) => ({ topic: r.topic, partitionResult: r.partitions.map((p) => ({ ...p })) })),
    };
  },
  errorResponse: (version, errorCode) => (version >= 1 ? { throttleTimeMs: 0, errorCode, replicaElectionResults: [] } : null),
});
