/**
 * DescribeTransactions (api key 65), v0 (KIP-664): the state of transactional ids this broker
 * coordinates, for admin tools (`kafka-transactions.sh describe`, `tributary transactions describe`).
 *
 * ```
 * DescribeTransactions Request (Version: 0) => [transactional_ids] (flexible)
 * DescribeTransactions Response (Version: 0) => throttle_time_ms [transaction_states]
 *   transaction_states => error_code transactional_id transaction_state transaction_timeout_ms
 *     transaction_start_time_ms producer_id producer_epoch [topics]  (topics => topic [partitions])
 * ```
 * Per id: NONE, NOT_COORDINATOR (16: ask the id's coordinator, FindCoordinator key type 1),
 * COORDINATOR_NOT_AVAILABLE (15), TRANSACTIONAL_ID_NOT_FOUND (105).
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import {
  decodeDescribeTransactionsRequest,
  type DescribeTransactionsRequest,
  type DescribeTransactionsResponseInit,
  encodeDescribeTransactionsResponse,
} from '../protocol/generated/describe-transactions.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { transactionStateName } from '../coordinator/transaction-state.js';
import { defineApi } from './api-definition.js';
import { transactionCoordinatorOf } from './broker-services.js';

export const describeTransactionsApi = defineApi<DescribeTransactionsRequest, DescribeTransactionsResponseInit>({
  apiKey: ApiKey.DescribeTransactions,
  name: 'DescribeTransactions',
  minVersion: 0,
  maxVersion: 0,
  decode: decodeDescribeTransactionsRequest,
  encode: encodeDescribeTransactionsResponse,
  async handle(request, context) {
    const coordinator = await transactionCoordinatorOf(context.broker);
    const described = coordinator === undefined
      ? request.transactionalIds.map((transactionalId) => ({ errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, transactionalId, description: null }))
      : coordinator.describeTransactions(request.transactionalIds);
    return {
      throttleTimeMs: 0,
      transactionStates: described.map(({ errorCode, transactionalId, description }) => {
        const byTopic = new Map<string, number[]>();
        for (const ref of description?.topicPartitions ?? []) byTopic.set(ref.topic, [...(byTopic.get(ref.topic) ?? []), ref.partition]);
        return {
          errorCode,
          transactionalId,
          transactionState: description === null ? '' : transactionStateName(description.state),
          transactionTimeoutMs: description?.transactionTimeoutMs ?? 0,
          transactionStartTimeMs: description?.transactionStartTimeMs ?? -1,
          producerId: description?.producerId ?? -1,
          producerEpoch: description?.producerEpoch ?? -1,
          topics: [...byTopic].map(([topic, partitions]) => ({ topic, partitions })),
        };
      }),
    };
  },
});
