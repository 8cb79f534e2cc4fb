/**
 * The event-loop watchdog (issue 15): a stall is explained, not guessed. Node runs every client's
 * requests on one thread, so one long synchronous piece of work delays everybody.
 *
 * Two views of the same thing:
 * - Work the broker knows it is doing is timed where it runs: the dispatcher's decode + handler +
 *   encode of one request (`cause: "request"`: API, api key, client id, partition count), and
 *   each slice of a metadata change applied to storage by the BrokerMetadataPublisher
 *   (`cause: "metadata.apply"`: op create / update / delete / elect, topic, partition count). A
 *   piece that takes `event.loop.stall.threshold.ms` or more logs one `event_loop.stall` line at
 *   warn naming what ran and its duration, and counts it.
 * - A tick every half threshold (on the environment's timers) measures how late it runs: a turn
 *   late by the threshold or more with no known work to blame logs the same event with the last
 *   request seen and `gcMs`, the garbage collector's pauses within the stall (io/gc-pauses.ts):
 *   `cause: "gc"` when they make up half of it or more, else `cause: "unattributed"`
 *   (housekeeping, HTTP handlers, log deletion). The line is written one timer turn after the
 *   stall, once Node has delivered the collector's entries.
 * Together with the process's event-loop delay histogram (io/event-loop-delay.ts) this is
 * {@link EventLoopWatchdog.metrics}: stalls counted, the worst delay since start and the p99 since the
 * last `/metrics` scrape (the histogram is shared with the `nodejs_eventloop_lag_*` families).
 */
import type { Time, TimerHandle } from '../io/environment.js';
import type { EventLoopDelayMonitor } from '../io/event-loop-delay.js';
import type { GcPauses } from '../io/gc-pauses.js';
import type { Logger } from './logger.js';

/** What a piece of work was, for the stall line. */
export interface StallWork {
  readonly api: string;
  readonly apiKey: number;
  readonly clientId: string | null;
  /** Partitions the request names (or creates), 0 when it names none. */
  readonly partitions: number;
}

/**
 * One slice of a committed metadata change applied to local storage (broker-metadata-publisher.ts):
 * `create` a new topic's partitions, `update` partitions added, moved or reconfigured, `delete` a
 * deleted topic's partitions, `elect` the group coordinator taking the `__consumer_offsets`
 * leaderships.
 */
export interface MetadataApplyWork {
  readonly op: 'create' | 'update' | 'delete' | 'elect';
  readonly topic: string;
  /** Partitions this slice applied (at most metadata.apply.max.partitions.per.turn). */
  readonly partitions: number;
}

/** What the BrokerMetadataPublisher needs of the watchdog to have its slices timed. */
export interface MetadataApplyTiming {
  readonly enabled: boolean;
  nowMs(): number;
  noteMetadataApply(work: () => MetadataApplyWork, durationMs: number): void;
}

/** The watchdog's counters, for metrics. */
export interface EventLoopMetrics {
  /** Stalls at or over the threshold since start (attributed or not). */
  readonly stallCount: number;
  /** The longest stall seen, ms. */
  readonly maxStallMs: number;
  /**
   * From the delay histogram (0 without one), ms: the worst delay since start, and the 99th
   * percentile since the last `/metrics` scrape (which resets the shared histogram; since start
   * without scrapes).
   */
  readonly maxDelayMs: number;
  readonly p99DelayMs: number;
}

export interface EventLoopWatchdogOptions {
  readonly time: Pick<Time, 'monotonicMs' | 'setTimeout' | 'clearTimeout'>;
  /** event.loop.stall.threshold.ms; 0 disables the watchdog. */
  readonly thresholdMs: number;
  readonly logger: Logger;
  readonly delayMonitor?: EventLoopDelayMonitor;
  /** The process's GC pauses (on `time`'s monotonic clock); absent: stalls are not checked for GC. */
  readonly gcPauses?: GcPauses | undefined;
}

export class EventLoopWatchdog implements MetadataApplyTiming {
  private readonly time: EventLoopWatchdogOptions['time'];
  private readonly thresholdMs: number;
  private readonly logger: Logger;
  private readonly delayMonitor: EventLoopDelayMonitor | undefined;
  private readonly gcPauses: GcPauses | undefined;
  private stalls = 0;
  private maxStall = 0;
  /** The last request seen, described only when a stall needs it. */
  private lastWork: (() => StallWork) | null = null;
  /** When the last attributed stall ended (monotonic ms). */
  private lastAttributedEndMs = Number.NEGATIVE_INFINITY;
  private timer: TimerHandle | null = null;

  constructor(options: EventLoopWatchdogOptions) {
    this.time = options.time;
    this.thresholdMs = options.thresholdMs;
    this.logger = options.logger;
    this.delayMonitor = options.delayMonitor;
    this.gcPauses = options.gcPauses;
  }

  /** Whether work should be timed at all. */
  get enabled(): boolean {
    return this.thresholdMs > 0;
  }

  /** The environment's monotonic clock, ms (what {@link noteWork} durations are measured on). */
  nowMs(): number {
    return this.time.monotonicMs();
  }

  /**
   * `work` ran synchronously for `durationMs`: remembered as the last request, and logged and
   * counted as a stall when it reached the threshold (`work` is only called when a line needs it).
   */
  noteWork(work: () => StallWork, durationMs: number): void {
    if (!this.enabled) return;
    this.lastWork = work;
    if (durationMs < this.thresholdMs) return;
    const described = work();
    this.lastAttributedEndMs = this.time.monotonicMs();
    this.stall(durationMs, { cause: 'request', ...described });
  }

  /**
   * One metadata-apply slice ran synchronously for `durationMs`: logged (`cause: "metadata.apply"`)
   * and counted as a stall when it reached the threshold (`work` is only called then).
   */
  noteMetadataApply(work: () => MetadataApplyWork, durationMs: number): void {
    if (!this.enabled || durationMs < this.thresholdMs) return;
    const described = work();
    this.lastAttributedEndMs = this.time.monotonicMs();
    this.stall(durationMs, { cause: 'metadata.apply', ...described });
  }

  /** Starts the late-tick check (idempotent). */
  start(): void {
    if (!this.enabled || this.timer !== null) return;
    const intervalMs = Math.max(1, Math.floor(this.thresholdMs / 2));
    const schedule = (expectedMs: number): void => {
      this.timer = this.time.setTimeout(() => {
        const now = this.time.monotonicMs();
        const lateMs = now - expectedMs;
        if (lateMs >= this.thresholdMs && this.lastAttributedEndMs < expectedMs) {
          this.unattributedStall(expectedMs, now, this.lastWork?.() ?? null);
        }
        schedule(now + intervalMs);
      }, intervalMs);
    };
    schedule(this.time.monotonicMs() + intervalMs);
  }

  /** Stops the tick, the delay histogram and the GC observer. */
  stop(): void {
    if (this.timer !== null) this.time.clearTimeout(this.timer);
    this.timer = null;
    this.delayMonitor?.stop();
    this.gcPauses?.stop();
  }

  /** A late tick over [fromMs, toMs] with no known work: logged once the GC pauses in it are known. */
  private unattributedStall(fromMs: number, toMs: number, lastRequest: StallWork | null): void {
    const lateMs = toMs - fromMs;
    const gcPauses = this.gcPauses;
    if (gcPauses === undefined) {
      this.stall(lateMs, { cause: 'unattributed', lastRequest });
      return;
    }
    this.time.setTimeout(() => {
      const gcMs = Math.round(gcPauses.pausedMsBetween(fromMs, toMs));
      this.stall(lateMs, { cause: gcMs * 2 >= lateMs ? 'gc' : 'unattributed', gcMs, lastRequest });
    }, 0);
  }

  /** The counters (see {@link EventLoopMetrics}). */
  metrics(): EventLoopMetrics {
    return {
      stallCount: this.stalls,
      maxStallMs: this.maxStall,
      maxDelayMs: this.delayMonitor?.maxMs() ?? 0,
      p99DelayMs: this.delayMonitor?.percentileMs(99) ?? 0,
    };
  }

  private stall(durationMs: number, fields: Record<string, unknown>): void {
    this.stalls++;
    this.maxStall = Math.max(this.maxStall, durationMs);
    const what = fields.cause === 'request'
      ? `${String(fields.api)} from client ${JSON.stringify(fields.clientId)} (${String(fields.partitions)} partition(s))`
      : fields.cause === 'metadata.apply'
        ? `applying metadata (${String(fields.op)} of ${String(fields.partitions)} partition(s) of topic ${String(fields.topic)})`
        : fields.cause === 'gc'
          ? `garbage collection (${String(fields.gcMs)} ms of pauses)`
          : fields.gcMs === undefined ? 'no known request' : `no known request (${String(fields.gcMs)} ms of it garbage collection)`;
    this.logger.warn(
      { event: 'event_loop.stall', durationMs: Math.round(durationMs), thresholdMs: this.thresholdMs, ...fields },
      `the event loop was blocked for ${Math.round(durationMs)} ms by ${what} (event.loop.stall.threshold.ms ${this.thresholdMs})`,
    );
  }
}

/**
 * Partitions a decoded request names, for the stall line: its `topics` (or `topicData`) entries'
 * `partitions` / `partitionData` (Produce) / `partitionIndexes` lengths, or their `numPartitions` / `count` (CreateTopics,
 * CreatePartitions); 0 when it has none of these.
 */
export function requestPartitionCount(request: unknown): number {
  if (typeof request !== 'object' || request === null) return 0;
  const record = request as Record<string, unknown>;
  const topics = record.topics ?? record.topicData;
  if (!Array.isArray(topics)) return 0;
  let total = 0;
  for (const topic of topics as unknown[]) {
    if (typeof topic !== 'object' || topic === null) continue;
    const t = topic as Record<string, unknown>;
    if (Array.isArray(t.partitions)) total += t.partitions.length;
    else if (Array.isArray(t.partitionData)) total += t.partitionData.length;
    else if (Array.isArray(t.partitionIndexes)) total += t.partitionIndexes.length;
    else if (typeof t.numPartitions === 'number') total += Math.max(0, t.numPartitions);
    else if (typeof t.count === 'number') total += Math.max(0, t.count);
  }
  return total;
}
