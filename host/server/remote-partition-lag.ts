/**
 * Consumer lag of the partitions a group coordinator does not lead (issue 14 in a cluster): their
 * last stable offset, log start offset and the timestamp of the oldest unconsumed record come from
 * the partition leaders, asked over the inter-broker listener (`inter.broker.listener.name`), the
 * way kminion or Burrow ask a Kafka cluster from outside:
 *
 * - ListOffsets v2 (replica_id -1, as a consumer) with timestamp -1 and READ_COMMITTED: the last
 *   stable offset; with timestamp -2: the log start offset. One request of each per leader.
 * - Fetch v12 (replica_id -1, READ_COMMITTED, max_wait 0, min_bytes 0) at the offsets whose record
 *   timestamp the lag monitor asked for: the first batch's header gives the timestamp
 *   (log/batch-timestamp.ts `fetchedBatchTimestamp`, the rule the local read uses). At most
 *   {@link LAG_FETCH_PARTITION_MAX_BYTES} per partition and {@link LAG_FETCH_MAX_BYTES} per request
 *   (the first partition's first batch may exceed them, as Fetch v3+ returns one whole batch
 *   first, KIP-74); the partition whose timestamp was read longest ago goes first, so a large
 *   batch is read in a later round instead of never.
 *
 * Never on the request path and never blocking a sample: the monitor's synchronous sample reads the
 * cache ({@link RemotePartitionLag.partition}: unknown until the first answer), and at its end
 * ({@link RemotePartitionLag.sampled}) one refresh round starts in the background unless one is
 * still running; a round asks for at most `consumer.lag.remote.max.partitions` partitions with a
 * remote leader (those refreshed longest ago first). Requests wait at most the sample interval
 * (1 s to 30 s). A partition not asked for in a sample is forgotten; values older than two sample
 * intervals plus the request timeout count as unknown (a leader that stopped answering shows no
 * lag, not a stale one).
 */
import { fetchedBatchTimestamp } from '../log/batch-timestamp.js';
import type { LagPartitionSource } from '../metrics/consumer-lag-monitor.js';
import type { Network, RandomSource, Time } from '../io/environment.js';
import { NodeChannels, type NodeEndpoint } from '../network/node-channels.js';
import { FETCH_API, LIST_OFFSETS_API } from '../network/remote-apis.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';

/** Most bytes one partition may answer a timestamp Fetch with (all but the first partition: KIP-74). */
export const LAG_FETCH_PARTITION_MAX_BYTES = 64 * 1024;
/** Most bytes one timestamp Fetch may answer with. */
export const LAG_FETCH_MAX_BYTES = 1024 * 1024;
const LIST_OFFSETS_VERSION = 2;
const FETCH_VERSION = 12;
const READ_COMMITTED = 1;
const LATEST_TIMESTAMP = -1;
const EARLIEST_TIMESTAMP = -2;
const CONSUMER_REPLICA_ID = -1;

/** What {@link RemotePartitionLag} needs from the broker (its metadata cache, channels, configs). */
export interface RemotePartitionLagOptions {
  /** This broker's node.id (a partition it leads is read locally, never asked for). */
  readonly nodeId: number;
  readonly time: Pick<Time, 'nowMs'>;
  /** The channels the requests go on (owned by the caller, who closes them). */
  readonly channels: NodeChannels;
  /** The partition's leader from the metadata cache; undefined while unknown. */
  leaderOf(topic: string, partition: number): number | undefined;
  /** The leader's inter-broker endpoint from its registration; undefined while unknown. */
  endpointOf(brokerId: number): NodeEndpoint | undefined;
  /** consumer.lag.sample.interval.ms */
  readonly sampleIntervalMs: number;
  /** consumer.lag.remote.max.partitions: most partitions one refresh round asks for. */
  readonly maxPartitions: number;
}

interface Entry {
  readonly topic: string;
  readonly partition: number;
  lastStableOffset: number;
  logStartOffset: number;
  /** When the offsets were last answered, ms; -1 never. */
  refreshedAtMs: number;
  /** The offset whose record timestamp is known (-1: none) and the timestamp, ms. */
  timestampOffset: number;
  timestampMs: number;
  /** The offset the monitor asked a timestamp for and is not known yet (-1: none). */
  wantedOffset: number;
  /** When a timestamp was last read for this partition, ms; -1 never (orders the Fetch: longest without first). */
  timestampReadAtMs: number;
  /** Asked for by the current sample. */
  asked: boolean;
}

/** The cache of leaders' answers and its background refresh; see the file header. */
export class RemotePartitionLag {
  private readonly entries = new Map<string, Entry>();
  private refreshing: Promise<void> | null = null;
  private readonly requestTimeoutMs: number;

  constructor(private readonly options: RemotePartitionLagOptions) {
    this.requestTimeoutMs = Math.min(30_000, Math.max(1_000, options.sampleIntervalMs));
  }

  /**
   * The leader's view of a partition as last answered, or null while unknown (never answered,
   * or older than the staleness limit). Marks the partition as wanted by this sample.
   */
  partition(topic: string, partition: number): LagPartitionSource | null {
    const key = `${topic}\u0000${partition}`;
    let entry = this.entries.get(key);
    if (entry === undefined) {
      entry = { topic, partition, lastStableOffset: -1, logStartOffset: -1, refreshedAtMs: -1, timestampOffset: -1, timestampMs: -1, wantedOffset: -1, timestampReadAtMs: -1, asked: true };
      this.entries.set(key, entry);
    }
    entry.asked = true;
    const staleAfterMs = 2 * this.options.sampleIntervalMs + this.requestTimeoutMs;
    if (entry.refreshedAtMs < 0 || this.options.time.nowMs() - entry.refreshedAtMs > staleAfterMs) return null;
    const known = entry;
    return {
      lastStableOffset: known.lastStableOffset,
      logStartOffset: known.logStartOffset,
      timestampAt: (offset) => {
        if (known.timestampOffset === offset) return known.timestampMs;
        known.wantedOffset = offset;
        return null;
      },
    };
  }

  /**
   * The end of a sample: forgets the partitions it did not ask for and starts a refresh round in
   * the background unless one is running. The returned promise (for tests) settles when the round
   * does; it never rejects.
   */
  sampled(): Promise<void> {
    for (const [key, entry] of this.entries) {
      if (!entry.asked) this.entries.delete(key);
      entry.asked = false;
    }
    if (this.refreshing !== null) return this.refreshing;
    // Only partitions with a remote leader take places in the round: a leaderless one is never
    // refreshed, so it would sort first and, in numbers, keep every other partition waiting.
    const askable: { entry: Entry; leader: number }[] = [];
    for (const entry of this.entries.values()) {
      const leader = this.options.leaderOf(entry.topic, entry.partition);
      if (leader !== undefined && leader >= 0 && leader !== this.options.nodeId) askable.push({ entry, leader });
    }
    const round = askable.sort((a, b) => a.entry.refreshedAtMs - b.entry.refreshedAtMs).slice(0, this.options.maxPartitions);
    const byLeader = new Map<number, Entry[]>();
    for (const { entry, leader } of round) {
      let list = byLeader.get(leader);
      if (list === undefined) byLeader.set(leader, list = []);
      list.push(entry);
    }
    if (byLeader.size === 0) return Promise.resolve();
    const refreshing = Promise.all([...byLeader].map(([leader, entries]) => this.refreshLeader(leader, entries).catch(() => undefined)))
      .then(() => undefined)
      .finally(() => {
        this.refreshing = null;
      });
    this.refreshing = refreshing;
    return refreshing;
  }

  private async refreshLeader(leader: number, entries: Entry[]): Promise<void> {
    const endpoint = this.options.endpointOf(leader);
    if (endpoint === undefined) return;
    this.options.channels.setEndpoint(leader, endpoint);
    const [latest, earliest] = await Promise.all([
      this.listOffsets(leader, entries, LATEST_TIMESTAMP, READ_COMMITTED),
      this.listOffsets(leader, entries, EARLIEST_TIMESTAMP, 0),
    ]);
    const nowMs = this.options.time.nowMs();
    for (const entry of entries) {
      const end = latest.get(`${entry.topic}\u0000${entry.partition}`);
      const start = earliest.get(`${entry.topic}\u0000${entry.partition}`);
      if (end === undefined || start === undefined) continue;
      entry.lastStableOffset = end;
      entry.logStartOffset = start;
      entry.refreshedAtMs = nowMs;
    }
    const wanted = entries
      .filter((e) => e.wantedOffset >= 0 && e.wantedOffset !== e.timestampOffset && e.wantedOffset < e.lastStableOffset)
      .sort((a, b) => a.timestampReadAtMs - b.timestampReadAtMs);
    if (wanted.length > 0) await this.fetchTimestamps(leader, wanted);
  }

  /** Offsets by `topic\0partition` for the partitions the leader answered without error. */
  private async listOffsets(leader: number, entries: readonly Entry[], timestamp: number, isolationLevel: number): Promise<Map<string, number>> {
    const result = await this.options.channels.send(leader, LIST_OFFSETS_API, LIST_OFFSETS_VERSION, {
      replicaId: CONSUMER_REPLICA_ID,
      isolationLevel,
      topics: [...byTopic(entries)].map(([name, list]) => ({ name, partitions: list.map((e) => ({ partitionIndex: e.partition, timestamp })) })),
    }, this.requestTimeoutMs);
    const offsets = new Map<string, number>();
    if (result.kind !== 'response') return offsets;
    for (const topic of result.body.topics) {
      for (const p of topic.partitions) {
        if (p.errorCode === ErrorCode.NONE && p.offset >= 0) offsets.set(`${topic.name}\u0000${p.partitionIndex}`, p.offset);
      }
    }
    return offsets;
  }

  /** Reads the timestamp of the batch at each entry's wanted offset (entries in request order). */
  private async fetchTimestamps(leader: number, entries: readonly Entry[]): Promise<void> {
    const asked = new Map(entries.map((e) => [`${e.topic}\u0000${e.partition}`, { entry: e, offset: e.wantedOffset }]));
    const result = await this.options.channels.send(leader, FETCH_API, FETCH_VERSION, {
      replicaId: CONSUMER_REPLICA_ID,
      maxWaitMs: 0,
      minBytes: 0,
      maxBytes: LAG_FETCH_MAX_BYTES,
      isolationLevel: READ_COMMITTED,
      sessionId: 0,
      sessionEpoch: -1,
      topics: [...byTopic(entries)].map(([topic, list]) => ({
        topic,
        partitions: list.map((e) => ({
          partition: e.partition, currentLeaderEpoch: -1, fetchOffset: e.wantedOffset, lastFetchedEpoch: -1,
          logStartOffset: -1, partitionMaxBytes: LAG_FETCH_PARTITION_MAX_BYTES,
        })),
      })),
    }, this.requestTimeoutMs);
    if (result.kind !== 'response' || result.body.errorCode !== ErrorCode.NONE) return;
    for (const topic of result.body.responses) {
      for (const p of topic.partitions) {
        const found = asked.get(`${topic.topic}\u0000${p.partitionIndex}`);
        if (found === undefined || p.errorCode !== ErrorCode.NONE || p.records === null) continue;
        const batch = fetchedBatchTimestamp(p.records);
        // NO_TIMESTAMP (-1) batches give no age; the entry stays wanted only if the monitor asks again.
        if (batch === null) continue;
        found.entry.timestampReadAtMs = this.options.time.nowMs();
        if (found.entry.wantedOffset === found.offset) found.entry.wantedOffset = -1;
        if (batch.timestampMs < 0) continue;
        found.entry.timestampOffset = found.offset;
        found.entry.timestampMs = batch.timestampMs;
      }
    }
  }
}

/** `entries` grouped by topic, topics in first-seen order, each topic's entries in input order. */
function byTopic(entries: readonly Entry[]): Map<string, Entry[]> {
  const topics = new Map<string, Entry[]>();
  for (const entry of entries) {
    let list = topics.get(entry.topic);
    if (list === undefined) topics.set(entry.topic, list = []);
    list.push(entry);
  }
  return topics;
}

/** What {@link createRemotePartitionLag} builds its channels from besides the lag options. */
export interface OwnedChannelsOptions {
  /** The channels' client.id (e.g. `broker-1-consumer-lag`). */
  readonly clientId: string;
  readonly random: RandomSource;
  readonly network: Network;
}

/**
 * A RemotePartitionLag over inter-broker channels of its own (request timeout: the sample interval
 * within 1–30 s); `close()` closes the channels. What the broker builds on first need
 * (lazy-remote-partition-lag.ts).
 */
export function createRemotePartitionLag(
  options: Omit<RemotePartitionLagOptions, 'channels' | 'time'> & OwnedChannelsOptions & { readonly time: Time },
): { readonly lag: RemotePartitionLag; close(): void } {
  const channels = new NodeChannels({
    clientId: options.clientId,
    time: options.time,
    random: options.random,
    network: options.network,
    requestTimeoutMs: Math.min(30_000, Math.max(1_000, options.sampleIntervalMs)),
  });
  return { lag: new RemotePartitionLag({ ...options, channels }), close: () => channels.close() };
}
