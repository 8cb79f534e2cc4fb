/** How the transaction coordinator maps the append errors of `__transaction_state` to its answers (Kafka's TransactionStateManager.appendTransactionToLog). */
import { ErrorCode } from '../protocol/generated/error-codes.js';

/**
 * A missing, under-replicated or slow `__transaction_state` partition is COORDINATOR_NOT_AVAILABLE
 * (15, the client retries), a moved or offline one NOT_COORDINATOR (16, the client looks the
 * coordinator up again), a batch too large UNKNOWN_SERVER_ERROR (-1); anything else passes through.
 */
export function mapTransactionLogAppendError(errorCode: number): number {
  switch (errorCode) {
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode.NOT_ENOUGH_REPLICAS:
    case ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND:
    case ErrorCode.REQUEST_TIMED_OUT:
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    case ErrorCode.NOT_LEADER_OR_FOLLOWER:
    case ErrorCode.KAFKA_STORAGE_ERROR:
      return ErrorCode.NOT_COORDINATOR;
    case ErrorCode.MESSAGE_TOO_LARGE:
    case ErrorCode.RECORD_LIST_TOO_LARGE:
      return ErrorCode.UNKNOWN_SERVER_ERROR;
    default:
      return errorCode;
  }
}
