/**
 * Encoded all-topics Metadata answers, reused while the cluster metadata they were built from is
 * unchanged (issue 15: at 50,000 partitions building and encoding one such answer held the event
 * loop 100-260 ms, so a few clients polling all topics stalled everyone).
 *
 * What an all-topics answer holds comes from the broker's MetadataCache alone (topics, partitions
 * with leader, leader epoch, replicas, ISR, the live brokers and their endpoints, the controller,
 * the cluster id); the cache counts its writes (MetadataCache.generation), and every entry here
 * belongs to one reading of that count: when it moves, every entry is dropped before anything is
 * answered, so no answer is ever older than the metadata a fresh build would see. Within one
 * generation an answer still differs by what the request chose, which is the entry's key: API
 * version, listener (the brokers' endpoints), and at v8 the two include-authorized-operations
 * flags. allow_auto_topic_creation plays no part (auto-creation never applies to all topics).
 *
 * An entry is the response body as the generated encoder writes it, with throttle_time_ms (the
 * first field from v3) left out: each request gets its own 4 bytes in front (the response header,
 * with its correlation id, is the dispatcher's). Entries are shared by every response that sends
 * them and never written to after they are stored.
 *
 * Bounded by `metadata.response.cache.max.bytes` (bytes of stored bodies; the oldest entries are
 * dropped first; a body larger than the bound is answered but not kept; 0 keeps nothing).
 */

/** Which answer a request asks for, within one generation of the metadata. */
export interface MetadataAnswerKey {
  readonly apiVersion: number;
  readonly listenerName: string;
  /** The topic_authorized_operations value answered (-2^31 when not asked for). */
  readonly topicAuthorizedOperations: number;
  /** The cluster_authorized_operations value answered (-2^31 when not asked for). */
  readonly clusterAuthorizedOperations: number;
}

export interface MetadataResponseCacheOptions {
  /** metadata.response.cache.max.bytes: bytes of stored bodies; 0 stores nothing. */
  readonly maxBytes: number;
  /** The metadata's change count (MetadataCache.generation): equal readings mean nothing changed. */
  readonly generation: () => number;
}

/** The encoded all-topics answers of one broker (see the file header). */
export class MetadataResponseCache {
  private readonly maxBytes: number;
  private readonly generation: () => number;
  /** The generation the entries were built at. */
  private builtAt = -1;
  /** Key text → body without throttle_time_ms; insertion order is age order. */
  private readonly bodies = new Map<string, Buffer>();
  private storedBytes = 0;
  /** Answers built (misses), for tests and benchmarks. */
  builds = 0;

  constructor(options: MetadataResponseCacheOptions) {
    if (!(options.maxBytes >= 0)) throw new RangeError(`metadata.response.cache.max.bytes must be >= 0, got ${options.maxBytes}`);
    this.maxBytes = options.maxBytes;
    this.generation = options.generation;
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
   * The body for `key` at the current generation, built with `encode` when there is none.
   * `encode` returns the whole body as the generated encoder writes it for `key.apiVersion`
   * (throttle_time_ms included from v3); the result leaves throttle_time_ms out (see the file
   * header) and must not be written to.
   */
  body(key: MetadataAnswerKey, encode: () => Buffer): Buffer {
    const generation = this.generation();
    if (generation !== this.builtAt) {
      this.bodies.clear();
      this.storedBytes = 0;
      this.builtAt = generation;
    }
    const text = `${key.apiVersion} ${key.topicAuthorizedOperations} ${key.clusterAuthorizedOperations} ${key.listenerName}`;
    const stored = this.bodies.get(text);
    if (stored !== undefined) return stored;
    this.builds++;
    const encoded = encode();
    const skip = key.apiVersion >= THROTTLE_TIME_VERSION ? THROTTLE_TIME_BYTES : 0;
    // A copy of exactly its size: the encoder's buffer may be up to twice as large.
    const body = Buffer.allocUnsafeSlow(encoded.length - skip);
    encoded.copy(body, 0, skip);
    if (body.length <= this.maxBytes) this.store(text, body);
    return body;
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

  private store(text: string, body: Buffer): void {
    for (const [oldest, old] of this.bodies) {
      if (this.storedBytes + body.length <= this.maxBytes) break;
      this.bodies.delete(oldest);
      this.storedBytes -= old.length;
    }
    this.bodies.set(text, body);
    this.storedBytes += body.length;
  }
}

/** Metadata responses carry throttle_time_ms (int32, first body field) from v3. */
const THROTTLE_TIME_VERSION = 3;
const THROTTLE_TIME_BYTES = 4;
