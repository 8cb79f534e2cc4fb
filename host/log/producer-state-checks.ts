/**
 * The checks of one batch against what is known of its producer (Kafka's ProducerAppendInfo:
 * checkProducerEpoch, checkSequence, appendEndTxnMarker's coordinator-epoch check), used by
 * ProducerStateManager.checkAndPrepare; the rules are listed in producer-state-manager.ts.
 */
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { EndTxnMarker } from './end-txn-marker.js';
import type { ProducerBatchInfo, ProducerCheckResult } from './producer-state-manager.js';
import type { ProducerStateEntry } from './producer-state-snapshot.js';

const { OUT_OF_ORDER_SEQUENCE_NUMBER, INVALID_PRODUCER_EPOCH, TRANSACTION_COORDINATOR_FENCED } = ErrorCode;
const INT32_MAX = 0x7fffffff;

/** Kafka's DefaultRecordBatch.incrementSequence: sequences wrap from 2^31-1 to 0. */
export function incrementSequence(sequence: number, increment: number): number {
  if (sequence > INT32_MAX - increment) return increment - (INT32_MAX - sequence) - 1;
  return sequence + increment;
}

export function lastSequenceOf(entry: ProducerStateEntry | undefined): number {
  if (entry === undefined || entry.batches.length === 0) return -1;
  return entry.batches[entry.batches.length - 1]!.lastSequence;
}

/** What checkAndPrepare knows of a producer: its state, as the append's earlier batches would leave it. */
export interface TentativeProducerState {
  epoch: number;
  lastSequence: number;
  known: boolean;
  coordinatorEpoch: number;
  inTxn: boolean;
}

/** Kafka's checkProducerEpoch: an epoch older than the known one is INVALID_PRODUCER_EPOCH (47). */
export function checkProducerEpoch(batch: ProducerBatchInfo, state: TentativeProducerState): ProducerCheckResult | null {
  if (!state.known || batch.producerEpoch >= state.epoch) return null;
  return {
    errorCode: INVALID_PRODUCER_EPOCH,
    errorMessage: `producer ${batch.producerId}: epoch ${batch.producerEpoch} is older than the current epoch ${state.epoch}`,
  };
}

/** Kafka's appendEndTxnMarker checks: producer epoch (47), then coordinator epoch (52). */
export function checkEndTxnMarker(batch: ProducerBatchInfo, marker: EndTxnMarker, state: TentativeProducerState): ProducerCheckResult | null {
  const epochError = checkProducerEpoch(batch, state);
  if (epochError !== null) return epochError;
  if (state.known && state.coordinatorEpoch > marker.coordinatorEpoch) {
    return {
      errorCode: TRANSACTION_COORDINATOR_FENCED,
      errorMessage: `producer ${batch.producerId}: coordinator epoch ${marker.coordinatorEpoch} is older than ${state.coordinatorEpoch}`,
    };
  }
  return null;
}

export function checkSequence(
  batch: ProducerBatchInfo,
  state: TentativeProducerState,
): ProducerCheckResult | null {
  const { producerId, producerEpoch, baseSequence } = batch;
  const epochError = checkProducerEpoch(batch, state);
  if (epochError !== null) return epochError;
  // KIP-360 (Kafka 2.5+, ProducerAppendInfo.checkSequence): with no state for the producer (its
  // batches removed by retention or DeleteRecords, or its id expired) any sequence is accepted
  // and tracked from there; UNKNOWN_PRODUCER_ID is no longer answered.
  if (!state.known) return null;
  if (producerEpoch !== state.epoch) {
    if (baseSequence === 0) return null;
    return {
      errorCode: OUT_OF_ORDER_SEQUENCE_NUMBER,
      errorMessage: `producer ${producerId}: new epoch ${producerEpoch} must start at sequence 0, got ${baseSequence}`,
    };
  }
  const expected = state.lastSequence < 0 ? 0 : incrementSequence(state.lastSequence, 1);
  if (baseSequence === expected) return null;
  return {
    errorCode: OUT_OF_ORDER_SEQUENCE_NUMBER,
    errorMessage: `producer ${producerId} epoch ${producerEpoch}: expected sequence ${expected}, got ${baseSequence}`,
  };
}

