/**
 * InitProducerId (api key 22), v0-4: a producer id for an idempotent producer.
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
 * - A transactional id needs the transaction coordinator, which does not exist yet:
 *   TRANSACTIONAL_ID_AUTHORIZATION_FAILED (53), fatal in every client, with a log line.
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

export const initProducerIdApi = defineApi<InitProducerIdRequest, InitProducerIdResponseInit>({
  apiKey: ApiKey.InitProducerId,
  name: 'InitProducerId',
  minVersion: 0,
  maxVersion: 4,
  decode: decodeInitProducerIdRequest,
  encode: encodeInitProducerIdResponse,
  async handle(request, context) {
    if (request.transactionalId !== null) {
      const errorCode = ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
      logRefusedRequest(context.logger, {
        peer: context.peer, api: 'InitProducerId', apiKey: context.apiKey, apiVersion: context.apiVersion,
        correlationId: context.correlationId, clientId: context.clientId, errorCode, error: 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED',
      }, `transactional.id ${JSON.stringify(request.transactionalId)}: transactions are not supported yet`);
      return failure(errorCode);
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
