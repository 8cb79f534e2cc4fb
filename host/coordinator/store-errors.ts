/** How the coordinator maps the append errors of `__consumer_offsets` to its answers (Kafka's GroupMetadataManager storeGroup / storeOffsets). */
import { ErrorCode } from '../protocol/generated/error-codes.js';

/** Kafka's storeGroup mapping of log append errors to coordinator errors. */
export function mapStoreGroupError(errorCode: number): number {
  if (errorCode === ErrorCode.REQUEST_TIMED_OUT) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
  return mapAppendError(errorCode, ErrorCode.UNKNOWN_SERVER_ERROR);
}

/** Kafka's storeOffsets mapping of log append errors to OffsetCommit errors. */
export function mapStoreOffsetsError(errorCode: number): number {
  return mapAppendError(errorCode, ErrorCode.INVALID_COMMIT_OFFSET_SIZE);
}

/**
 * What storeGroup and storeOffsets share: a missing or under-replicated __consumer_offsets
 * partition is COORDINATOR_NOT_AVAILABLE (retry), a moved or offline one NOT_COORDINATOR (look the
 * coordinator up again), a batch too large `tooLargeErrorCode`; anything else passes through.
 */
function mapAppendError(errorCode: number, tooLargeErrorCode: number): number {
  switch (errorCode) {
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode.NOT_ENOUGH_REPLICAS:
    case ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND:
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    case ErrorCode.NOT_LEADER_OR_FOLLOWER:
    case ErrorCode.KAFKA_STORAGE_ERROR:
      return ErrorCode.NOT_COORDINATOR;
    case ErrorCode.MESSAGE_TOO_LARGE:
    case ErrorCode.RECORD_LIST_TOO_LARGE:
    case ErrorCode.INVALID_FETCH_SIZE:
      return tooLargeErrorCode;
    default:
      return errorCode;
  }
}
