/**
 * The broker's periodic tasks (Kafka's KafkaScheduler jobs), every
 * min(log.retention.check.interval.ms, 5 s), at least 100 ms, on the environment's timers:
 * - logs: flush (log.flush.interval.ms) and the recovery-point / log-start-offset /
 *   high-watermark checkpoints every period, with the checkpoint fsyncs on the thread pool
 *   (LogManager.maintainLogs, LogManager.writeCheckpointsInBackground);
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
 *
 * A pass works through the logs in slices of housekeeping.max.partitions.per.turn, one slice per
 * event-loop turn (issue 15: with 50k partitions one pass held the loop 100-300 ms every 5 s):
 * each slice flushes and applies retention to its logs, then trims the producer state of the same
 * partitions in the same turn (so no append sees a producer whose batches retention removed),
 * expires their idle producers and checks their ISR; the checkpoints are written after the last
 * slice. The next pass is scheduled one period after a pass ends, so passes never overlap.
 */
import type { Time, TimerHandle } from '../io/environment.js';
import type { LogManager, MaintenanceDue } from '../log/log-manager.js';
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
  /** housekeeping.max.partitions.per.turn: logs (partitions) one slice of a pass works through; default all. */
  readonly maxPartitionsPerTurn?: number;
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
  /** Bumped by stop(): a pass begun before stops between slices. */
  private generation = 0;

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
    this.generation++;
    if (this.timer !== null) this.options.time.clearTimeout(this.timer);
    this.timer = null;
  }

  /**
   * One pass of every task (what each period runs): its first slice now, the others in later
   * event-loop turns (`time.defer`); `done` is called after the last.
   */
  runOnce(done?: () => void): void {
    const { time, logManager } = this.options;
    const nowMs = time.nowMs();
    const retention = nowMs >= this.nextRetentionMs;
    const cleaning = nowMs >= this.nextCleaningMs;
    if (retention) {
      const intervalMs = Math.max(1, this.options.logRetentionCheckIntervalMs);
      while (this.nextRetentionMs <= nowMs) this.nextRetentionMs += intervalMs;
    }
    const logs = logManager.allLogs();
    const perTurn = Math.max(1, this.options.maxPartitionsPerTurn ?? logs.length);
    const generation = this.generation;
    const totals = { cleaned: 0, expired: 0, proposed: 0 };
    const slice = (start: number): void => {
      if (generation !== this.generation) return;
      this.runSlice(logs.slice(start, start + perTurn), nowMs, { retention, cleaning }, totals);
      if (start + perTurn < logs.length) {
        time.defer(() => slice(start + perTurn));
        return;
      }
      this.finishPass(nowMs, cleaning, totals);
      done?.();
    };
    slice(0);
  }

  /** Flush and retention of `logs`, then their partitions' producer state and ISR, in this turn. */
  private runSlice(logs: readonly UnifiedLog[], nowMs: number, due: MaintenanceDue, totals: { cleaned: number; expired: number; proposed: number }): void {
    const { logManager, replicaManager, logger } = this.options;
    try {
      totals.cleaned += logManager.maintainLogs(nowMs, due, logs);
    } catch (error) {
      logger.error({ event: 'housekeeping.failed', err: error }, 'log housekeeping failed (bug)');
    }
    for (const log of logs) {
      const partition = replicaManager.getPartition(log.topic, log.partition);
      if (partition === undefined || partition.log !== log) continue;
      try {
        // Retention just moved log start offsets: the Partition (owner of the producer state)
        // forgets producers whose batches are gone, on the same turn, before any append is checked.
        partition.onLogStartOffsetMaybeIncremented();
        // producer.id.expiration.ms: idle producer ids are forgotten (Kafka checks every
        // producer.id.expiration.check.interval.ms; a pass over the in-memory entries is cheap).
        totals.expired += partition.removeExpiredProducers(nowMs);
        if (partition.maybeShrinkIsr()) totals.proposed++;
      } catch (error) {
        // A disk error deleting a producer snapshot is retried at the next pass.
        logger.error({ event: 'housekeeping.failed', topic: log.topic, partition: log.partition, err: error }, 'partition housekeeping failed');
      }
    }
  }

  /** After the last slice: the checkpoints (fsynced on the thread pool), the cleaner's backoff, the counts. */
  private finishPass(nowMs: number, cleaning: boolean, totals: { cleaned: number; expired: number; proposed: number }): void {
    const { logManager, logger } = this.options;
    try {
      // Checkpoint fsyncs run on the thread pool: on the loop they stalled every produce and
      // fetch for 2–100 ms each tick (the W4 latency tail).
      logManager.writeCheckpointsInBackground();
    } catch (error) {
      logger.error({ event: 'housekeeping.failed', err: error }, 'checkpoint housekeeping failed (bug)');
    }
    if (cleaning && totals.cleaned === 0) this.nextCleaningMs = nowMs + (this.options.logCleanerBackoffMs?.() ?? 15_000);
    if (totals.expired > 0) logger.debug({ event: 'producers.expired', count: totals.expired }, `${totals.expired} idle producer id(s) expired`);
    if (totals.proposed > 0) logger.debug({ event: 'isr.shrink_proposed', count: totals.proposed }, `${totals.proposed} ISR shrink(s) proposed`);
  }

  private schedule(): void {
    this.timer = this.options.time.setTimeout(() => {
      this.timer = null;
      if (!this.running) return;
      this.runOnce(() => {
        if (this.running) this.schedule();
      });
    }, this.intervalMs);
  }
}
