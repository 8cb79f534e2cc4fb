/**
 * InitProducerId (api key 22), v0-4: a producer id for an idempotent or transactional producer.
 *
 * ```
 * InitProducerId Request (Version: 0-1) => transactional_id transaction_timeout_ms
 * InitProducerId Request (Version: 2)   => ... (flexible)
 * InitProducerId Request (Version: 3-4) => transactional_id transaction_timeout_ms producer_id producer_epoch (flexible)
 * InitProducerId Response (Version: 0-4) => throttle_time_ms error_code producer_id producer_epoch
 * ```
 * Version notes that matter:
 * - MinVersion 0 for librdkafka's IdempotentProducer probe (CLIENTS.md L1); librdkafka sends v4,
 *   kafkajs v1, Java 3.2+'s console producer is idempotent by default.
 * - v2+ are flexible (KIP-482): request header v2, response header v1.
 * - With a null transactional id every call gets a fresh producer id with epoch 0, whatever
 *   producer_id/producer_epoch (v3+, KIP-360) say: as Kafka does for idempotent producers.
 * - With a transactional id (KIP-98) the transaction coordinator answers: the id's producer id
 *   with a bumped epoch, fencing older producers of the id (see transaction-coordinator-shard.ts);
 *   NOT_COORDINATOR (16) on a broker that does not coordinate the id, CONCURRENT_TRANSACTIONS (51)
 *   while the previous producer's transaction is aborted, INVALID_TRANSACTION_TIMEOUT (50).
 * - v3+ (KIP-360) name the producer id and epoch the producer holds (-1/-1 for none): a producer
 *   recovering from an abortable error keeps its id with a bumped epoch; a stale one is fenced.
 * - PRODUCER_FENCED (90) exists from v4; older versions get INVALID_PRODUCER_EPOCH (47), as Kafka.
 * - A broker without a transaction coordinator answers TRANSACTIONAL_ID_AUTHORIZATION_FAILED
 *   (53), fatal in every client, with a log line.
 */
import { logRefusedRequest } from '../observability/logger.js';
import { ApiKey } from '../protocol/generated/api-keys.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import {
  decodeInitProducerIdRequest,
  encodeInitProducerIdResponse,
  type InitProducerIdRequest,
  type InitProducerIdResponseInit,
} from '../protocol/generated/init-producer-id.js';
import { defineApi } from './api-definition.js';
import { transactionCoordinatorOf } from './broker-services.js';
import { legacyProducerFenced } from './transaction-errors.js';

export const initProducerIdApi = defineApi<InitProducerIdRequest, InitProducerIdResponseInit>({
  apiKey: ApiKey.InitProducerId,
  name: 'InitProducerId',
  minVersion: 0,
  maxVersion: 4,
  decode: decodeInitProducerIdRequest,
  encode: encodeInitProducerIdResponse,
  async handle(request, context) {
    if (request.transactionalId !== null) {
      const coordinator = await transactionCoordinatorOf(context.broker);
      if (coordinator === undefined) {
        // No coordinator on this broker (the log cannot write markers): fatal in every client, at once.
        const errorCode = ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
        logRefusedRequest(context.logger, {
          peer: context.peer, api: 'InitProducerId', apiKey: context.apiKey, apiVersion: context.apiVersion,
          correlationId: context.correlationId, clientId: context.clientId, errorCode, error: 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED',
        }, `transactional.id ${JSON.stringify(request.transactionalId)}: this broker runs no transaction coordinator`);
        return failure(errorCode);
      }
      const expected = context.apiVersion >= 3 && request.producerId !== -1
        ? { producerId: request.producerId, producerEpoch: request.producerEpoch }
        : null;
      const result = await coordinator.initProducerId(request.transactionalId, request.transactionTimeoutMs, expected);
      if (result.errorCode !== ErrorCode.NONE) {
        return failure(legacyProducerFenced(result.errorCode, context.apiVersion, 4));
      }
      return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, producerId: result.producerId, producerEpoch: result.producerEpoch };
    }
    const allocated = await context.broker.metadata.allocateProducerId();
    if (allocated.errorCode !== ErrorCode.NONE) return failure(allocated.errorCode);
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, producerId: allocated.producerId, producerEpoch: 0 };
  },
  errorResponse: (_version, errorCode) => failure(errorCode),
});

function failure(errorCode: number): InitProducerIdResponseInit {
  return { throttleTimeMs: 0, errorCode, producerId: -1, producerEpoch: -1 };
}
