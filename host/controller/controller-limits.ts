/**
 * Bounds on what one metadata operation may write and on the cluster's size, checked by the
 * controller's managers before they build any record, so that no client (by a typo or on purpose)
 * can make the controller, and every broker replaying the records, do unbounded work in one go.
 *
 * - `controller.max.records.per.user.op` (Tributary's name for Kafka's fixed
 *   QuorumController.MAX_RECORDS_PER_USER_OP, 10000): the most records one user operation
 *   (CreateTopics, CreatePartitions, DeleteTopics) may write. Kafka's controller builds them in a
 *   BoundedList and fails the whole operation with POLICY_VIOLATION (44) ("Unable to perform
 *   excessively large batch operation."); we do the same, before placing any replica, and name the
 *   limit and the config in the message.
 * - `max.partitions` (the name KIP-578 proposed; Kafka itself has no such limit): the most
 *   partitions the cluster may hold; a topic or a growth that would pass it answers
 *   INVALID_PARTITIONS (37). The internal topics (`__consumer_offsets`, `__transaction_state`,
 *   bounded by their own configs) are exempt: a cluster filled to the limit by user topics (one
 *   Metadata request auto-creating thousands, found by a trial) must still form consumer groups
 *   and run transactions.
 */
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { type ApiError, fail } from './controller-result.js';
import { INTERNAL_TOPIC_NAMES } from './topic-name.js';

/** Kafka's QuorumController.MAX_RECORDS_PER_USER_OP (= MAX_RECORDS_PER_BATCH). */
export const DEFAULT_MAX_RECORDS_PER_USER_OP = 10_000;
/** Tributary's default `max.partitions`. */
export const DEFAULT_MAX_PARTITIONS = 50_000;

/** The limits as the controller config carries them (a BrokerConfig fits). */
export interface ControllerLimitsConfig {
  /** controller.max.records.per.user.op; default {@link DEFAULT_MAX_RECORDS_PER_USER_OP}. */
  readonly controllerMaxRecordsPerUserOp?: number;
  /** max.partitions; default {@link DEFAULT_MAX_PARTITIONS}. */
  readonly maxPartitions?: number;
}

/** The limits one operation is checked against. */
export class ControllerLimits {
  readonly maxRecordsPerUserOp: number;
  readonly maxPartitions: number;

  constructor(config: ControllerLimitsConfig) {
    this.maxRecordsPerUserOp = config.controllerMaxRecordsPerUserOp ?? DEFAULT_MAX_RECORDS_PER_USER_OP;
    this.maxPartitions = config.maxPartitions ?? DEFAULT_MAX_PARTITIONS;
  }

  /**
   * POLICY_VIOLATION (44) when an operation would write `records` records (null when within
   * the limit). `what` names the operation in the message ("CreateTopics"); `oneTopic` says the
   * records are one topic's alone, so splitting the request cannot help and the message asks for
   * fewer partitions or a higher controller.max.records.per.user.op instead.
   */
  checkRecords(what: string, records: number, oneTopic = false): ApiError | null {
    if (records <= this.maxRecordsPerUserOp) return null;
    return fail(ErrorCode.POLICY_VIOLATION,
      `Unable to perform excessively large batch operation: this ${what} would write ${records} metadata records, ` +
      `more than the limit of ${this.maxRecordsPerUserOp} per operation (controller.max.records.per.user.op); ` +
      (oneTopic ? 'ask for fewer partitions or raise controller.max.records.per.user.op.' : 'split it into smaller requests.'));
  }

  /**
   * INVALID_PARTITIONS (37) when adding `adding` partitions to a cluster holding `current` would
   * pass max.partitions (null when within it, or for an internal topic).
   */
  checkClusterPartitions(topic: string, current: number, adding: number): ApiError | null {
    if (current + adding <= this.maxPartitions || INTERNAL_TOPIC_NAMES.has(topic)) return null;
    return fail(ErrorCode.INVALID_PARTITIONS,
      `Adding ${adding} partition(s) to topic '${topic}' would bring the cluster to ${current + adding} partitions, ` +
      `more than max.partitions (${this.maxPartitions}).`);
  }
}
