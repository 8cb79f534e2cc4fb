/**
 * TxnOffsetCommit (api key 28), v0-3: a transactional producer commits a consumer group's
 * offsets inside its transaction (sendOffsetsToTransaction, after AddOffsetsToTxn). The group
 * coordinator writes them to `__consumer_offsets` as the producer's transactional batch; they
 * stay invisible until the transaction's COMMIT marker reaches that partition (an ABORT drops them).
 *
 * ```
 * TxnOffsetCommit Request (Version: 0-2) => transactional_id group_id producer_id producer_epoch [topics]
 * TxnOffsetCommit Request (Version: 3)   => ... generation_id member_id group_instance_id [topics] (flexible)
 *   topics => name [partitions]
 *     partitions => partition_index committed_offset committed_leader_epoch (v2+) committed_metadata
 * TxnOffsetCommit Response (Version: 0-3) => throttle_time_ms [topics]
 *   topics => name [partitions]  (partitions => partition_index error_code)
 * ```
 * Version notes that matter: librdkafka sends v3 (KIP-447: the consumer's generation and member
 * id fence zombie members), kafkajs v1. Errors are per partition: UNKNOWN_TOPIC_OR_PARTITION,
 * NOT_COORDINATOR (16), COORDINATOR_NOT_AVAILABLE (15), UNKNOWN_MEMBER_ID (25), ILLEGAL_GENERATION (22).
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import {
  decodeTxnOffsetCommitRequest,
  encodeTxnOffsetCommitResponse,
  type TxnOffsetCommitRequest,
  type TxnOffsetCommitResponseInit,
} from '../protocol/generated/txn-offset-commit.js';
import { defineApi } from './api-definition.js';
import { withOffsetsTopic } from './group-request-context.js';

export const txnOffsetCommitApi = defineApi<TxnOffsetCommitRequest, TxnOffsetCommitResponseInit>({
  apiKey: ApiKey.TxnOffsetCommit,
  name: 'TxnOffsetCommit',
  minVersion: 0,
  maxVersion: 3,
  decode: decodeTxnOffsetCommitRequest,
  encode: encodeTxnOffsetCommitResponse,
  handle: (request, context) => withOffsetsTopic(context, (coordinator, group) => coordinator.txnOffsetCommit(request, group)),
});
