/**
 * Encoded all-topics Metadata answers, reused while the cluster metadata they were built from is
 * unchanged (issue 15: at 50,000 partitions building and encoding one such answer held the event
 * loop 100-260 ms, so a few clients polling all topics stalled everyone).
 *
 * What an all-topics answer holds comes from the broker's MetadataCache alone (topics, partitions
 * with leader, leader epoch, replicas, ISR, the live brokers and their endpoints, the controller,
 * the cluster id); the cache counts its writes (MetadataCache.generation), and every entry here
 * records the reading it was built at: an entry of another reading is never answered, so no
 * answer is ever older than the metadata a fresh build would see. An answer differs by what the
 * request chose, which is the entry's key: API version, listener (the brokers' endpoints), and at
 * v8 the two include-authorized-operations flags. allow_auto_topic_creation plays no part
 * (auto-creation never applies to all topics).
 *
 * Rebuilding after a change costs about the changed topics: TopicStates are frozen and replaced
 * on every change (MetadataCache), so a topic that is the very same object as in the older entry
 * of the key has the same bytes, copied from there, as long as the live brokers (its
 * offline_replicas) are the same too; only the others are encoded.
 *
 * An entry is the response body as the generated encoder writes it, with throttle_time_ms (the
 * first field from v3) left out: each request gets its own 4 bytes in front (the response header,
 * with its correlation id, is the dispatcher's). Bodies are shared by every response that sends
 * them and never written to.
 *
 * Bounded by `metadata.response.cache.max.bytes` (bytes of stored bodies; the oldest entries are
 * dropped first; a body larger than the bound is answered but not kept; 0 keeps nothing).
 */
import type { TopicState } from './cluster-metadata.js';
import { Writer } from '../protocol/writer.js';

/** Which answer a request asks for, within one generation of the metadata. */
export interface MetadataAnswerKey {
  readonly apiVersion: number;
  readonly listenerName: string;
  /** The topic_authorized_operations value answered (-2^31 when not asked for). */
  readonly topicAuthorizedOperations: number;
  /** The cluster_authorized_operations value answered (-2^31 when not asked for). */
  readonly clusterAuthorizedOperations: number;
}

/**
 * What one all-topics answer is made of, as metadata-api.ts encodes it for a key: the body is
 * head, int32 topic count, each topic's bytes, tail.
 */
export interface AllTopicsAnswer {
  /** Every topic answered, in answer order (the metadata cache's name order). */
  readonly topics: readonly TopicState[];
  /**
   * What a topic's bytes depend on besides the topic and the key (the live brokers' ids: they
   * decide offline_replicas and errors); topic bytes are reused only while it is the same.
   */
  readonly topicContext: string;
  /** Writes the body before the topics array: throttle_time_ms (0, from v3), brokers, cluster id, controller id. */
  writeHead(w: Writer): void;
  /** Writes one element of the topics array. */
  writeTopic(w: Writer, topic: TopicState): void;
  /** Writes the body after the topics array (cluster_authorized_operations from v8). */
  writeTail(w: Writer): void;
}

export interface MetadataResponseCacheOptions {
  /** metadata.response.cache.max.bytes: bytes of stored bodies; 0 stores nothing. */
  readonly maxBytes: number;
  /** The metadata's change count (MetadataCache.generation): equal readings mean nothing changed. */
  readonly generation: () => number;
  /**
   * metadata.response.max.partitions.per.turn: partitions a build encodes (not copied) in one
   * event-loop turn before it goes on in a later one through `defer`; absent either: one turn.
   */
  readonly maxPartitionsPerTurn?: number;
  readonly defer?: (task: () => void) => void;
}

/** One stored answer: its body and where each topic's bytes lie in it. */
interface Entry {
  readonly generation: number;
  /** The body without throttle_time_ms. */
  readonly body: Buffer;
  readonly topics: readonly TopicState[];
  readonly topicContext: string;
  /** Offsets in `body` of each topic's bytes, then of the tail (topics.length + 1 entries). */
  readonly topicStarts: Int32Array;
}

/** The encoded all-topics answers of one broker (see the file header). */
export class MetadataResponseCache {
  private readonly maxBytes: number;
  private readonly generation: () => number;
  private readonly maxPartitionsPerTurn: number;
  private readonly defer: ((task: () => void) => void) | undefined;
  /** Key text → entry; insertion order is age order. */
  private readonly entries = new Map<string, Entry>();
  /** Key text → the build going on over several turns, which later requests at its generation share. */
  private readonly building = new Map<string, { readonly generation: number; readonly body: Promise<Buffer> }>();
  private storedBytes = 0;
  /** Answers built (misses), for tests and benchmarks. */
  builds = 0;
  /** Topics whose bytes were copied from an older answer rather than encoded, for tests and benchmarks. */
  topicsReused = 0;

  constructor(options: MetadataResponseCacheOptions) {
    if (!(options.maxBytes >= 0)) throw new RangeError(`metadata.response.cache.max.bytes must be >= 0, got ${options.maxBytes}`);
    this.maxBytes = options.maxBytes;
    this.generation = options.generation;
    this.defer = options.defer;
    this.maxPartitionsPerTurn = options.defer === undefined ? Number.POSITIVE_INFINITY : options.maxPartitionsPerTurn ?? Number.POSITIVE_INFINITY;
  }

  /** False when nothing can be stored (max bytes 0): callers build and encode as before. */
  get enabled(): boolean {
    return this.maxBytes > 0;
  }

  /** Bytes of bodies stored now. */
  get bytes(): number {
    return this.storedBytes;
  }

  /**
   * The body for `key` at the current generation, without throttle_time_ms (see the file header;
   * it must not be written to). Built from `answer()` when the stored one is older, copying the
   * bytes of every topic whose TopicState is the very object the older answer was built from
   * (TopicStates are frozen and replaced on change) while the topic context is the same.
   *
   * A build that encodes more than metadata.response.max.partitions.per.turn partitions goes on
   * in later event-loop turns (a Promise); it answers the metadata as it was when it began
   * (`answer()` is read then: the topic list and its frozen states, the brokers), which is what an
   * answer given at that moment would have held. Requests for the same key and generation
   * meanwhile share it; those of a later generation wait for it and then build from it.
   */
  body(key: MetadataAnswerKey, answer: () => AllTopicsAnswer): Buffer | Promise<Buffer> {
    const generation = this.generation();
    const text = `${key.apiVersion} ${key.topicAuthorizedOperations} ${key.clusterAuthorizedOperations} ${key.listenerName}`;
    const stored = this.entries.get(text);
    if (stored !== undefined && stored.generation === generation) return stored.body;
    const going = this.building.get(text);
    if (going !== undefined) {
      if (going.generation === generation) return going.body;
      // One build per key at a time (a metadata churn must not start one per request): after the
      // older one, build from it, which copies all but what changed since.
      return going.body.catch(() => undefined).then(() => this.body(key, answer));
    }
    this.builds++;
    const steps = this.build(key.apiVersion, generation, answer(), stored);
    const first = steps.next();
    if (first.done === true) return this.finish(text, first.value);
    const body = new Promise<Buffer>((resolve, reject) => {
      const run = (): void => {
        try {
          const step = steps.next();
          if (step.done !== true) {
            this.defer!(run);
            return;
          }
          if (this.building.get(text)?.body === body) this.building.delete(text);
          resolve(this.finish(text, step.value));
        } catch (error) {
          if (this.building.get(text)?.body === body) this.building.delete(text);
          reject(error);
        }
      };
      this.defer!(run);
    });
    this.building.set(text, { generation, body });
    return body;
  }

  /** Stores a built entry unless a newer one is there; returns its body. */
  private finish(text: string, entry: Entry): Buffer {
    const stored = this.entries.get(text);
    if (stored !== undefined && stored.generation > entry.generation) return entry.body;
    if (stored !== undefined) {
      this.entries.delete(text);
      this.storedBytes -= stored.body.length;
    }
    if (entry.body.length <= this.maxBytes) this.store(text, entry);
    return entry.body;
  }

  /**
   * The body chunks of one response: its own throttle_time_ms (from v3), then the shared `body`
   * from {@link body}.
   */
  static responseChunks(apiVersion: number, throttleTimeMs: number, body: Buffer): Buffer[] {
    if (apiVersion < THROTTLE_TIME_VERSION) return [body];
    const throttle = Buffer.allocUnsafe(THROTTLE_TIME_BYTES);
    throttle.writeInt32BE(throttleTimeMs, 0);
    return [throttle, body];
  }

  /** Builds an entry; yields (to go on in a later turn) after each maxPartitionsPerTurn partitions encoded. */
  private *build(apiVersion: number, generation: number, answer: AllTopicsAnswer, older: Entry | undefined): Generator<void, Entry> {
    const { topics, topicContext } = answer;
    const reusable = older !== undefined && older.topicContext === topicContext ? older : undefined;
    const w = new Writer(reusable === undefined ? 64 * 1024 : reusable.body.length + 1024);
    answer.writeHead(w);
    const skip = apiVersion >= THROTTLE_TIME_VERSION ? THROTTLE_TIME_BYTES : 0;
    w.arrayLength(topics.length);
    const topicStarts = new Int32Array(topics.length + 1);
    // Reused topics that follow each other in the older body are copied as one range [copyFrom, copyTo).
    let copyFrom = 0;
    let copyTo = 0;
    const copyPending = (): void => {
      if (copyTo > copyFrom) w.raw(reusable!.body.subarray(copyFrom, copyTo));
      copyFrom = copyTo = 0;
    };
    let encodedPartitions = 0;
    let j = 0;
    for (let i = 0; i < topics.length; i++) {
      const topic = topics[i]!;
      topicStarts[i] = w.length - skip + (copyTo - copyFrom);
      if (reusable !== undefined) {
        // Both lists are in name order: skip the older answer's topics that are gone.
        const before = reusable.topics;
        while (j < before.length && before[j] !== topic && before[j]!.name < topic.name) j++;
        if (j < before.length && before[j] === topic) {
          const start = reusable.topicStarts[j]!;
          if (copyTo !== start) {
            copyPending();
            copyFrom = start;
          }
          copyTo = reusable.topicStarts[j + 1]!;
          this.topicsReused++;
          j++;
          continue;
        }
      }
      copyPending();
      answer.writeTopic(w, topic);
      encodedPartitions += topic.partitions.length;
      if (encodedPartitions >= this.maxPartitionsPerTurn && i + 1 < topics.length) {
        encodedPartitions = 0;
        yield;
      }
    }
    copyPending();
    topicStarts[topics.length] = w.length - skip;
    answer.writeTail(w);
    // A copy of exactly its size: the writer's buffer may be up to twice as large.
    const body = Buffer.allocUnsafeSlow(w.length - skip);
    w.buf.copy(body, 0, skip, w.length);
    return { generation, body, topics, topicContext, topicStarts };
  }

  private store(text: string, entry: Entry): void {
    for (const [oldest, old] of this.entries) {
      if (this.storedBytes + entry.body.length <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.storedBytes -= old.body.length;
    }
    this.entries.set(text, entry);
    this.storedBytes += entry.body.length;
  }
}

/** Metadata responses carry throttle_time_ms (int32, first body field) from v3. */
const THROTTLE_TIME_VERSION = 3;
const THROTTLE_TIME_BYTES = 4;
