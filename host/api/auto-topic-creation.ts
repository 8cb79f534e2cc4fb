/**
 * Auto-creation of the unknown topics one Metadata request names (Kafka's
 * AutoTopicCreationManager), bounded so that no request can make the controller do unbounded work
 * (issue 15): a Metadata v1 naming 99,999 unknown topics used to create topics until max.partitions
 * was reached, minutes of controller work and hundreds of MB from one request.
 *
 * Per request, at most `auto.create.topics.max.per.request` topics are created, and only while the
 * client's controller mutation quota (`controller.mutation.rate`, KIP-599) is not exhausted (a
 * creation that finds the bucket at zero or above is made even if it takes the bucket below zero,
 * as the strict quota does for CreateTopics; Kafka charges auto-creation nowhere). The other
 * unknown topics are answered LEADER_NOT_AVAILABLE (5), what Kafka answers for a topic it is still
 * creating: every client retries it (CLIENTS.md: 3 and 5 "while a topic is being created"), and a
 * retry naming them creates them within the next request's budget. UNKNOWN_TOPIC_OR_PARTITION (3)
 * would not do: librdkafka fails a producer's messages for an unknown topic after
 * topic.metadata.propagation.max.ms, and our Cluster retries 3 only where it asked for
 * auto-creation.
 *
 * Refusals are logged as one `auto_create.refused` warn line per request at most, and at most one
 * per 10 s per broker, whatever the client id ({@link autoCreateRefusalLog}; the line counts the
 * requests left out since the last one).
 *
 * Produce never auto-creates (Kafka's KafkaApis.handleProduceRequest answers
 * UNKNOWN_TOPIC_OR_PARTITION for a topic not in the metadata cache); FindCoordinator creates the
 * internal topics through the coordinators.
 */
import { OFFSETS_TOPIC_NAME } from '../coordinator/offsets-topic.js';
import type { Time } from '../io/environment.js';
import { DEFAULT_LOG_THROTTLE_INTERVAL_MS, LogThrottle, type ThrottleDecision } from '../observability/log-throttle.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { ApiRequestContext } from './api-definition.js';
import { mutationQuotaFor, type ControllerMutationQuota } from './controller-mutation-quota.js';
import { topicNameProblem } from './topic-names.js';

/** The broker's throttle of `auto_create.refused` lines: whether to write one now, and how many were left out. */
export interface AutoCreateRefusalLog {
  check(): ThrottleDecision;
}

/**
 * One line per {@link DEFAULT_LOG_THROTTLE_INTERVAL_MS} (10 s) for the whole broker, on the
 * monotonic clock: one key, so a client cycling through client ids gets no more lines.
 */
export function autoCreateRefusalLog(time: Pick<Time, 'monotonicMs'>): AutoCreateRefusalLog {
  const throttle = new LogThrottle(DEFAULT_LOG_THROTTLE_INTERVAL_MS, 1);
  return { check: () => throttle.check('auto_create.refused', time.monotonicMs()) };
}

/** Why a topic was not auto-created: the config that bounded it. */
type RefusalReason = 'auto.create.topics.max.per.request' | 'controller.mutation.rate';

/** The auto-creations of one request: create each unknown topic through {@link create}, then call {@link logRefusals}. */
export class RequestAutoTopicCreation {
  /** Topics this request tried to create (each counts against the bound, created or not). */
  private attempted = 0;
  private refused = 0;
  private firstRefused: string | null = null;
  private reason: RefusalReason | null = null;
  private quota: ControllerMutationQuota | null = null;

  constructor(private readonly context: ApiRequestContext) {}

  /**
   * Creates `name` with the broker defaults (`num.partitions`, `default.replication.factor`);
   * `__consumer_offsets` goes through the coordinator's own creation (outside the bound).
   * Resolves with NONE (0) when the topic exists afterwards (created here or concurrently), else a
   * Kafka error code: INVALID_TOPIC_EXCEPTION (17) for an illegal name, UNKNOWN_TOPIC_OR_PARTITION
   * (3) when auto.create.topics.enable is false, LEADER_NOT_AVAILABLE (5) when refused by the
   * request's bound or the client's quota (nothing created), or what the controller answered
   * (INVALID_PARTITIONS 37 past max.partitions, ...).
   */
  async create(name: string): Promise<number> {
    const { broker } = this.context;
    if (broker.metadata.topic(name) !== undefined) return ErrorCode.NONE;
    if (topicNameProblem(name) !== null) return ErrorCode.INVALID_TOPIC_EXCEPTION;
    if (name === OFFSETS_TOPIC_NAME) return broker.ensureOffsetsTopic();
    if (!broker.config.autoCreateTopicsEnable) return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
    this.quota ??= mutationQuotaFor(broker.controllerMutationQuota, this.context, Number.POSITIVE_INFINITY);
    const refusal: RefusalReason | null = this.attempted >= broker.config.autoCreateTopicsMaxPerRequest
      ? 'auto.create.topics.max.per.request'
      : this.quota.throttleTimeMs() > 0 ? 'controller.mutation.rate' : null;
    if (refusal !== null) {
      this.refused++;
      this.firstRefused ??= name;
      this.reason ??= refusal;
      return ErrorCode.LEADER_NOT_AVAILABLE;
    }
    this.attempted++;
    const numPartitions = broker.config.numPartitions;
    const result = await broker.metadata.createTopic(
      { name, numPartitions, replicationFactor: broker.config.defaultReplicationFactor, configs: {} },
      false,
    );
    if (result.errorCode === ErrorCode.NONE) this.quota.record(numPartitions);
    if (result.errorCode === ErrorCode.NONE || result.errorCode === ErrorCode.TOPIC_ALREADY_EXISTS) return ErrorCode.NONE;
    return result.errorCode;
  }

  /** Logs the refusals of this request, if any: one warn line, rate limited per broker. */
  logRefusals(): void {
    if (this.refused === 0) return;
    const { broker, logger, peer, clientId, apiVersion, correlationId } = this.context;
    const decision = broker.autoCreateRefusalLog?.check() ?? { log: true, suppressed: 0 };
    if (!decision.log) return;
    const suppressed = decision.suppressed;
    const why = this.reason === 'controller.mutation.rate'
      ? 'the client\'s controller mutation quota is exhausted'
      : `past ${broker.config.autoCreateTopicsMaxPerRequest} per request`;
    logger.warn({
      event: 'auto_create.refused', peer, api: 'Metadata', apiVersion, correlationId, clientId,
      refusedTopics: this.refused, attemptedTopics: this.attempted, firstRefusedTopic: this.firstRefused, config: this.reason, suppressed,
    }, `did not auto-create ${this.refused} topic(s) named by Metadata from ${peer} (first: ${this.firstRefused}), answered LEADER_NOT_AVAILABLE: ` +
      `${why} (${this.reason})` + (suppressed > 0 ? `; ${suppressed} such request(s) not logged since the last line` : ''));
  }
}
