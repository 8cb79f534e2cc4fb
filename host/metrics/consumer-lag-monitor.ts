/**
 * Consumer lag computed by the broker (what Burrow and kminion do outside Kafka, issue 14): every
 * `consumer.lag.sample.interval.ms` the monitor samples the groups this broker coordinates, and for
 * each partition a group committed an offset for computes
 *
 * - lag in offsets: the partition's last stable offset (the high watermark while no transaction is
 *   open) minus the committed offset, at least 0;
 * - lag in seconds: now minus the timestamp of the oldest unconsumed record, the one at the
 *   committed offset (or at the log start when retention removed it), read from its batch header
 *   (host/log/batch-timestamp.ts); 0 without lag;
 * - a status over the sliding window `consumer.lag.window.ms` (consumer-lag-status.ts): OK,
 *   WARNING, STALLED, STOPPED, per partition and per group.
 *
 * Bounded work: a sample reads at most `consumer.lag.max.timestamp.reads` batch headers, one per
 * partition whose committed offset moved since its timestamp was read (the timestamp at an offset
 * never changes, so it is cached per partition); partitions past the budget keep their previous
 * timestamp until a later sample (the starting group rotates so none starves). Histories hold at
 * most window / interval + 2 samples per partition, and groups or partitions that disappear are
 * forgotten at the next sample. A sample ends its event-loop turn once it has read
 * `consumer.lag.max.partitions.per.turn` group partitions (a group is sampled whole, its committed
 * offsets read in that turn; the groups themselves are listed once): a broker coordinating 1,000 groups of 500 partitions samples
 * over 100 turns, other clients served between them, and the reports of the previous sample stay
 * in force until the last slice. A sample still running when the next is due is not doubled.
 *
 * In a cluster the sources answer for partitions led by other brokers from what those leaders last
 * answered (host/server/remote-partition-lag.ts, refreshed in the background after each sample);
 * a partition whose offsets are not known (yet) has unknown lag (null) and counts as OK. Time comes
 * from the broker's Time.
 */
import type { Time, TimerHandle } from '../io/environment.js';
import { type ConsumerStatus, PartitionLagHistory, worseStatus } from './consumer-lag-status.js';

/** A group as the coordinator knows it. */
export interface LagGroupSource {
  readonly groupId: string;
  /** Kafka's group state: Empty, PreparingRebalance, CompletingRebalance, Stable, Dead. */
  readonly state: string;
  /** The group's committed offsets. */
  readonly committed: readonly { topic: string; partition: number; offset: number }[];
}

/** This broker's replica of a partition, as lag needs it. */
export interface LagPartitionSource {
  /** The last stable offset (the high watermark while no transaction is open). */
  readonly lastStableOffset: number;
  readonly logStartOffset: number;
  /** The timestamp of the record at `offset` (batch-timestamp.ts), ms; null when unknown. */
  timestampAt(offset: number): number | null;
}

/** What the monitor reads; called once per sample. */
export interface ConsumerLagSources {
  /**
   * The groups this broker coordinates (with committed offsets or not); each group's `committed`
   * may be read lazily (it is read once, in the turn that samples the group).
   */
  groups(): readonly LagGroupSource[];
  /** The partition's offsets and timestamps (the local leader's, or a remote leader's as last answered); null while unknown. */
  partition(topic: string, partition: number): LagPartitionSource | null;
  /** Called at the end of every sample (a source refreshing in the background starts its next round here). */
  sampled?(): void;
}

/** One group partition's lag at the last sample. */
export interface PartitionLagReport {
  readonly topic: string;
  readonly partition: number;
  readonly committedOffset: number;
  /** The last stable offset consumers read up to; null while unknown. */
  readonly endOffset: number | null;
  /** endOffset - committedOffset (at least 0); null when unknown. */
  readonly lag: number | null;
  /** Seconds since the oldest unconsumed record was written; 0 without lag, null when unknown. */
  readonly lagSeconds: number | null;
  readonly status: ConsumerStatus;
}

/** One group's lag and status at the last sample. */
export interface GroupLagReport {
  readonly groupId: string;
  /** Kafka's group state at the sample. */
  readonly state: string;
  /** The worst partition status (OK for a group without committed offsets). */
  readonly status: ConsumerStatus;
  /** Sum of the known partition lags, offsets. */
  readonly totalLag: number;
  /** The largest known partition lag in seconds (0 when none). */
  readonly maxLagSeconds: number;
  /** By topic, then partition. */
  readonly partitions: readonly PartitionLagReport[];
  /** When the sample was taken, ms since the epoch. */
  readonly sampledAtMs: number;
  /** consumer.lag.window.ms the status was judged over. */
  readonly windowMs: number;
}

export interface ConsumerLagMonitorOptions {
  readonly time: Pick<Time, 'nowMs' | 'setTimeout' | 'clearTimeout'>;
  readonly sources: ConsumerLagSources;
  /** consumer.lag.sample.interval.ms */
  readonly sampleIntervalMs: number;
  /** consumer.lag.window.ms */
  readonly windowMs: number;
  /** consumer.lag.max.timestamp.reads */
  readonly maxTimestampReads: number;
  /** consumer.lag.max.partitions.per.turn: group partitions sampled per event-loop turn; absent (or no defer): all in one. */
  readonly maxPartitionsPerTurn?: number;
  /** Runs a task in a later event-loop turn (Time.defer); absent: a sample runs in one turn. */
  readonly defer?: (task: () => void) => void;
}

interface PartitionState {
  /** The sample that last saw this group partition (older ones are swept at the end of a sample). */
  seenIn: number;
  readonly history: PartitionLagHistory;
  /** The offset whose record timestamp is cached (-1: none yet). */
  timestampOffset: number;
  timestampMs: number;
}

/** Groups that have no member: nobody consumes their partitions. */
const MEMBERLESS_STATES = new Set(['Empty', 'Dead']);

export class ConsumerLagMonitor {
  private readonly partitions = new Map<string, PartitionState>();
  private reports = new Map<string, GroupLagReport>();
  /** {@link describeGroups}' sorted list of the last sample, made on first use (a scrape reads it once per family). */
  private sortedReports: readonly GroupLagReport[] | null = null;
  private timer: TimerHandle | null = null;
  private rotation = 0;
  /** Counts samples: what PartitionState.seenIn is stamped with. */
  private sampleCount = 0;
  /** A sample is running over several turns. */
  private sampling = false;
  /** Bumped by stop(): a sample running over turns stops at its next slice. */
  private generation = 0;

  constructor(private readonly options: ConsumerLagMonitorOptions) {}

  /** Samples now and then every sample interval, until {@link stop}. */
  start(): void {
    if (this.timer !== null) return;
    const tick = (): void => {
      this.sample();
      this.timer = this.options.time.setTimeout(tick, this.options.sampleIntervalMs);
    };
    this.timer = this.options.time.setTimeout(tick, 0);
  }

  stop(): void {
    if (this.timer !== null) this.options.time.clearTimeout(this.timer);
    this.timer = null;
    this.generation++;
    this.sampling = false;
  }

  /**
   * Every group's report at the last sample, by group id: one list per sample, sorted on first
   * use and shared by the later calls until the next sample (`/metrics` reads it once per
   * consumer-group family, seven times a scrape).
   */
  describeGroups(): readonly GroupLagReport[] {
    this.sortedReports ??= [...this.reports.values()].sort((a, b) => (a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0));
    return this.sortedReports;
  }

  /** One group's report at the last sample; undefined when this broker does not coordinate it (or before the first sample). */
  describeGroup(groupId: string): GroupLagReport | undefined {
    return this.reports.get(groupId);
  }

  /**
   * Takes one sample (the timer calls it; tests may too): at once when it reads no more than
   * maxPartitionsPerTurn group partitions, else over several turns through `defer`; the new
   * reports replace the old ones after the last. Does nothing while a sample is running.
   */
  sample(): void {
    if (this.sampling) return;
    const steps = this.sampleSteps();
    const generation = this.generation;
    const step = (): void => {
      if (generation !== this.generation) return;
      if (steps.next().done === true) {
        this.sampling = false;
        return;
      }
      this.sampling = true;
      this.options.defer!(step);
    };
    step();
  }

  /** One sample; yields where a turn's maxPartitionsPerTurn is spent (never without `defer`). */
  private *sampleSteps(): Generator<void, void, void> {
    const { time, sources, windowMs, defer } = this.options;
    const perTurn = defer === undefined ? Number.POSITIVE_INFINITY : this.options.maxPartitionsPerTurn ?? Number.POSITIVE_INFINITY;
    const nowMs = time.nowMs();
    const groups = sources.groups();
    const reports = new Map<string, GroupLagReport>();
    const sampleId = ++this.sampleCount;
    const budget = { reads: this.options.maxTimestampReads };
    this.rotation = groups.length === 0 ? 0 : (this.rotation + 1) % groups.length;
    let inTurn = 0;
    for (let i = 0; i < groups.length; i++) {
      if (inTurn >= perTurn) {
        yield;
        inTurn = 0;
      }
      const group = groups[(i + this.rotation) % groups.length]!;
      const report = this.sampleGroup(group, nowMs, windowMs, budget, sampleId);
      inTurn += Math.max(1, report.partitions.length);
      reports.set(group.groupId, report);
    }
    if (inTurn >= perTurn) yield;
    // Group partitions this sample did not see are forgotten, in slices too (deleting while iterating a Map is safe).
    for (const [key, state] of this.partitions) {
      if (state.seenIn !== sampleId) this.partitions.delete(key);
      if (++inTurn >= perTurn) {
        yield;
        inTurn = 0;
      }
    }
    this.reports = reports;
    this.sortedReports = null;
    sources.sampled?.();
  }

  private sampleGroup(group: LagGroupSource, nowMs: number, windowMs: number, budget: { reads: number }, sampleId: number): GroupLagReport {
    const hasMembers = !MEMBERLESS_STATES.has(group.state);
    const partitions: PartitionLagReport[] = [];
    let status: ConsumerStatus = 'OK';
    let totalLag = 0;
    let maxLagSeconds = 0;
    for (const { topic, partition, offset } of group.committed) {
      const key = `${group.groupId}\u0000${topic}\u0000${partition}`;
      let state = this.partitions.get(key);
      if (state === undefined) {
        state = { seenIn: sampleId, history: new PartitionLagHistory(), timestampOffset: -1, timestampMs: -1 };
        this.partitions.set(key, state);
      }
      state.seenIn = sampleId;
      const report = this.samplePartition(state, topic, partition, offset, nowMs, windowMs, hasMembers, budget);
      partitions.push(report);
      status = worseStatus(status, report.status);
      totalLag += report.lag ?? 0;
      maxLagSeconds = Math.max(maxLagSeconds, report.lagSeconds ?? 0);
    }
    partitions.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
    return { groupId: group.groupId, state: group.state, status, totalLag, maxLagSeconds, partitions, sampledAtMs: nowMs, windowMs };
  }

  private samplePartition(
    state: PartitionState, topic: string, partition: number, committedOffset: number,
    nowMs: number, windowMs: number, hasMembers: boolean, budget: { reads: number },
  ): PartitionLagReport {
    const replica = this.options.sources.partition(topic, partition);
    if (replica === null) {
      return { topic, partition, committedOffset, endOffset: null, lag: null, lagSeconds: null, status: 'OK' };
    }
    const endOffset = replica.lastStableOffset;
    const lag = Math.max(0, endOffset - committedOffset);
    state.history.add(nowMs, committedOffset, lag, windowMs);
    let lagSeconds: number | null = 0;
    if (lag > 0) {
      // The oldest unconsumed record: at the committed offset, or the log start when retention passed it.
      const oldest = Math.max(committedOffset, replica.logStartOffset);
      if (state.timestampOffset !== oldest && budget.reads > 0) {
        budget.reads--;
        const timestampMs = replica.timestampAt(oldest);
        // NO_TIMESTAMP (-1) batches give no age.
        if (timestampMs !== null && timestampMs >= 0) {
          state.timestampOffset = oldest;
          state.timestampMs = timestampMs;
        }
      }
      lagSeconds = state.timestampOffset < 0 ? null : Math.max(0, nowMs - state.timestampMs) / 1000;
    }
    const status = state.history.evaluate(nowMs, windowMs, hasMembers);
    return { topic, partition, committedOffset, endOffset, lag, lagSeconds, status };
  }
}
