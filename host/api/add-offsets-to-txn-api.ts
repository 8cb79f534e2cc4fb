/**
 * AddOffsetsToTxn (api key 25), v0-2: a transactional producer about to commit a consumer group's
 * offsets in its transaction (sendOffsetsToTransaction) adds the group's `__consumer_offsets`
 * partition to the transaction, so the transaction's markers reach it.
 *
 * ```
 * AddOffsetsToTxn Request (Version: 0-2) => transactional_id producer_id producer_epoch group_id
 * AddOffsetsToTxn Response (Version: 0-2) => throttle_time_ms error_code
 * ```
 * Version notes that matter: librdkafka only sends v0 (MinVersion 0 is required); v2+ answer
 * PRODUCER_FENCED (90), older versions INVALID_PRODUCER_EPOCH (47). Other errors are
 * AddPartitionsToTxn's (the coordinator adds partition abs(hash(group_id)) % offsets.topic.num.partitions).
 */
import { OFFSETS_TOPIC_NAME } from '../coordinator/offsets-topic.js';
import {
  type AddOffsetsToTxnRequest,
  type AddOffsetsToTxnResponseInit,
  decodeAddOffsetsToTxnRequest,
  encodeAddOffsetsToTxnResponse,
} from '../protocol/generated/add-offsets-to-txn.js';
import { ApiKey } from '../protocol/generated/api-keys.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { defineApi } from './api-definition.js';
import { groupCoordinatorOf, transactionCoordinatorOf } from './broker-services.js';
import { legacyProducerFenced } from './transaction-errors.js';

export const addOffsetsToTxnApi = defineApi<AddOffsetsToTxnRequest, AddOffsetsToTxnResponseInit>({
  apiKey: ApiKey.AddOffsetsToTxn,
  name: 'AddOffsetsToTxn',
  minVersion: 0,
  maxVersion: 2,
  decode: decodeAddOffsetsToTxnRequest,
  encode: encodeAddOffsetsToTxnResponse,
  async handle(request, context) {
    const { broker } = context;
    const coordinator = await transactionCoordinatorOf(broker);
    if (coordinator === undefined) return { throttleTimeMs: 0, errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE };
    if (broker.metadata.topic(OFFSETS_TOPIC_NAME) === undefined) await broker.ensureOffsetsTopic();
    const partition = (await groupCoordinatorOf(broker)).partitionFor(request.groupId);
    const errorCode = await coordinator.addPartitionsToTransaction(request.transactionalId,
      { producerId: request.producerId, producerEpoch: request.producerEpoch }, [{ topic: OFFSETS_TOPIC_NAME, partition }]);
    return { throttleTimeMs: 0, errorCode: legacyProducerFenced(errorCode, context.apiVersion, 2) };
  },
  errorResponse: (_version, errorCode) => ({ throttleTimeMs: 0, errorCode }),
});
