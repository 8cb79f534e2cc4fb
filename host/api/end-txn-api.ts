/**
 * EndTxn (api key 26), v0-2: a transactional producer commits or aborts its transaction. The
 * answer comes once the coordinator has written PrepareCommit/PrepareAbort; the markers follow,
 * and until they are written the next AddPartitionsToTxn answers CONCURRENT_TRANSACTIONS (51).
 *
 * ```
 * EndTxn Request (Version: 0-2) => transactional_id producer_id producer_epoch committed
 * EndTxn Response (Version: 0-2) => throttle_time_ms error_code
 * ```
 * Version notes that matter: librdkafka sends v1, kafkajs v1; v2+ answer PRODUCER_FENCED (90),
 * older versions INVALID_PRODUCER_EPOCH (47). A repeated end of a completed transaction is NONE;
 * an end contradicting the transaction's state or with no transaction INVALID_TXN_STATE (48).
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import { decodeEndTxnRequest, encodeEndTxnResponse, type EndTxnRequest, type EndTxnResponseInit } from '../protocol/generated/end-txn.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { defineApi } from './api-definition.js';
import { transactionCoordinatorOf } from './broker-services.js';
import { legacyProducerFenced } from './transaction-errors.js';

export const endTxnApi = defineApi<EndTxnRequest, EndTxnResponseInit>({
  apiKey: ApiKey.EndTxn,
  name: 'EndTxn',
  minVersion: 0,
  maxVersion: 2,
  decode: decodeEndTxnRequest,
  encode: encodeEndTxnResponse,
  async handle(request, context) {
    const coordinator = await transactionCoordinatorOf(context.broker);
    if (coordinator === undefined) return { throttleTimeMs: 0, errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE };
    const errorCode = await coordinator.endTransaction(request.transactionalId,
      { producerId: request.producerId, producerEpoch: request.producerEpoch }, request.committed ? 'commit' : 'abort');
    return { throttleTimeMs: 0, errorCode: legacyProducerFenced(errorCode, context.apiVersion, 2) };
  },
  errorResponse: (_version, errorCode) => ({ throttleTimeMs: 0, errorCode }),
});
