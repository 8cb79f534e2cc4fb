/**
 * The follower side of replication: Kafka's replica fetcher configs (KafkaConfig / ReplicationConfigs
 * of the Kafka 3.9 line), with Kafka's names, defaults and meaning. They size the Fetch requests a
 * follower sends to each partition leader (host/replication/replica-fetcher.ts) and how it waits
 * after a failure. `replica.lag.time.max.ms` (the leader side) stays in broker-config.ts.
 */
import type { ConfigDef, ConfigValue } from './config-def.js';

/** The replica fetcher settings, ms and bytes. */
export interface ReplicaFetcherConfig {
  /** num.replica.fetchers: fetchers per source broker; a partition goes to hash(topic, partition) % this. */
  readonly numReplicaFetchers: number;
  /** replica.fetch.wait.max.ms: Fetch max_wait_ms. */
  readonly replicaFetchWaitMaxMs: number;
  /** replica.fetch.min.bytes: Fetch min_bytes. */
  readonly replicaFetchMinBytes: number;
  /** replica.fetch.max.bytes: Fetch partition_max_bytes (the first batch comes whole even above it). */
  readonly replicaFetchMaxBytes: number;
  /** replica.fetch.response.max.bytes: Fetch max_bytes. */
  readonly replicaFetchResponseMaxBytes: number;
  /** replica.fetch.backoff.ms: the pause after a failed fetch (disconnect, timeout, partition error). */
  readonly replicaFetchBackoffMs: number;
  /** replica.socket.timeout.ms: how long one Fetch may take before the connection is dropped. */
  readonly replicaSocketTimeoutMs: number;
}

/** Kafka's defaults, as numbers (tests and the fetcher's own defaults). */
export const DEFAULT_REPLICA_FETCHER_CONFIG: ReplicaFetcherConfig = {
  numReplicaFetchers: 1,
  replicaFetchWaitMaxMs: 500,
  replicaFetchMinBytes: 1,
  replicaFetchMaxBytes: 1_048_576,
  replicaFetchResponseMaxBytes: 10_485_760,
  replicaFetchBackoffMs: 1_000,
  replicaSocketTimeoutMs: 30_000,
};

/** The definitions, spread into TRIBUTARY_BROKER_CONFIG_DEFS. */
export const REPLICA_FETCHER_CONFIG_DEFS: readonly ConfigDef[] = [
  { name: 'num.replica.fetchers', type: 'INT', defaultValue: '1', min: 1,
    doc: 'Fetchers per source broker; each follows the partitions whose hash falls to it, with one Fetch at a time.' },
  { name: 'replica.fetch.wait.max.ms', type: 'INT', defaultValue: '500', min: 0,
    doc: 'How long a follower\'s Fetch waits at the leader for replica.fetch.min.bytes (below replica.lag.time.max.ms).' },
  { name: 'replica.fetch.min.bytes', type: 'INT', defaultValue: '1', min: 1,
    doc: 'Bytes a follower\'s Fetch waits for at the leader, up to replica.fetch.wait.max.ms.' },
  { name: 'replica.fetch.max.bytes', type: 'INT', defaultValue: '1048576', min: 0,
    doc: 'Bytes a follower fetches per partition per Fetch (the first batch comes whole even if larger).' },
  { name: 'replica.fetch.response.max.bytes', type: 'INT', defaultValue: '10485760', min: 0,
    doc: 'Bytes a follower fetches per Fetch over all its partitions (the first batch comes whole even if larger).' },
  { name: 'replica.fetch.backoff.ms', type: 'INT', defaultValue: '1000', min: 0,
    doc: 'Pause of a follower after a failed Fetch (leader unreachable, partition error).' },
  { name: 'replica.socket.timeout.ms', type: 'INT', defaultValue: '30000',
    doc: 'How long a follower waits for a Fetch response before dropping the connection (at least replica.fetch.wait.max.ms).' },
];

/**
 * The validated settings from parsed values. Kafka refuses replica.socket.timeout.ms below
 * replica.fetch.wait.max.ms (a long poll would always time out); so do we, through `refuse`.
 */
export function assembleReplicaFetcherConfig(
  get: <T extends ConfigValue>(name: string) => T,
  refuse: (key: string, value: string, message: string, accepted: string) => Error,
): ReplicaFetcherConfig {
  const replicaFetchWaitMaxMs = get<number>('replica.fetch.wait.max.ms');
  const replicaSocketTimeoutMs = get<number>('replica.socket.timeout.ms');
  if (replicaSocketTimeoutMs < replicaFetchWaitMaxMs) {
    throw refuse('replica.socket.timeout.ms', String(replicaSocketTimeoutMs),
      `it is below replica.fetch.wait.max.ms ${replicaFetchWaitMaxMs}`, `a value >= ${replicaFetchWaitMaxMs}`);
  }
  return {
    numReplicaFetchers: get('num.replica.fetchers'),
    replicaFetchWaitMaxMs,
    replicaFetchMinBytes: get('replica.fetch.min.bytes'),
    replicaFetchMaxBytes: get('replica.fetch.max.bytes'),
    replicaFetchResponseMaxBytes: get('replica.fetch.response.max.bytes'),
    replicaFetchBackoffMs: get('replica.fetch.backoff.ms'),
    replicaSocketTimeoutMs,
  };
}
