/**
 * Kafka's ReplicaFetcherThread (with AbstractFetcherThread's loop): the follower side of
 * replication for the partitions one source broker leads (and whose hash picks this fetcher).
 * One Fetch at a time; each round:
 *
 *   build: one Fetch v12 with replica_id = this broker, max_wait = replica.fetch.wait.max.ms,
 *     min_bytes, max_bytes = replica.fetch.response.max.bytes, and per ready partition
 *     fetch_offset = the replica's log end offset, last_fetched_epoch = its latest epoch,
 *     current_leader_epoch = the epoch of the metadata, partition_max_bytes = replica.fetch.max.bytes
 *   send → the leader answers (or times out / disconnects: every partition of the round waits
 *     replica.fetch.backoff.ms)
 *   per partition, if it is still the one we asked for (same state, same log end offset):
 *     NONE + DivergingEpoch (KIP-320) → truncate the divergent tail (below), fetch again
 *     NONE → append the batches as they are (Partition.appendRecordsAsFollower: no re-encoding,
 *            the core validates them), then take the leader's high watermark and log start offset
 *     OFFSET_OUT_OF_RANGE → ask the leader (ListOffsets): its log end below ours (an unclean
 *            election) → truncate to it; its log start above our end → truncateFullyAndStartAt(it)
 *     FENCED_LEADER_EPOCH → parked (our epoch is older than the leader's: the metadata will move)
 *     NOT_LEADER_OR_FOLLOWER, UNKNOWN_LEADER_EPOCH (the leader has not seen our epoch yet),
 *            UNKNOWN_TOPIC_OR_PARTITION, others → wait replica.fetch.backoff.ms, then retry
 *     an append refused (CORRUPT_MESSAGE, KAFKA_STORAGE_ERROR, ...) → parked, logged
 *   yield the event loop (Time.defer), next round. With no partition ready, wait until the
 *   first backoff ends (at most replica.fetch.backoff.ms) or a partition is added.
 *
 * Divergence (Kafka's getOffsetTruncationState): the leader says epoch E ended at offset L.
 * If our log knows E, truncate to min(L, our end of E); if it only knows an older epoch E' < E,
 * truncate to our end of E' (the next fetch, with E' as last fetched epoch, finds the rest); if it
 * knows none, truncate to L. Never above our log end offset.
 *
 * Bounds: one response's appends are bounded by max_bytes (plus one whole batch per partition);
 * the loop yields between rounds. Time and timers come from the Environment's Time.
 */
import type { Time, TimerHandle } from '../io/environment.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { LeaderEndPoint, ReplicaFetchPartition, ReplicaFetchPartitionData } from './leader-end-point.js';
import { type FetcherPartition, PartitionFetchState } from './partition-fetch-state.js';

/** The Fetch sizes and waits of replica fetchers (ReplicaFetcherConfig's fields, ms and bytes). */
export interface ReplicaFetchSettings {
  readonly replicaFetchWaitMaxMs: number;
  readonly replicaFetchMinBytes: number;
  readonly replicaFetchMaxBytes: number;
  readonly replicaFetchResponseMaxBytes: number;
  readonly replicaFetchBackoffMs: number;
}

/** The logger calls a fetcher makes (pino's shape). */
export interface FetcherLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface ReplicaFetcherOptions {
  /** `ReplicaFetcherThread-<fetcherId>-<leaderId>`, as Kafka names its threads. */
  readonly name: string;
  /** This broker's node.id (the Fetch's replica_id). */
  readonly replicaId: number;
  readonly leader: LeaderEndPoint;
  readonly settings: ReplicaFetchSettings;
  readonly time: Time;
  readonly logger: FetcherLogger;
}

/** What one Fetch asked of one partition, to recognise its answer. */
interface Asked {
  readonly state: PartitionFetchState;
  readonly fetchOffset: number;
}

/** One fetcher: {@link addPartitions}, {@link start}, {@link shutdown}. */
export class ReplicaFetcher {
  readonly name: string;
  private readonly options: ReplicaFetcherOptions;
  private readonly states = new Map<string, PartitionFetchState>();
  private running: Promise<void> | null = null;
  private stopped = false;
  /** Wakes an idle wait (a partition added, shutdown). */
  private wake: (() => void) | null = null;
  private rounds = 0;

  constructor(options: ReplicaFetcherOptions) {
    this.name = options.name;
    this.options = options;
  }

  /** The source broker's id. */
  get leaderId(): number {
    return this.options.leader.brokerId;
  }

  /** Fetch rounds answered so far (diagnostics and tests). */
  get completedRounds(): number {
    return this.rounds;
  }

  /** Partitions held, any state. */
  get partitionCount(): number {
    return this.states.size;
  }

  /** The fetch state of `topic-partition`, or undefined (diagnostics and tests). */
  fetchState(topic: string, partition: number): PartitionFetchState | undefined {
    return this.states.get(`${topic}-${partition}`);
  }

  /**
   * Starts (or restarts) fetching these partitions under the given leader epochs. A partition
   * already held under the same epoch and replica keeps its state (a delay or park stands);
   * otherwise it starts fetching afresh.
   */
  addPartitions(entries: readonly { replica: FetcherPartition; leaderEpoch: number }[]): void {
    for (const { replica, leaderEpoch } of entries) {
      const key = `${replica.topic}-${replica.partition}`;
      const existing = this.states.get(key);
      if (existing !== undefined && existing.replica === replica && existing.currentLeaderEpoch === leaderEpoch) continue;
      this.states.set(key, new PartitionFetchState(replica, leaderEpoch));
    }
    this.wakeUp();
  }

  /** Stops fetching these partitions (an answer in flight for them is dropped). */
  removePartitions(keys: readonly { topic: string; partition: number }[]): void {
    for (const { topic, partition } of keys) this.states.delete(`${topic}-${partition}`);
  }

  /** Starts the loop (once). */
  start(): void {
    if (this.running !== null || this.stopped) return;
    this.running = this.run().catch((error: unknown) => {
      // A bug (an assertion in the partition): the fetcher stops, loudly.
      this.options.logger.error({ fetcher: this.name, err: error }, 'replica fetcher failed; it stops');
    });
  }

  /**
   * Stops the loop. A Fetch in flight is not waited for: its answer is dropped when it comes (the
   * loop checks after every wait), so nothing is written to the replicas after this returns.
   */
  shutdown(): void {
    this.stopped = true;
    this.wakeUp();
  }

  private async run(): Promise<void> {
    const { time } = this.options;
    while (!this.stopped) {
      const asked = this.readyPartitions();
      if (asked.length === 0) {
        await this.idle();
        continue;
      }
      await this.fetchOnce(asked);
      this.rounds++;
      // One round's appends ran in this turn: let the event loop serve others before the next.
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        time.defer(() => {
          this.wake = null;
          resolve();
        });
      });
    }
  }

  /** Sends one Fetch for `asked` and handles the answer. */
  private async fetchOnce(asked: readonly Asked[]): Promise<void> {
    const { settings, leader, time, logger } = this.options;
    const partitions: ReplicaFetchPartition[] = asked.map(({ state, fetchOffset }) => ({
      topic: state.replica.topic,
      partition: state.replica.partition,
      fetchOffset,
      currentLeaderEpoch: state.currentLeaderEpoch,
      lastFetchedEpoch: state.replica.latestEpoch,
      logStartOffset: state.replica.logStartOffset,
      partitionMaxBytes: settings.replicaFetchMaxBytes,
    }));
    const result = await leader.fetch({
      replicaId: this.options.replicaId,
      maxWaitMs: settings.replicaFetchWaitMaxMs,
      minBytes: settings.replicaFetchMinBytes,
      maxBytes: settings.replicaFetchResponseMaxBytes,
      partitions,
    });
    if (this.stopped) return;
    if (result.kind !== 'response' || result.body.errorCode !== ErrorCode.NONE) {
      const reason = result.kind === 'response' ? `error code ${result.body.errorCode}` : result.kind === 'disconnected' ? result.reason : 'timeout';
      logger.warn({ fetcher: this.name, leaderId: leader.brokerId, reason }, `fetch from broker ${leader.brokerId} failed; backing off`);
      const until = time.monotonicMs() + settings.replicaFetchBackoffMs;
      for (const { state } of asked) state.delay(until);
      return;
    }
    const answers = new Map<string, ReplicaFetchPartitionData>();
    for (const data of result.body.partitions) answers.set(`${data.topic}-${data.partition}`, data);
    for (const entry of asked) {
      const data = answers.get(entry.state.key);
      // Removed, re-added, or written since the request left: this answer is not for it any more.
      if (data === undefined || !this.isCurrent(entry)) continue;
      await this.processPartition(entry.state, data);
    }
  }

  private async processPartition(state: PartitionFetchState, data: ReplicaFetchPartitionData): Promise<void> {
    const { logger } = this.options;
    switch (data.errorCode) {
      case ErrorCode.NONE:
        if (data.divergingEpoch !== null) this.truncateOnDivergence(state, data.divergingEpoch);
        else this.appendAndAdvance(state, data);
        return;
      case ErrorCode.OFFSET_OUT_OF_RANGE:
        await this.handleOutOfRange(state);
        return;
      case ErrorCode.FENCED_LEADER_EPOCH:
        // The leader is in a newer epoch than our metadata: wait for the metadata to catch up.
        state.park(`the leader fenced epoch ${state.currentLeaderEpoch}`);
        logger.info({ fetcher: this.name, partition: state.key, leaderEpoch: state.currentLeaderEpoch },
          `${state.key}: leader epoch ${state.currentLeaderEpoch} is fenced; waiting for newer metadata`);
        return;
      default:
        // NOT_LEADER_OR_FOLLOWER / UNKNOWN_LEADER_EPOCH: the leader has not applied the metadata
        // we have (or has moved on); retried after the backoff, as Kafka does.
        logger.info({ fetcher: this.name, partition: state.key, errorCode: data.errorCode }, `${state.key}: fetch error ${data.errorCode}; retrying after backoff`);
        this.delay(state);
    }
  }

  /** Appends the answer's batches and takes the leader's high watermark and log start offset. */
  private appendAndAdvance(state: PartitionFetchState, data: ReplicaFetchPartitionData): void {
    const replica = state.replica;
    const records = data.records;
    if (records !== null && records.length > 0) {
      let result = replica.appendRecordsAsFollower(records);
      if (result.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE && this.startsMidBatch(replica, records)) {
        // The leader's log start fell inside a batch (DeleteRecords): an empty replica starts at that batch (as Kafka's
        // UnexpectedAppendOffsetException handling does).
        replica.truncateFullyAndStartAt(firstBatchBaseOffset(records));
        result = replica.appendRecordsAsFollower(records);
      }
      if (result.errorCode !== ErrorCode.NONE) {
        state.park(`append failed with error code ${result.errorCode}`);
        this.options.logger.error({ fetcher: this.name, partition: state.key, errorCode: result.errorCode },
          `${state.key}: the leader's batches could not be appended (error ${result.errorCode}); not fetching it until the metadata moves`);
        return;
      }
    }
    if (data.highWatermark >= 0) replica.updateFollowerHighWatermark(data.highWatermark);
    if (data.logStartOffset >= 0) replica.updateFollowerLogStartOffset?.(data.logStartOffset);
  }

  private startsMidBatch(replica: FetcherPartition, records: Uint8Array): boolean {
    if (replica.logStartOffset !== replica.logEndOffset || records.length < 8) return false;
    return firstBatchBaseOffset(records) < replica.logEndOffset;
  }

  /** KIP-320 truncation (the file header's rule). */
  private truncateOnDivergence(state: PartitionFetchState, diverging: { epoch: number; endOffset: number }): void {
    const replica = state.replica;
    const logEndOffset = replica.logEndOffset;
    const ours = replica.endOffsetForEpoch(diverging.epoch);
    let target: number;
    if (ours === null) target = diverging.endOffset;
    else if (ours.leaderEpoch !== diverging.epoch) target = ours.endOffset;
    else target = Math.min(diverging.endOffset, ours.endOffset);
    target = Math.max(0, Math.min(target, logEndOffset));
    this.options.logger.info(
      { fetcher: this.name, partition: state.key, divergingEpoch: diverging.epoch, leaderEndOffset: diverging.endOffset, logEndOffset, truncateTo: target },
      `${state.key}: log diverges from the leader after epoch ${diverging.epoch}; truncating to ${target}`,
    );
    replica.truncateTo(target);
  }

  /**
   * OFFSET_OUT_OF_RANGE (Kafka's fetchOffsetAndTruncate): the leader's end below ours → truncate
   * to it; the leader's start above our end → start afresh there. Anything else: retry.
   */
  private async handleOutOfRange(state: PartitionFetchState): Promise<void> {
    const { leader, logger } = this.options;
    const { topic, partition } = state.replica;
    const fetchOffset = state.replica.logEndOffset;
    const latest = await leader.fetchLatestOffset(topic, partition, state.currentLeaderEpoch);
    if (!this.isCurrent({ state, fetchOffset })) return;
    if (latest.kind !== 'response' || latest.body.errorCode !== ErrorCode.NONE) {
      this.delay(state);
      return;
    }
    if (latest.body.offset < fetchOffset) {
      logger.warn({ fetcher: this.name, partition: state.key, leaderEndOffset: latest.body.offset, logEndOffset: fetchOffset },
        `${state.key}: the leader's log ends at ${latest.body.offset}, before ours (${fetchOffset}); truncating`);
      state.replica.truncateTo(latest.body.offset);
      return;
    }
    const earliest = await leader.fetchEarliestOffset(topic, partition, state.currentLeaderEpoch);
    if (!this.isCurrent({ state, fetchOffset })) return;
    if (earliest.kind !== 'response' || earliest.body.errorCode !== ErrorCode.NONE) {
      this.delay(state);
      return;
    }
    if (earliest.body.offset > fetchOffset) {
      logger.info({ fetcher: this.name, partition: state.key, leaderLogStartOffset: earliest.body.offset, logEndOffset: fetchOffset },
        `${state.key}: the leader's log starts at ${earliest.body.offset}, after our end (${fetchOffset}); starting afresh there`);
      state.replica.truncateFullyAndStartAt(earliest.body.offset);
      return;
    }
    // In range by now (the leader moved meanwhile): fetch again after the backoff.
    this.delay(state);
  }

  private delay(state: PartitionFetchState): void {
    state.delay(this.options.time.monotonicMs() + this.options.settings.replicaFetchBackoffMs);
  }

  private isCurrent(entry: Asked): boolean {
    return !this.stopped && this.states.get(entry.state.key) === entry.state
      && entry.state.kind === 'fetching' && entry.state.replica.logEndOffset === entry.fetchOffset;
  }

  private readyPartitions(): Asked[] {
    const nowMs = this.options.time.monotonicMs();
    const asked: Asked[] = [];
    for (const state of this.states.values()) {
      if (state.isReadyForFetch(nowMs)) asked.push({ state, fetchOffset: state.replica.logEndOffset });
    }
    return asked;
  }

  /** Waits until the first delayed partition is due (at most replica.fetch.backoff.ms) or a wake-up. */
  private idle(): Promise<void> {
    const { time, settings } = this.options;
    const nowMs = time.monotonicMs();
    let waitMs = settings.replicaFetchBackoffMs;
    for (const state of this.states.values()) {
      if (state.kind === 'delayed') waitMs = Math.min(waitMs, Math.max(0, state.delayedUntilMs - nowMs));
    }
    return new Promise<void>((resolve) => {
      let timer: TimerHandle | null = null;
      const done = (): void => {
        if (timer !== null) time.clearTimeout(timer);
        timer = null;
        this.wake = null;
        resolve();
      };
      this.wake = done;
      timer = time.setTimeout(done, waitMs);
    });
  }

  private wakeUp(): void {
    this.wake?.();
  }
}

/** The base offset of the first batch of a records blob (RecordBatch v2: int64 at byte 0). */
function firstBatchBaseOffset(records: Uint8Array): number {
  const view = new DataView(records.buffer, records.byteOffset, records.byteLength);
  return Number(view.getBigInt64(0));
}
