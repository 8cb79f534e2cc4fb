/**
 * Broker configuration: Kafka's names, types and defaults (KafkaConfig / ServerLogConfigs of the
 * Kafka 3.9 line) where Tributary honours them, loaded from a `server.properties` file and
 * `--override key=value` pairs (overrides win), validated up front.
 *
 * Where Tributary's default differs from Kafka's, the definition's doc says so:
 * - `node.id` 1 and `process.roles` broker,controller (Kafka: required, no default): a single
 *   node with an embedded controller runs with no config at all;
 * - `log.dir` ./.tributary-data (Kafka: /tmp/kafka-logs);
 * - `max.connections` 10000 (Kafka: 2147483647): every limit is bounded here;
 * - `offsets.topic.replication.factor` 3 as Kafka, but capped by the live brokers when the topic
 *   is created (Kafka refuses to create it until enough brokers are registered).
 *
 * Unknown keys are refused (Kafka only warns): a typo in a config name would otherwise silently
 * run with the default. Every other Kafka broker config (generated from Kafka's ConfigDefs, see
 * kafka-config-catalog.ts) is accepted with Kafka's type and validator, so a Kafka
 * server.properties loads; it has no effect, and says why (`noEffect`).
 */
import { type Disk, isDiskError, NodeDisk, readWholeFile } from '../io/disk.js';
import {
  ConfigDef,
  ConfigValue,
  INT_MAX,
  LONG_MAX_TEXT,
  parseConfigValue,
  suggestConfigNames,
} from './config-def.js';
import { ConfigError } from './config-error.js';
import {
  HostPort,
  Listener,
  QuorumVoter,
  parseHostPort,
  parseListener,
  parseQuorumVoter,
  type SecurityProtocol,
  securityMapEntry,
} from './listeners.js';
import { parsePropertiesEntries } from './server-properties.js';
import { parseAllowedOrigin } from './allowed-origins.js';
import { NO_EFFECT_CONFIG_DEFS } from './no-effect-configs.js';
import { kafkaBrokerConfigs, kafkaOnlyConfigDefs, LISTENER_PREFIXED_CONFIG, noEffectReason } from './kafka-config-catalog.js';
import { LazilyCompletedMap } from './lazily-completed-map.js';
import { RAFT_CONFIG_DEFS, raftSettings } from './raft-configs.js';
import { assembleListeners, inconsistent } from './listener-assembly.js';
import { CONSOLE_CONFIG_DEFS, type ConsoleConfig, consoleConfig } from './console-config.js';
import { LEADER_BALANCE_CONFIG_DEFS, type LeaderBalanceConfig, leaderBalanceConfig } from './leader-balance-config.js';
import { assembleReplicaFetcherConfig, REPLICA_FETCHER_CONFIG_DEFS, type ReplicaFetcherConfig } from './replica-fetcher-config.js';
import { LIMIT_CONFIG_DEFS, type LimitConfigs, limitConfigs } from './limit-configs.js';
import { METRICS_CONFIG_DEFS, type MetricsConfig, metricsConfig } from './metrics-configs.js';
import { TRANSACTION_CONFIG_DEFS, type TransactionConfigs, transactionConfigs } from './transaction-configs.js';
import type { TopicCompressionType } from '../log/log-config.js';

export { parseServerProperties, parsePropertiesEntries } from './server-properties.js';
export type { PropertiesEntry } from './server-properties.js';
export type { Listener, HostPort, QuorumVoter, SecurityProtocol } from './listeners.js';
export { parseListener, formatListener, resolveAdvertisedListeners } from './listeners.js';


/** pino's levels, plus `silent`. */
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
export const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

const MS_PER_MINUTE = 60_000;
const MS_PER_HOUR = 3_600_000;

function listCheck(parse: (item: string) => unknown): (value: ConfigValue) => string | null {
  return (value) => {
    for (const item of value as readonly string[]) {
      try {
        parse(item);
      } catch (error) {
        if (error instanceof ConfigError) return error.message;
        throw error;
      }
    }
    return null;
  };
}

/** http.allowed.origins: each entry an origin, `null` or `*` (parseAllowedOrigin). */
function originListCheck(value: ConfigValue): string | null {
  for (const item of value as readonly string[]) {
    try {
      parseAllowedOrigin(item);
    } catch (error) {
      return (error as Error).message;
    }
  }
  return null;
}

/**
 * The broker configs Tributary implements (and the hand-described no-effect ones), in reference
 * order. Kafka names; `doc` is one line.
 */
export const TRIBUTARY_BROKER_CONFIG_DEFS: readonly ConfigDef[] = [
  // Node identity and roles (KRaft)
  { name: 'node.id', type: 'INT', defaultValue: '1', min: 0,
    doc: 'The node id of this server in the cluster (Tributary default 1; Kafka requires it to be set).' },
  { name: 'broker.id', type: 'INT', defaultValue: null, min: 0,
    doc: 'Legacy name for the node id: without node.id it sets node.id (as Kafka does); if both are set they must be equal.' },
  { name: 'process.roles', type: 'LIST', defaultValue: 'broker,controller', oneOf: ['broker', 'controller'], nonEmpty: true,
    doc: 'The roles this node plays: broker, controller, or both (combined mode, Tributary default).' },
  { name: 'controller.quorum.voters', type: 'LIST', defaultValue: '',
    check: listCheck(parseQuorumVoter), accepted: 'a comma-separated list of id@host:port, or empty',
    doc: 'The KRaft voter set as id@host:port; empty runs a single-node embedded controller.' },
  ...RAFT_CONFIG_DEFS,
  { name: 'controller.listener.names', type: 'LIST', defaultValue: '',
    doc: 'Names of the listeners used by the controller; they are not advertised to clients.' },
  { name: 'broker.heartbeat.interval.ms', type: 'INT', defaultValue: '2000', min: 1,
    doc: 'How often a broker sends BrokerHeartbeat to the active controller, in milliseconds (multi-node KRaft).' },
  { name: 'broker.session.timeout.ms', type: 'INT', defaultValue: '9000', min: 1,
    doc: 'The active controller fences a broker it has not heard a heartbeat from for this long, in milliseconds.' },
  { name: 'broker.rack', type: 'STRING', defaultValue: null,
    doc: 'Rack of this broker, reported in Metadata responses; new partitions place their replicas on distinct racks (rack-aware assignment), leaders spread over the brokers.' },

  // Listeners
  { name: 'listeners', type: 'LIST', defaultValue: 'PLAINTEXT://127.0.0.1:9092', nonEmpty: true,
    check: listCheck(parseListener), accepted: 'a comma-separated list of NAME://host:port (port 0 picks a free port)',
    doc: 'Kafka protocol listeners as NAME://host:port; an empty host binds every interface, port 0 a free port.' },
  { name: 'advertised.listeners', type: 'LIST', defaultValue: null,
    check: listCheck(parseListener), accepted: 'a comma-separated list of NAME://host:port',
    doc: 'Listeners published to clients in Metadata; defaults to listeners (without controller listeners).' },
  { name: 'listener.security.protocol.map', type: 'LIST',
    defaultValue: 'PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL',
    check: listCheck(securityMapEntry), accepted: 'a comma-separated list of LISTENER_NAME:PROTOCOL',
    doc: 'Security protocol per listener name; Tributary speaks PLAINTEXT only so far.' },
  { name: 'http.listeners', type: 'LIST', defaultValue: '127.0.0.1:8080',
    check: listCheck((item) => parseHostPort(item)), accepted: 'a comma-separated list of host:port, or empty to disable',
    doc: 'Tributary-only: host:port endpoints of the HTTP server (health, metrics, WebSocket gateway); empty disables it.' },
  { name: 'http.allowed.origins', type: 'LIST', defaultValue: '',
    check: originListCheck, accepted: 'a comma-separated list of origins scheme://host[:port], null, or *',
    doc: 'Tributary-only: browser pages (Origin header) allowed to open WebSockets on http.listeners besides those on localhost, 127.0.0.1, [::1] or the listener\'s own host; other origins get HTTP 403; clients sending no Origin are always allowed; * allows every origin.' },
  ...CONSOLE_CONFIG_DEFS,

  // Network limits
  { name: 'socket.request.max.bytes', type: 'INT', defaultValue: '104857600', min: 1,
    doc: 'The largest request frame accepted, in bytes; a larger frame closes the connection.' },
  { name: 'connections.max.idle.ms', type: 'LONG', defaultValue: '600000',
    doc: 'Idle connections are closed after this many milliseconds (negative disables); a request in flight keeps a connection open unless its peer has ended its side (TCP FIN), so a departed client\'s long poll cannot hold a connection longer.' },
  { name: 'max.connections', type: 'INT', defaultValue: '10000', min: 0,
    doc: 'Maximum open client connections; further connections are refused (Tributary default 10000; Kafka 2147483647).' },
  { name: 'message.max.bytes', type: 'INT', defaultValue: '1048588', min: 0,
    doc: 'The largest record batch accepted, in bytes (the topic-level max.message.bytes default).' },
  { name: 'fetch.max.bytes', type: 'INT', defaultValue: '57671680', min: 1024,
    doc: 'The most bytes one Fetch response returns, whatever the request asks.' },
  ...LIMIT_CONFIG_DEFS,

  // Topics
  { name: 'num.partitions', type: 'INT', defaultValue: '1', min: 1,
    doc: 'Partitions of auto-created topics and of CreateTopics requests that give -1.' },
  { name: 'default.replication.factor', type: 'INT', defaultValue: '1', min: 1,
    doc: 'Replication factor of auto-created topics and of CreateTopics requests that give -1.' },
  { name: 'min.insync.replicas', type: 'INT', defaultValue: '1', min: 1,
    doc: 'Minimum in-sync replicas for acks=all produce (the topic-level default).' },
  { name: 'auto.create.topics.enable', type: 'BOOLEAN', defaultValue: 'true',
    doc: 'Create a topic (num.partitions, default.replication.factor) when a Metadata request that allows it names one that does not exist, at most auto.create.topics.max.per.request per request; a Produce to an unknown topic answers UNKNOWN_TOPIC_OR_PARTITION and creates nothing, as in Kafka (clients ask Metadata first).' },
  { name: 'delete.topic.enable', type: 'BOOLEAN', defaultValue: 'true',
    doc: 'Allow DeleteTopics; when false it answers TOPIC_DELETION_DISABLED.' },
  { name: 'unclean.leader.election.enable', type: 'BOOLEAN', defaultValue: 'false',
    doc: 'Allow a replica outside the ISR to become leader (may lose data).' },
  { name: 'replica.lag.time.max.ms', type: 'LONG', defaultValue: '30000', min: 0,
    doc: 'A follower that has not caught up for this long leaves the ISR.' },
  ...LEADER_BALANCE_CONFIG_DEFS,
  { name: 'inter.broker.listener.name', type: 'STRING', defaultValue: null,
    doc: 'The listener followers fetch from leaders on (the endpoint of that name in each broker registration); default the first non-controller listener.' },
  ...REPLICA_FETCHER_CONFIG_DEFS,
  { name: 'compression.type', type: 'STRING', defaultValue: 'producer', oneOf: ['uncompressed', 'zstd', 'lz4', 'snappy', 'gzip', 'producer'],
    doc: 'Default codec of stored batches (topic compression.type): producer keeps the producer\'s; any other makes leaders recompress.' },
  { name: 'compression.gzip.level', type: 'INT', defaultValue: '-1', min: 1, max: 9, alsoAccepts: [-1],
    doc: 'Default gzip level of recompressed batches (topic compression.gzip.level).' },
  { name: 'compression.lz4.level', type: 'INT', defaultValue: '9', min: 1, max: 17,
    doc: 'Default lz4 level (topic compression.lz4.level; the lz4 encoder here has one level).' },
  { name: 'compression.zstd.level', type: 'INT', defaultValue: '3', min: -131072, max: 22,
    doc: 'Default zstd level of recompressed batches (topic compression.zstd.level).' },
  // Log storage
  { name: 'log.dir', type: 'STRING', defaultValue: './.tributary-data', nonEmpty: true,
    doc: 'The data directory, used when log.dirs is not set (Tributary default ./.tributary-data).' },
  { name: 'log.dirs', type: 'LIST', defaultValue: null, nonEmpty: true,
    doc: 'Comma-separated data directories; overrides log.dir.' },
  { name: 'log.segment.bytes', type: 'INT', defaultValue: '1073741824', min: 14,
    doc: 'Maximum size of one log segment file, in bytes.' },
  { name: 'log.roll.ms', type: 'LONG', defaultValue: null, min: 1,
    doc: 'Roll a new segment after this many milliseconds; overrides log.roll.hours.' },
  { name: 'log.roll.hours', type: 'INT', defaultValue: '168', min: 1,
    doc: 'Roll a new segment after this many hours (used when log.roll.ms is not set).' },
  { name: 'log.retention.ms', type: 'LONG', defaultValue: null, min: -1,
    doc: 'Delete segments older than this many milliseconds, -1 for no limit; overrides minutes and hours.' },
  { name: 'log.retention.minutes', type: 'INT', defaultValue: null, min: -1,
    doc: 'Retention in minutes, used when log.retention.ms is not set; overrides hours.' },
  { name: 'log.retention.hours', type: 'INT', defaultValue: '168', min: -1,
    doc: 'Retention in hours, used when neither log.retention.ms nor log.retention.minutes is set.' },
  { name: 'log.retention.bytes', type: 'LONG', defaultValue: '-1', min: -1,
    doc: 'Delete old segments while a partition is larger than this many bytes, -1 for no limit.' },
  { name: 'log.retention.check.interval.ms', type: 'LONG', defaultValue: '300000', min: 1,
    doc: 'How often retention is checked, in milliseconds.' },
  { name: 'log.cleanup.policy', type: 'LIST', defaultValue: 'delete', oneOf: ['delete', 'compact'], nonEmpty: true,
    doc: 'delete (time/size retention), compact (keep the last record per key), or both.' },
  { name: 'log.cleaner.enable', type: 'BOOLEAN', defaultValue: 'true',
    doc: 'Run the log cleaner, which compacts topics with cleanup.policy=compact.' },
  { name: 'log.cleaner.backoff.ms', type: 'LONG', defaultValue: '15000', min: 0,
    doc: 'How long the cleaner waits after a pass that found no log to compact, in milliseconds (dynamic).' },
  { name: 'log.initial.task.delay.ms', type: 'LONG', defaultValue: '30000', min: 0,
    doc: 'Delay of the first retention pass after start-up, in milliseconds (a Kafka internal config).' },
  { name: 'log.cleaner.delete.retention.ms', type: 'LONG', defaultValue: '86400000', min: 0,
    doc: 'How long delete markers (tombstones) are kept in compacted topics.' },
  { name: 'log.cleaner.min.compaction.lag.ms', type: 'LONG', defaultValue: '0', min: 0,
    doc: 'Minimum age of a record before compaction may remove it.' },
  { name: 'log.cleaner.min.cleanable.ratio', type: 'DOUBLE', defaultValue: '0.5', min: 0, max: 1,
    doc: 'Compact a log once this fraction of it is dirty (not yet compacted).' },
  { name: 'log.index.interval.bytes', type: 'INT', defaultValue: '4096', min: 0,
    doc: 'Bytes of records between two offset index entries.' },
  { name: 'log.index.size.max.bytes', type: 'INT', defaultValue: '10485760', min: 4,
    doc: 'Maximum size of an offset or time index file; a full index rolls the segment.' },
  { name: 'log.flush.interval.messages', type: 'LONG', defaultValue: LONG_MAX_TEXT, min: 1,
    doc: 'fsync a log after this many records (default: never; durability comes from the page cache).' },
  { name: 'log.flush.interval.ms', type: 'LONG', defaultValue: null, min: 0,
    doc: 'fsync a log after this many milliseconds; when unset, log.flush.scheduler.interval.ms.' },
  { name: 'log.flush.scheduler.interval.ms', type: 'LONG', defaultValue: LONG_MAX_TEXT, min: 0,
    doc: 'The flush interval used when log.flush.interval.ms is not set.' },
  { name: 'log.flush.offset.checkpoint.interval.ms', type: 'INT', defaultValue: '60000', min: 0,
    doc: 'How often the recovery-point checkpoint is written, in milliseconds.' },
  { name: 'log.flush.start.offset.checkpoint.interval.ms', type: 'INT', defaultValue: '60000', min: 0,
    doc: 'How often the log-start-offset checkpoint is written, in milliseconds.' },
  { name: 'log.segment.delete.delay.ms', type: 'LONG', defaultValue: '60000', min: 0,
    doc: 'Delay before a deleted segment\'s files are removed from disk.' },
  { name: 'log.message.timestamp.type', type: 'STRING', defaultValue: 'CreateTime', oneOf: ['CreateTime', 'LogAppendTime'],
    doc: 'CreateTime keeps the producer\'s timestamps; LogAppendTime stamps the broker\'s clock.' },
  { name: 'log.message.timestamp.before.max.ms', type: 'LONG', defaultValue: LONG_MAX_TEXT, min: 0,
    doc: 'How far before the broker\'s clock a CreateTime record\'s timestamp may be, in ms (the topic default).' },
  { name: 'log.message.timestamp.after.max.ms', type: 'LONG', defaultValue: LONG_MAX_TEXT, min: 0,
    doc: 'How far after the broker\'s clock a CreateTime record\'s timestamp may be, in ms (the topic default).' },
  { name: 'log.message.timestamp.difference.max.ms', type: 'LONG', defaultValue: LONG_MAX_TEXT, min: 0,
    doc: 'Deprecated (KIP-937): both limits when they are left at their defaults, in ms (the topic default).' },
  { name: 'producer.id.expiration.ms', type: 'INT', defaultValue: '86400000', min: 1,
    doc: 'Producer state of an idle producer id is dropped after this many milliseconds.' },

  // Group coordinator and offsets
  { name: 'offsets.topic.num.partitions', type: 'INT', defaultValue: '50', min: 1,
    doc: 'Partitions of __consumer_offsets (fixed once the topic exists).' },
  { name: 'offsets.topic.replication.factor', type: 'SHORT', defaultValue: '3', min: 1,
    doc: 'Replication factor of __consumer_offsets, capped by the brokers alive when it is created (Kafka refuses instead).' },
  { name: 'offsets.topic.segment.bytes', type: 'INT', defaultValue: '104857600', min: 1,
    doc: 'segment.bytes of __consumer_offsets.' },
  { name: 'offsets.retention.minutes', type: 'INT', defaultValue: '10080', min: 1,
    doc: 'Committed offsets of an empty group expire after this many minutes.' },
  { name: 'offsets.retention.check.interval.ms', type: 'LONG', defaultValue: '600000', min: 1,
    doc: 'How often expired offsets are removed, in milliseconds.' },
  { name: 'offset.metadata.max.bytes', type: 'INT', defaultValue: '4096',
    doc: 'Largest metadata string of an offset commit (OFFSET_METADATA_TOO_LARGE beyond).' },
  { name: 'group.initial.rebalance.delay.ms', type: 'INT', defaultValue: '3000',
    doc: 'How long the first rebalance of an empty group waits for more members to join.' },
  { name: 'group.min.session.timeout.ms', type: 'INT', defaultValue: '6000',
    doc: 'Smallest session timeout a member may ask for.' },
  { name: 'group.max.session.timeout.ms', type: 'INT', defaultValue: '1800000',
    doc: 'Largest session timeout a member may ask for.' },
  { name: 'group.max.size', type: 'INT', defaultValue: String(INT_MAX), min: 1,
    doc: 'Maximum members of one consumer group (GROUP_MAX_SIZE_REACHED beyond).' },

  // Transaction coordinator
  ...TRANSACTION_CONFIG_DEFS,

  // Tributary process
  { name: 'log.level', type: 'STRING', defaultValue: 'info', oneOf: LOG_LEVELS,
    doc: 'Tributary-only: level of the structured (pino) log on stdout.' },
  ...METRICS_CONFIG_DEFS,

  // Kafka configs accepted for compatibility with Kafka's server.properties, without effect
  ...NO_EFFECT_CONFIG_DEFS,
];

/** Tributary's own definitions by name: looked up first, without reading the Kafka config catalog. */
const TRIBUTARY_BROKER_CONFIG_DEF_BY_NAME: ReadonlyMap<string, ConfigDef> = new Map(
  TRIBUTARY_BROKER_CONFIG_DEFS.map((def) => [def.name, def]),
);

let allBrokerConfigDefs: readonly ConfigDef[] | null = null;
let allBrokerConfigDefsByName: ReadonlyMap<string, ConfigDef> | null = null;

/** Every broker config: Tributary's, then Kafka's others (no effect, kafka-config-catalog.ts, read on first call). */
export function brokerConfigDefs(): readonly ConfigDef[] {
  allBrokerConfigDefs ??= [...TRIBUTARY_BROKER_CONFIG_DEFS, ...kafkaOnlyConfigDefs(kafkaBrokerConfigs(), TRIBUTARY_BROKER_CONFIG_DEFS)];
  return allBrokerConfigDefs;
}

/** Every definition of {@link brokerConfigDefs} by name, in that order. Reads the catalog on first call. */
export function brokerConfigDefByName(): ReadonlyMap<string, ConfigDef> {
  allBrokerConfigDefsByName ??= new Map(brokerConfigDefs().map((def) => [def.name, def]));
  return allBrokerConfigDefsByName;
}

/** The definition of a broker config (Tributary's without reading the catalog); undefined when no one has it. */
export function brokerConfigDef(name: string): ConfigDef | undefined {
  return TRIBUTARY_BROKER_CONFIG_DEF_BY_NAME.get(name) ?? brokerConfigDefByName().get(name);
}

/**
 * Prefix of ZooKeeper-mode configs (Kafka's zookeeper.*, KafkaConfig before KIP-500 removed them):
 * an unlisted key with it is accepted without effect, so a ZooKeeper-mode server.properties loads.
 */
export const ZOOKEEPER_CONFIG_PREFIX = 'zookeeper.';

/**
 * Why a broker config set in server.properties has no effect (its def's `noEffect`, or the reason
 * for a zookeeper.* / listener.name.* key accepted by prefix).
 */
export function noEffectReasonOf(name: string): string {
  return brokerConfigDef(name)?.noEffect ?? noEffectReason(name);
}

/**
 * The validated broker configuration: Kafka names camelCased, precedence rules applied
 * (log.retention.ms > minutes > hours; log.roll.ms > hours; log.dirs > log.dir;
 * log.flush.interval.ms > log.flush.scheduler.interval.ms). Durations in ms, sizes in bytes.
 * LONG values above 2^53-1 (Kafka's Long.MAX_VALUE "never") are Number.MAX_SAFE_INTEGER.
 */
export interface BrokerConfig extends LeaderBalanceConfig, LimitConfigs, MetricsConfig, ConsoleConfig, TransactionConfigs {
  readonly nodeId: number;
  readonly processRoles: readonly ('broker' | 'controller')[];
  readonly controllerQuorumVoters: readonly QuorumVoter[];
  readonly controllerListenerNames: readonly string[];
  /** Raft timing (controller.quorum.*), ms. */
  readonly controllerQuorumElectionTimeoutMs: number;
  readonly controllerQuorumFetchTimeoutMs: number;
  readonly controllerQuorumElectionBackoffMaxMs: number;
  readonly controllerQuorumAppendLingerMs: number;
  /** metadata.log.max.record.bytes.between.snapshots: metadata record bytes committed between two controller snapshots. */
  readonly metadataLogMaxRecordBytesBetweenSnapshots: number;
  /** metadata.log.segment.bytes: segment size of a quorum's metadata log. */
  readonly metadataLogSegmentBytes: number;
  readonly controllerQuorumRequestTimeoutMs: number;
  readonly brokerRack: string | null;
  /** Kafka protocol listeners; port 0 = let the OS pick. */
  readonly listeners: readonly Listener[];
  /** What Metadata publishes; port 0 / empty host are resolved against the bound listeners by the broker. */
  readonly advertisedListeners: readonly Listener[];
  /** Listener name -> protocol, for every listener (controller listeners default to PLAINTEXT). */
  readonly listenerSecurityProtocolMap: Readonly<Record<string, SecurityProtocol>>;
  readonly httpListeners: readonly HostPort[];
  /** http.allowed.origins, normalized (see allowed-origins.ts; the gateway's check in host/network/websocket-origin-policy.ts); empty = local pages only. */
  readonly httpAllowedOrigins: readonly string[];
  readonly socketRequestMaxBytes: number;
  readonly connectionsMaxIdleMs: number;
  readonly maxConnections: number;
  readonly messageMaxBytes: number;
  readonly fetchMaxBytes: number;
  readonly numPartitions: number;
  readonly defaultReplicationFactor: number;
  readonly minInsyncReplicas: number;
  readonly autoCreateTopicsEnable: boolean;
  readonly deleteTopicEnable: boolean;
  readonly uncleanLeaderElectionEnable: boolean;
  readonly replicaLagTimeMaxMs: number;
  /** inter.broker.listener.name, else the first listener that is not a controller listener. */
  readonly interBrokerListenerName: string;
  /** num.replica.fetchers, replica.fetch.*, replica.socket.timeout.ms. */
  readonly replicaFetcher: ReplicaFetcherConfig;
  readonly compressionType: TopicCompressionType;
  /** log.dirs, else [log.dir]; paths as written (relative ones are relative to the working directory). */
  readonly logDirs: readonly string[];
  readonly logSegmentBytes: number;
  /** log.roll.ms, else log.roll.hours * 3600000. */
  readonly logRollMs: number;
  /** log.retention.ms, else minutes * 60000, else hours * 3600000; -1 = no time limit. */
  readonly logRetentionMs: number;
  readonly logRetentionBytes: number;
  readonly logRetentionCheckIntervalMs: number;
  readonly logCleanupPolicy: readonly ('delete' | 'compact')[];
  readonly logCleanerEnable: boolean;
  /** log.cleaner.backoff.ms: the cleaner's pause after a pass with nothing to clean, ms. */
  readonly logCleanerBackoffMs: number;
  /** log.initial.task.delay.ms: the first retention pass runs this long after start-up, ms. */
  readonly logInitialTaskDelayMs: number;
  readonly logCleanerDeleteRetentionMs: number;
  readonly logCleanerMinCompactionLagMs: number;
  readonly logCleanerMinCleanableRatio: number;
  readonly logIndexIntervalBytes: number;
  readonly logIndexSizeMaxBytes: number;
  readonly logFlushIntervalMessages: number;
  /** log.flush.interval.ms, else log.flush.scheduler.interval.ms. */
  readonly logFlushIntervalMs: number;
  readonly logFlushOffsetCheckpointIntervalMs: number;
  readonly logFlushStartOffsetCheckpointIntervalMs: number;
  readonly logSegmentDeleteDelayMs: number;
  readonly logMessageTimestampType: 'CreateTime' | 'LogAppendTime';
  readonly producerIdExpirationMs: number;
  readonly offsetsTopicNumPartitions: number;
  readonly offsetsTopicReplicationFactor: number;
  readonly offsetsTopicSegmentBytes: number;
  readonly offsetsRetentionMinutes: number;
  readonly offsetsRetentionCheckIntervalMs: number;
  readonly offsetMetadataMaxBytes: number;
  readonly groupInitialRebalanceDelayMs: number;
  readonly groupMinSessionTimeoutMs: number;
  /** broker.heartbeat.interval.ms, ms. */
  readonly brokerHeartbeatIntervalMs: number;
  /** broker.session.timeout.ms, ms. */
  readonly brokerSessionTimeoutMs: number;
  readonly groupMaxSessionTimeoutMs: number;
  readonly groupMaxSize: number;
  readonly logLevel: LogLevel;
  /**
   * Every config explicitly set (file, then overrides), Kafka name -> trimmed text as written: the
   * STATIC_BROKER_CONFIG source of DescribeConfigs (Kafka's AbstractConfig.originals()).
   */
  readonly originals: ReadonlyMap<string, string>;
  /** Every known config's parsed value (set or default), by Kafka name. */
  readonly values: ReadonlyMap<string, ConfigValue>;
  /** Names set explicitly that have no effect in Tributary (the broker logs a warning). */
  readonly ignoredConfigs: readonly string[];
  /** Dynamic cluster-default broker configs in effect (DYNAMIC_DEFAULT_BROKER_CONFIG), name -> text. */
  readonly dynamicDefaultConfigs: ReadonlyMap<string, string>;
  /** Dynamic configs of this broker in effect (DYNAMIC_BROKER_CONFIG), name -> text. */
  readonly dynamicBrokerConfigs: ReadonlyMap<string, string>;
}

export interface LoadBrokerConfigOptions {
  /** Path of a server.properties file. */
  file?: string;
  /** Where `file` is read from; default the local file system (NodeDisk). */
  disk?: Disk;
  /** The file's contents instead of a path (tests, embedding); `file` names it in messages. */
  properties?: string;
  /** `--override` pairs; they win over the file. */
  overrides?: Readonly<Record<string, string>>;
  /**
   * Dynamic broker configs (ConfigRecords of BROKER resources): the cluster default ("") and this
   * broker's own, which win over the file and the overrides, in that order. Invalid or unknown
   * entries are left out, as Kafka's DynamicBrokerConfig drops them.
   */
  dynamic?: { readonly clusterDefault?: ReadonlyMap<string, string>; readonly perBroker?: ReadonlyMap<string, string> };
}

/**
 * Loads, parses and validates the broker configuration.
 * Precedence: defaults < file < overrides; then Kafka's synonym rules (see {@link BrokerConfig}).
 * @throws ConfigError for an unreadable file, a malformed escape, an unknown key (with
 *   "did you mean"), an invalid value (naming the key, the value and what is accepted) or an
 *   inconsistent combination (e.g. an advertised listener whose name is not a listener).
 */
export function loadBrokerConfig(options: LoadBrokerConfigOptions = {}): BrokerConfig {
  const raw = new Map<string, { text: string; origin: string }>();
  if (options.properties !== undefined || options.file !== undefined) {
    const fileName = options.file ?? 'properties';
    let text: string;
    if (options.properties !== undefined) {
      text = options.properties;
    } else {
      try {
        text = readWholeFile(options.disk ?? new NodeDisk(), fileName).toString('utf8');
      } catch (error) {
        if (!isDiskError(error)) throw error;
        const code = error.code;
        throw new ConfigError(
          `Cannot read config file ${fileName} (${code}). Check the path given to --config.`,
        );
      }
    }
    for (const entry of parsePropertiesEntries(text)) {
      raw.set(entry.key, { text: entry.value, origin: `${fileName} line ${entry.line}` });
    }
  }
  for (const [key, text] of Object.entries(options.overrides ?? {})) {
    raw.set(key, { text, origin: '--override' });
  }

  const values = new Map<string, ConfigValue>();
  const originals = new Map<string, string>();
  const ignoredConfigs: string[] = [];
  for (const [key, { text, origin }] of raw) {
    const def = brokerConfigDef(key);
    if (!def && (key.startsWith(ZOOKEEPER_CONFIG_PREFIX) || LISTENER_PREFIXED_CONFIG.test(key))) {
      ignoredConfigs.push(key);
      continue;
    }
    if (!def) throw unknownBrokerConfig(key, origin);
    values.set(key, parseConfigValue(def, text, origin));
    originals.set(key, def.type === 'PASSWORD' ? text : text.trim());
    if (def.noEffect) ignoredConfigs.push(key);
  }
  const dynamicDefault = applyDynamicLayer(values, options.dynamic?.clusterDefault);
  const dynamicBroker = applyDynamicLayer(values, options.dynamic?.perBroker);
  setDefaults(values, TRIBUTARY_BROKER_CONFIG_DEFS);
  // Kafka: broker.id alone sets node.id (a ZooKeeper-mode server.properties has only broker.id);
  // only an explicit node.id that differs is refused, in assemble.
  if (originals.has('broker.id') && !originals.has('node.id')) values.set('node.id', values.get('broker.id')!);
  // The defaults of the Kafka-only configs are added when first asked for (the catalog is read then).
  const allValues = new LazilyCompletedMap(values, (rest) => setDefaults(rest, brokerConfigDefs()));
  return { ...assemble(allValues, originals, ignoredConfigs), dynamicDefaultConfigs: dynamicDefault, dynamicBrokerConfigs: dynamicBroker };
}

/** Sets the default of every config of `defs` that `values` has no value for, in order. */
function setDefaults(values: Map<string, ConfigValue>, defs: readonly ConfigDef[]): void {
  for (const def of defs) {
    if (!values.has(def.name)) {
      values.set(def.name, def.defaultValue === null ? null : parseConfigValue(def, def.defaultValue));
    }
  }
}

/** Sets the valid entries of one dynamic layer into `values`; returns them (name -> text). */
function applyDynamicLayer(values: Map<string, ConfigValue>, layer: ReadonlyMap<string, string> | undefined): ReadonlyMap<string, string> {
  const applied = new Map<string, string>();
  for (const [name, text] of layer ?? []) {
    const def = brokerConfigDef(name);
    if (def === undefined) continue;
    try {
      values.set(name, parseConfigValue(def, text, 'dynamic broker config'));
      applied.set(name, text);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
    }
  }
  return applied;
}

/**
 * The configuration with new dynamic broker configs over the same static ones (server.properties
 * and --override, kept in `originals`).
 */
export function withDynamicBrokerConfigs(
  config: BrokerConfig,
  clusterDefault: ReadonlyMap<string, string>,
  perBroker: ReadonlyMap<string, string>,
): BrokerConfig {
  return loadBrokerConfig({ overrides: Object.fromEntries(config.originals), dynamic: { clusterDefault, perBroker } });
}

function unknownBrokerConfig(key: string, origin: string): ConfigError {
  const suggestions = suggestConfigNames(key, brokerConfigDefByName().keys());
  const hint = suggestions.length > 0
    ? ` Did you mean ${suggestions.join(' or ')}?`
    : ' See the config reference in README.md for the accepted names.';
  return new ConfigError(`Unknown broker config ${JSON.stringify(key)} (from ${origin}).${hint}`, { key });
}

function assemble(
  values: ReadonlyMap<string, ConfigValue>,
  originals: ReadonlyMap<string, string>,
  ignoredConfigs: string[],
): Omit<BrokerConfig, 'dynamicDefaultConfigs' | 'dynamicBrokerConfigs'> {
  const get = <T extends ConfigValue>(name: string): T => {
    if (!values.has(name)) throw new Error(`bug: broker config ${name} has no value`);
    return values.get(name) as T;
  };
  const shown = (name: string): string | undefined => originals.get(name);

  const { nodeId, processRoles, controllerQuorumVoters, controllerListenerNames } = assembleQuorum(get, shown);
  const { listeners, advertisedListeners, protocolMap } = assembleListeners(get, shown, originals, processRoles, controllerListenerNames);

  const logDirs = get<string[] | null>('log.dirs') ?? [get<string>('log.dir')];

  const retentionMs = get<number | null>('log.retention.ms');
  const retentionMinutes = get<number | null>('log.retention.minutes');
  const retentionHours = get<number>('log.retention.hours');
  const retention = retentionMs ?? (retentionMinutes !== null ? retentionMinutes * MS_PER_MINUTE : retentionHours * MS_PER_HOUR);
  const logRetentionMs = retention < 0 ? -1 : retention;
  const logRollMs = get<number | null>('log.roll.ms') ?? get<number>('log.roll.hours') * MS_PER_HOUR;
  const logFlushIntervalMs = get<number | null>('log.flush.interval.ms') ?? get<number>('log.flush.scheduler.interval.ms');

  const groupMinSessionTimeoutMs = get<number>('group.min.session.timeout.ms');
  const groupMaxSessionTimeoutMs = get<number>('group.max.session.timeout.ms');
  if (groupMinSessionTimeoutMs > groupMaxSessionTimeoutMs) {
    throw inconsistent('group.min.session.timeout.ms', String(groupMinSessionTimeoutMs),
      `it is above group.max.session.timeout.ms ${groupMaxSessionTimeoutMs}`, `a value <= ${groupMaxSessionTimeoutMs}`);
  }

  return {
    nodeId,
    processRoles,
    controllerQuorumVoters,
    controllerListenerNames,
    brokerRack: get<string | null>('broker.rack'),
    listeners,
    advertisedListeners,
    listenerSecurityProtocolMap: protocolMap,
    httpListeners: get<string[]>('http.listeners').map((item) => parseHostPort(item)),
    httpAllowedOrigins: get<string[]>('http.allowed.origins').map(parseAllowedOrigin),
    socketRequestMaxBytes: get('socket.request.max.bytes'),
    connectionsMaxIdleMs: get('connections.max.idle.ms'),
    ...raftSettings(get),
    maxConnections: get('max.connections'),
    messageMaxBytes: get('message.max.bytes'),
    fetchMaxBytes: get('fetch.max.bytes'),
    numPartitions: get('num.partitions'),
    defaultReplicationFactor: get('default.replication.factor'),
    minInsyncReplicas: get('min.insync.replicas'),
    autoCreateTopicsEnable: get('auto.create.topics.enable'),
    deleteTopicEnable: get('delete.topic.enable'),
    uncleanLeaderElectionEnable: get('unclean.leader.election.enable'),
    replicaLagTimeMaxMs: get('replica.lag.time.max.ms'),
    ...leaderBalanceConfig(get),
    ...consoleConfig(get),
    interBrokerListenerName: get<string | null>('inter.broker.listener.name')
      ?? (listeners.find((l) => !controllerListenerNames.includes(l.name)) ?? listeners[0]!).name,
    replicaFetcher: assembleReplicaFetcherConfig(get, inconsistent),
    compressionType: get('compression.type'),
    logDirs,
    logSegmentBytes: get('log.segment.bytes'),
    logRollMs,
    logRetentionMs,
    logRetentionBytes: get('log.retention.bytes'),
    logRetentionCheckIntervalMs: get('log.retention.check.interval.ms'),
    logCleanupPolicy: get<('delete' | 'compact')[]>('log.cleanup.policy'),
    logCleanerEnable: get('log.cleaner.enable'),
    logCleanerBackoffMs: get('log.cleaner.backoff.ms'), logInitialTaskDelayMs: get('log.initial.task.delay.ms'),
    logCleanerDeleteRetentionMs: get('log.cleaner.delete.retention.ms'),
    logCleanerMinCompactionLagMs: get('log.cleaner.min.compaction.lag.ms'),
    logCleanerMinCleanableRatio: get('log.cleaner.min.cleanable.ratio'),
    logIndexIntervalBytes: get('log.index.interval.bytes'),
    logIndexSizeMaxBytes: get('log.index.size.max.bytes'),
    logFlushIntervalMessages: get('log.flush.interval.messages'),
    logFlushIntervalMs,
    logFlushOffsetCheckpointIntervalMs: get('log.flush.offset.checkpoint.interval.ms'),
    logFlushStartOffsetCheckpointIntervalMs: get('log.flush.start.offset.checkpoint.interval.ms'),
    logSegmentDeleteDelayMs: get('log.segment.delete.delay.ms'),
    logMessageTimestampType: get('log.message.timestamp.type'),
    producerIdExpirationMs: get('producer.id.expiration.ms'),
    offsetsTopicNumPartitions: get('offsets.topic.num.partitions'),
    offsetsTopicReplicationFactor: get('offsets.topic.replication.factor'),
    offsetsTopicSegmentBytes: get('offsets.topic.segment.bytes'),
    offsetsRetentionMinutes: get('offsets.retention.minutes'),
    offsetsRetentionCheckIntervalMs: get('offsets.retention.check.interval.ms'),
    offsetMetadataMaxBytes: get('offset.metadata.max.bytes'),
    groupInitialRebalanceDelayMs: get('group.initial.rebalance.delay.ms'),
    groupMinSessionTimeoutMs,
    groupMaxSessionTimeoutMs,
    brokerHeartbeatIntervalMs: get('broker.heartbeat.interval.ms'),
    brokerSessionTimeoutMs: get('broker.session.timeout.ms'),
    groupMaxSize: get('group.max.size'),
    logLevel: get('log.level'),
    ...limitConfigs(get),
    ...metricsConfig(get),
    ...transactionConfigs(get),
    originals,
    values,
    ignoredConfigs,
  };
}

/** A config's parsed value (set or default), by Kafka name. */
type ConfigGetter = <T extends ConfigValue>(name: string) => T;
/** A config's text as written, for messages; undefined when left at its default. */
type ShownConfig = (name: string) => string | undefined;

/**
 * node.id, process.roles, controller.quorum.voters and controller.listener.names, checked
 * against each other. @throws ConfigError for an inconsistent combination
 */
function assembleQuorum(get: ConfigGetter, shown: ShownConfig): Pick<BrokerConfig, 'nodeId' | 'processRoles' | 'controllerQuorumVoters' | 'controllerListenerNames'> {
  const nodeId = get<number>('node.id');
  const brokerId = get<number | null>('broker.id');
  if (brokerId !== null && brokerId !== nodeId) {
    throw inconsistent('broker.id', shown('broker.id'), `it differs from node.id ${nodeId}`, `the same value as node.id, or leave it unset`);
  }
  const processRoles = [...new Set(get<string[]>('process.roles'))] as ('broker' | 'controller')[];
  const controllerQuorumVoters = get<string[]>('controller.quorum.voters').map(parseQuorumVoter);
  const voterIds = new Set(controllerQuorumVoters.map((voter) => voter.id));
  const twice = controllerQuorumVoters.find((voter, index) => controllerQuorumVoters.findIndex((v) => v.id === voter.id) !== index);
  if (twice) throw inconsistent('controller.quorum.voters', shown('controller.quorum.voters'), `voter id ${twice.id} appears twice`, 'distinct voter ids');
  if (processRoles.includes('controller') && controllerQuorumVoters.length > 0 && !voterIds.has(nodeId)) {
    throw inconsistent('controller.quorum.voters', shown('controller.quorum.voters'),
      `this node (node.id ${nodeId}) has the controller role but is not a voter`, `a list that includes ${nodeId}@host:port`);
  }
  const controllerListenerNames = get<string[]>('controller.listener.names').map((name) => name.toUpperCase());
  const othersVote = controllerQuorumVoters.some((voter) => voter.id !== nodeId);
  if (processRoles.includes('controller') && othersVote && controllerListenerNames.length === 0) {
    throw inconsistent('controller.listener.names', shown('controller.listener.names'), 'a controller of a quorum with other voters needs a listener they reach it on',
      'the name of that listener, e.g. CONTROLLER with CONTROLLER://host:port (its voter port) in listeners');
  }
  return { nodeId, processRoles, controllerQuorumVoters, controllerListenerNames };
}

/**
 * Parses `--override` arguments of the form `key=value` (the value may contain `=`; it may be
 * empty). A repeated key: the last one wins.
 * @throws ConfigError for an argument without `=` or with an empty key
 */
export function parseOverrides(args: readonly string[]): Record<string, string> {
  const overrides: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const arg of args) {
    const equals = arg.indexOf('=');
    const key = equals < 0 ? '' : arg.slice(0, equals).trim();
    if (key === '') {
      throw new ConfigError(
        `--override ${JSON.stringify(arg)} is not key=value. Write it like --override num.partitions=3.`,
      );
    }
    overrides[key] = arg.slice(equals + 1);
  }
  return overrides;
}
