/**
 * The `/json` sessions' `listTopics`, shared by every session of a gateway (issue 15). Each
 * session used to ask its own in-process client for an all-topics Metadata answer and keep it:
 * at 50,000 partitions a decoded answer is tens of MB of objects, and 20 sockets sending
 * `listTopics` every 10 ms held 20 of them at once, pushed the broker past 2.5 GB and into a
 * garbage-collection spiral that stopped it answering for minutes. Now one Cluster (one metadata
 * cache) serves them all, with at most one all-topics request in flight: a call made while one is
 * in flight waits for the next, which starts when it ends and answers every call made meanwhile
 * (so an answer is never older than the call: a topic created before `listTopics` is in it).
 *
 * In a broker the read is not even a request: `metadataTopicFetcher` maps the broker's own
 * MetadataCache (its sorted topic array, replaced on every change; the mapped list is kept until
 * it is replaced). A trial showed why: one shared all-topics decode at a time, back to back, still
 * kept a 50,000-partition broker at 100% CPU for minutes behind 60,000 queued `listTopics`.
 * `clusterTopicFetcher` (an in-process client's Metadata request) remains for sessions without one.
 */
import { Cluster } from '../clients/cluster.js';
import type { TransportFactory } from '../clients/transport/transport.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';

/** One topic of the list: its name and partition count. */
export interface JsonTopicEntry {
  readonly name: string;
  readonly partitions: number;
}

export class SharedTopicList {
  private inFlight: Promise<readonly JsonTopicEntry[]> | null = null;
  private next: Promise<readonly JsonTopicEntry[]> | null = null;

  /** @param fetchTopics one all-topics read (clusterTopicFetcher over the broker's handler) */
  constructor(private readonly fetchTopics: () => Promise<readonly JsonTopicEntry[]>) {}

  /**
   * The cluster's non-internal topics, in name order, as of a read that began after this call.
   * @throws what `fetchTopics` throws (a ConnectionError when the broker cannot be reached)
   */
  list(): Promise<readonly JsonTopicEntry[]> {
    if (this.inFlight === null) return this.start();
    this.next ??= this.inFlight.then(() => undefined, () => undefined).then(() => {
      this.next = null;
      return this.start();
    });
    return this.next;
  }

  private start(): Promise<readonly JsonTopicEntry[]> {
    const fetching = this.fetchTopics().finally(() => {
      if (this.inFlight === fetching) this.inFlight = null;
    });
    this.inFlight = fetching;
    return fetching;
  }
}

/** A topic as the broker's MetadataCache has it. */
export interface MetadataTopicLike {
  readonly name: string;
  readonly isInternal: boolean;
  readonly partitions: { readonly length: number };
}

/**
 * Reads the topics from the broker's metadata (`topics`: MetadataCache.topics(), name order in
 * JavaScript string order): the non-internal ones with their partition counts, mapped once per
 * array the cache hands out.
 */
export function metadataTopicFetcher(topics: () => readonly MetadataTopicLike[]): () => Promise<readonly JsonTopicEntry[]> {
  let source: readonly MetadataTopicLike[] | null = null;
  let mapped: readonly JsonTopicEntry[] = [];
  return () => {
    const current = topics();
    if (current !== source) {
      source = current;
      mapped = current.filter((topic) => !topic.isInternal).map((topic) => ({ name: topic.name, partitions: topic.partitions.length }));
    }
    return Promise.resolve(mapped);
  };
}

/**
 * Reads the topics through one in-process client (one metadata cache, made on first use): its
 * non-internal topics in name order (localeCompare, as sessions always answered).
 * @param transportFactory the in-process transport over the broker's handler
 * @param requestTimeoutMs request.timeout.ms of that client, ms
 */
export function clusterTopicFetcher(transportFactory: TransportFactory, requestTimeoutMs: number | undefined): () => Promise<readonly JsonTopicEntry[]> {
  let cluster: Cluster | null = null;
  return async () => {
    cluster ??= new Cluster({
      bootstrapServers: ['in-process:1'],
      clientId: 'json-gateway-topics',
      transportFactory,
      allowAutoTopicCreation: false,
      ...(requestTimeoutMs === undefined ? {} : { requestTimeoutMs }),
    });
    const metadata = await cluster.refreshMetadata(null);
    return metadata.topics
      .filter((topic) => topic.errorCode === ErrorCode.NONE && !topic.isInternal)
      .map((topic) => ({ name: topic.name, partitions: topic.partitions.length }))
      .sort((a, b) => a.name.localeCompare(b.name));
  };
}
