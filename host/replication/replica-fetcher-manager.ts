/**
 * Kafka's ReplicaFetcherManager (AbstractFetcherManager): the follower partitions of this broker,
 * grouped into fetchers by (leader broker, fetcher id), where the fetcher id of a partition is
 * Kafka's `abs(31 * topic.hashCode() + partition) % num.replica.fetchers` (Java's String.hashCode),
 * so a partition always lands on the same fetcher of its leader.
 *
 * `addFetcherForPartitions` moves a partition to the fetcher of its (new) leader, creating and
 * starting that fetcher when needed; `removeFetcherForPartitions` stops fetching (the broker became
 * leader, or no longer hosts the partition); fetchers left without partitions are shut down
 * (Kafka's shutdownIdleFetcherThreads). `shutdown` stops them all.
 */
import type { Time } from '../io/environment.js';
import type { LeaderEndPoint } from './leader-end-point.js';
import type { FetcherPartition } from './partition-fetch-state.js';
import { type FetcherLogger, ReplicaFetcher, type ReplicaFetchSettings } from './replica-fetcher.js';

export interface ReplicaFetcherManagerOptions {
  /** This broker's node.id. */
  readonly brokerId: number;
  /** num.replica.fetchers and the Fetch settings (ReplicaFetcherConfig). */
  readonly settings: ReplicaFetchSettings & { readonly numReplicaFetchers: number };
  readonly time: Time;
  /** The connection to a source broker for one fetcher (each fetcher has its own in Kafka). */
  leaderEndPoint(leaderId: number, fetcherId: number): LeaderEndPoint;
  readonly logger: FetcherLogger;
}

/** One follower partition to fetch: the replica, its leader and the leader epoch of the metadata. */
export interface FollowerFetchTarget {
  readonly replica: FetcherPartition;
  readonly leaderId: number;
  readonly leaderEpoch: number;
}

/** The fetchers of this broker, by `leaderId/fetcherId`. */
export class ReplicaFetcherManager {
  private readonly options: ReplicaFetcherManagerOptions;
  private readonly fetchers = new Map<string, ReplicaFetcher>();
  /** `topic-partition` → the fetcher holding it. */
  private readonly fetcherOf = new Map<string, ReplicaFetcher>();
  private closed = false;

  constructor(options: ReplicaFetcherManagerOptions) {
    this.options = options;
  }

  /** Kafka's getFetcherId: which of a leader's fetchers follows `topic`-`partition`. */
  fetcherId(topic: string, partition: number): number {
    return Math.abs((Math.imul(31, javaStringHashCode(topic)) + partition) | 0) % this.options.settings.numReplicaFetchers;
  }

  /** Fetches each target from its leader (moving it off the fetcher of a former leader). */
  addFetcherForPartitions(targets: readonly FollowerFetchTarget[]): void {
    if (this.closed) return;
    const byFetcher = new Map<ReplicaFetcher, { replica: FetcherPartition; leaderEpoch: number }[]>();
    for (const target of targets) {
      const { topic, partition } = target.replica;
      const key = `${topic}-${partition}`;
      const fetcher = this.fetcherFor(target.leaderId, this.fetcherId(topic, partition));
      const previous = this.fetcherOf.get(key);
      if (previous !== undefined && previous !== fetcher) previous.removePartitions([{ topic, partition }]);
      this.fetcherOf.set(key, fetcher);
      let list = byFetcher.get(fetcher);
      if (list === undefined) byFetcher.set(fetcher, list = []);
      list.push({ replica: target.replica, leaderEpoch: target.leaderEpoch });
    }
    for (const [fetcher, entries] of byFetcher) fetcher.addPartitions(entries);
    this.shutdownIdleFetchers();
  }

  /** Stops fetching these partitions. */
  removeFetcherForPartitions(partitions: readonly { topic: string; partition: number }[]): void {
    for (const { topic, partition } of partitions) {
      const key = `${topic}-${partition}`;
      this.fetcherOf.get(key)?.removePartitions([{ topic, partition }]);
      this.fetcherOf.delete(key);
    }
    this.shutdownIdleFetchers();
  }

  /** The leader a partition is fetched from, or undefined when it is not fetched. */
  leaderOf(topic: string, partition: number): number | undefined {
    return this.fetcherOf.get(`${topic}-${partition}`)?.leaderId;
  }

  /** The fetcher of `topic`-`partition` (diagnostics and tests). */
  fetcherOfPartition(topic: string, partition: number): ReplicaFetcher | undefined {
    return this.fetcherOf.get(`${topic}-${partition}`);
  }

  /** Running fetchers (diagnostics and tests). */
  get fetcherCount(): number {
    return this.fetchers.size;
  }

  /** Stops every fetcher (nothing is written to a replica after this returns); later adds are ignored. */
  shutdown(): void {
    this.closed = true;
    for (const fetcher of this.fetchers.values()) fetcher.shutdown();
    this.fetchers.clear();
    this.fetcherOf.clear();
  }

  private fetcherFor(leaderId: number, fetcherId: number): ReplicaFetcher {
    const id = `${leaderId}/${fetcherId}`;
    let fetcher = this.fetchers.get(id);
    if (fetcher === undefined) {
      const { brokerId, settings, time, logger } = this.options;
      fetcher = new ReplicaFetcher({
        name: `ReplicaFetcherThread-${fetcherId}-${leaderId}`,
        replicaId: brokerId,
        leader: this.options.leaderEndPoint(leaderId, fetcherId),
        settings,
        time,
        logger,
      });
      this.fetchers.set(id, fetcher);
      fetcher.start();
    }
    return fetcher;
  }

  private shutdownIdleFetchers(): void {
    for (const [id, fetcher] of this.fetchers) {
      if (fetcher.partitionCount > 0) continue;
      this.fetchers.delete(id);
      fetcher.shutdown();
    }
  }
}

/** Java's String.hashCode (UTF-16 code units, 32-bit wrap). */
function javaStringHashCode(text: string): number {
  let hash = 0;
  for (let i = 0; i < text.length; i++) hash = (Math.imul(31, hash) + text.charCodeAt(i)) | 0;
  return hash;
}
