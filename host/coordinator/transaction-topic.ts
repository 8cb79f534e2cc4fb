/**
 * The `__transaction_state` topic: its name and which of its partitions (and so which
 * coordinator) a transactional id belongs to.
 */
import { partitionForGroup } from './offsets-topic.js';

/** Name of the compacted internal topic holding the transaction coordinator's records. */
export const TRANSACTION_STATE_TOPIC_NAME = '__transaction_state';

/**
 * The `__transaction_state` partition of a transactional id, Kafka's TransactionStateManager.partitionFor:
 * `Utils.abs(transactionalId.hashCode) % transaction.state.log.num.partitions` (the same rule as
 * groups on `__consumer_offsets`). FindCoordinator and the coordinator must agree on this.
 */
export function partitionForTransactionalId(transactionalId: string, numPartitions: number): number {
  return partitionForGroup(transactionalId, numPartitions);
}
