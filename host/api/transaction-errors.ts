/** Version rules the transaction APIs share. */
import { ErrorCode } from '../protocol/generated/error-codes.js';

/**
 * PRODUCER_FENCED (90) is answered from `firstVersion` of an API (InitProducerId v4,
 * AddPartitionsToTxn/AddOffsetsToTxn/EndTxn v2); older versions get INVALID_PRODUCER_EPOCH (47),
 * which their clients handle the same way (Kafka's KafkaApis does this mapping).
 */
export function legacyProducerFenced(errorCode: number, apiVersion: number, firstVersion: number): number {
  return errorCode === ErrorCode.PRODUCER_FENCED && apiVersion < firstVersion ? ErrorCode.INVALID_PRODUCER_EPOCH : errorCode;
}
