/**
 * The broker's periodic tasks (Kafka's KafkaScheduler jobs), every
 * min(log.retention.check.interval.ms, 5 s), at least 100 ms, on the environment's timers:
 * - logs: flush (log.flush.interval.ms) and the recovery-point / log-start-offset /
 *   high-watermark checkpoints every period, with the checkpoint fsyncs on the thread pool
 *   (LogManager.tickInBackground);
 * - retention (retention.ms / retention.bytes / log start offset) on Kafka's own schedule, not
 *   every period: Kafka's kafka-log-retention task first runs log.initial.task.delay.ms (30 s)
 *   after start-up, then every log.retention.check.interval.ms (default 5 minutes), so records
 *   with old timestamps are not deleted while a client still reads them seconds after writing;
 * - compaction (cleanup.policy=compact) as Kafka's cleaner thread: after a pass that cleaned a
 *   log the next period tries again, after one that found nothing it backs off for
 *   log.cleaner.backoff.ms (default 15 s, dynamic);
 * - producer state: Partitions forget producers whose batches retention removed, and idle
 *   producer ids expire (producer.id.expiration.ms);
 * - ISR expiration: partition leaders propose ISRs without followers that lag by more than
 *   replica.lag.time.max.ms (ReplicaManager.maybeShrinkIsr; Kafka's "isr-expiration" task runs
 *   every replica.lag.time.max.ms / 2, this one every period).
 * Group and offset expiry run on the group coordinator's own timers
 * (offsets.retention.check.interval.ms). A failing task is logged as a bug; the others still run.
 */
import type { Time, TimerHandle } from '../io/environment.js';
import type { LogManager } from '../log/log-manager.js';
import type { UnifiedLog } from '../log/unified-log.js';
import type { Logger } from '../observability/logger.js';
import type { ReplicaManager } from '../replication/replica-manager.js';

/** Housekeeping period bounds, ms. */
const MAX_TICK_INTERVAL_MS = 5_000;
const MIN_TICK_INTERVAL_MS = 100;

/** The housekeeping period for `log.retention.check.interval.ms`, ms. */
export function housekeepingIntervalMs(logRetentionCheckIntervalMs: number): number {
  return Math.max(MIN_TICK_INTERVAL_MS, Math.min(MAX_TICK_INTERVAL_MS, logRetentionCheckIntervalMs));
}

/** Kafka's log.initial.task.delay.ms default (ServerLogConfigs.LOG_INITIAL_TASK_DELAY_MS_DEFAULT, an internal config). */
export const LOG_INITIAL_TASK_DELAY_MS = 30_000;

export interface HousekeepingOptions {
  readonly time: Time;
  /** log.retention.check.interval.ms. */
  readonly logRetentionCheckIntervalMs: number;
  /** Delay of the first retention pass after start (Kafka's log.initial.task.delay.ms); default 30 s. */
  readonly logInitialTaskDelayMs?: number;
  /** log.cleaner.backoff.ms, read at each pass (a dynamic broker config); default 15 s. */
  readonly logCleanerBackoffMs?: () => number;
  readonly logManager: LogManager;
  readonly replicaManager: ReplicaManager<UnifiedLog>;
  readonly logger: Logger;
}

/** Runs the periodic tasks between {@link start} and {@link stop}. */
export class Housekeeping {
  private readonly options: HousekeepingOptions;
  private readonly intervalMs: number;
  private timer: TimerHandle | null = null;
  private running = false;
  /** When retention is next due (Kafka's fixed-rate kafka-log-retention task), ms. */
  private nextRetentionMs = 0;
  /** When the cleaner may next look for a log to clean, ms. */
  private nextCleaningMs = 0;

  constructor(options: HousekeepingOptions) {
    this.options = options;
    this.intervalMs = housekeepingIntervalMs(options.logRetentionCheckIntervalMs);
  }

  /** Schedules the first run one period from now. */
  start(): void {
    this.running = true;
    const nowMs = this.options.time.nowMs();
    this.nextRetentionMs = nowMs + (this.options.logInitialTaskDelayMs ?? LOG_INITIAL_TASK_DELAY_MS);
    this.nextCleaningMs = nowMs;
    this.schedule();
  }

  /** Cancels the next run. Idempotent. */
  stop(): void {
    this.running = false;
    if (this.timer !== null) this.options.time.clearTimeout(this.timer);
    this.timer = null;
  }

  /** One pass of every task (what each period runs). */
  runOnce(): void {
    const { time, logManager, replicaManager, logger } = this.options;
    const nowMs = time.nowMs();
    const retention = nowMs >= this.nextRetentionMs;
    const cleaning = nowMs >= this.nextCleaningMs;
    if (retention) {
      const intervalMs = Math.max(1, this.options.logRetentionCheckIntervalMs);
      while (this.nextRetentionMs <= nowMs) this.nextRetentionMs += intervalMs;
    }
    try {
      // Checkpoint fsyncs run on the thread pool: on the loop they stalled every produce and
      // fetch for 2–100 ms each tick (the W4 latency tail).
      const cleaned = logManager.tickInBackground(nowMs, { retention, cleaning });
      if (cleaning && cleaned === 0) this.nextCleaningMs = nowMs + (this.options.logCleanerBackoffMs?.() ?? 15_000);
    } catch (error) {
      logger.error({ event: 'housekeeping.failed', err: error }, 'log housekeeping failed (bug)');
    }
    try {
      // Retention just moved log start offsets: the Partitions (owners of the producer state)
      // forget producers whose batches are gone, on the same turn, before any append is checked.
      replicaManager.onLogStartOffsetsMaybeIncremented();
      // producer.id.expiration.ms: idle producer ids are forgotten (Kafka checks every
      // producer.id.expiration.check.interval.ms; a pass over the in-memory entries is cheap).
      const expired = replicaManager.removeExpiredProducers(nowMs);
      if (expired > 0) logger.debug({ event: 'producers.expired', count: expired }, `${expired} idle producer id(s) expired`);
    } catch (error) {
      logger.error({ event: 'housekeeping.failed', err: error }, 'producer-state housekeeping failed (bug)');
    }
    try {
      const proposed = replicaManager.maybeShrinkIsr();
      if (proposed > 0) logger.debug({ event: 'isr.shrink_proposed', count: proposed }, `${proposed} ISR shrink(s) proposed`);
    } catch (error) {
      logger.error({ event: 'housekeeping.failed', err: error }, 'ISR expiration failed (bug)');
    }
  }

  private schedule(): void {
    this.timer = this.options.time.setTimeout(() => {
      this.timer = null;
      if (!this.running) return;
      this.runOnce();
      if (this.running) this.schedule();
    }, this.intervalMs);
  }
}
