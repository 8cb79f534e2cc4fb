/**
 * ListTransactions (api key 66), v0-1 (KIP-664; v1 KIP-994 duration filter): the transactional
 * ids this broker coordinates, for admin tools (`kafka-transactions.sh list`, `find-hanging`).
 *
 * ```
 * ListTransactions Request (Version: 0) => [state_filters] [producer_id_filters] (flexible)
 * ListTransactions Request (Version: 1) => ... duration_filter
 * ListTransactions Response (Version: 0-1) => throttle_time_ms error_code [unknown_state_filters]
 *   [transaction_states]  (transaction_states => transactional_id producer_id transaction_state)
 * ```
 * Filters: state names (Kafka's: Empty, Ongoing, PrepareCommit, ...; unknown names are echoed
 * back in unknown_state_filters and match nothing), producer ids, and (v1) transactions running
 * at least duration_filter ms (-1: any). COORDINATOR_NOT_AVAILABLE (15) before start-up.
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import {
  decodeListTransactionsRequest,
  encodeListTransactionsResponse,
  type ListTransactionsRequest,
  type ListTransactionsResponseInit,
} from '../protocol/generated/list-transactions.js';
import { type TransactionState, transactionStateFromName, transactionStateName } from '../coordinator/transaction-state.js';
import { defineApi } from './api-definition.js';
import { transactionCoordinatorOf } from './broker-services.js';

export const listTransactionsApi = defineApi<ListTransactionsRequest, ListTransactionsResponseInit>({
  apiKey: ApiKey.ListTransactions,
  name: 'ListTransactions',
  minVersion: 0,
  maxVersion: 1,
  decode: decodeListTransactionsRequest,
  encode: encodeListTransactionsResponse,
  async handle(request, context) {
    const coordinator = await transactionCoordinatorOf(context.broker);
    const unknownStateFilters = request.stateFilters.filter((name) => transactionStateFromName(name) === undefined);
    const states = new Set(request.stateFilters.map(transactionStateFromName).filter((state): state is TransactionState => state !== undefined));
    if (coordinator === undefined) return failure(ErrorCode.COORDINATOR_NOT_AVAILABLE, unknownStateFilters);
    // Only unknown names: nothing can match them.
    if (request.stateFilters.length > 0 && states.size === 0) return failure(ErrorCode.NONE, unknownStateFilters);
    const listed = coordinator.listTransactions(states, new Set(request.producerIdFilters));
    if (listed.errorCode !== ErrorCode.NONE) return failure(listed.errorCode, unknownStateFilters);
    const durationMs = context.apiVersion >= 1 ? request.durationFilter : -1;
    const nowMs = context.broker.nowMs();
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      unknownStateFilters,
      transactionStates: listed.transactions
        .filter((txn) => durationMs < 0 || nowMs - txn.transactionStartTimeMs >= durationMs)
        .map((txn) => ({ transactionalId: txn.transactionalId, producerId: txn.producerId, transactionState: transactionStateName(txn.state) })),
    };
  },
  errorResponse: (_version, errorCode) => failure(errorCode, []),
});

function failure(errorCode: number, unknownStateFilters: string[]): ListTransactionsResponseInit {
  return { throttleTimeMs: 0, errorCode, unknownStateFilters, transactionStates: [] };
}
