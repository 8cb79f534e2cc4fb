/**
 * Topic-level configs (Kafka's TopicConfig / LogConfig names): definitions, validation of client
 * requests (CreateTopics, AlterConfigs) as Kafka error codes, resolution against the broker's
 * defaults (`log.retention.ms` -> `retention.ms`, Kafka's ServerTopicConfigSynonyms), conversion
 * to the LogConfig object the log layer uses, and what DescribeConfigs answers.
 *
 * A topic's configuration is stored as its overrides only: name -> text, as Kafka stores them
 * (ConfigRecord). Everything else follows the broker config, so changing a broker default changes
 * every topic that does not override it, as in Kafka.
 */
import type { BrokerConfig } from './broker-config.js';
import {
  ConfigDef,
  ConfigValue,
  LONG_MAX_TEXT,
  configValueProblem,
  parseConfigValue,
  suggestConfigNames,
} from './config-def.js';
import { ConfigError } from './config-error.js';
import type { LogConfig } from '../log/log-config.js';
import { kafkaTopicConfigs, noEffectConfigDef } from './kafka-config-catalog.js';

/** Kafka error code INVALID_CONFIG (errors.json): a config name or value is not acceptable. */
export const INVALID_CONFIG = 40;

/**
 * Per-log configuration (Kafka topic-level names camelCased), owned by host/log and re-exported
 * here: this module builds those objects from topic overrides and broker defaults.
 */
export type { LogConfig } from '../log/log-config.js';

/** LogConfig plus the topic configs that do not belong to the log itself. */
export interface ResolvedTopicConfig extends LogConfig {
  uncleanLeaderElectionEnable: boolean;
}

/** A topic config definition: a ConfigDef plus how it maps to the broker and to LogConfig. */
export interface TopicConfigDef extends ConfigDef {
  /** Broker configs that set this topic config's default, highest precedence first. */
  readonly brokerSynonyms: readonly string[];
  /** The broker-level value this topic config takes when the topic does not override it. */
  readonly fromBroker: (broker: BrokerConfig) => ConfigValue;
  /** The ResolvedTopicConfig field; absent for the Kafka configs that have no effect here (`noEffect`). */
  readonly field?: keyof ResolvedTopicConfig;
}

/** The topic configs Tributary implements, in Kafka's documentation order. */
const IMPLEMENTED_TOPIC_CONFIG_DEFS: readonly TopicConfigDef[] = [
  { name: 'cleanup.policy', type: 'LIST', defaultValue: 'delete', oneOf: ['delete', 'compact'], nonEmpty: true,
    brokerSynonyms: ['log.cleanup.policy'], fromBroker: (b) => b.logCleanupPolicy, field: 'cleanupPolicy',
    doc: 'delete (time/size retention), compact (keep the last record per key), or both.' },
  { name: 'compression.gzip.level', type: 'INT', defaultValue: '-1', min: 1, max: 9, alsoAccepts: [-1],
    brokerSynonyms: ['compression.gzip.level'], fromBroker: (b) => b.values.get('compression.gzip.level')!, field: 'compressionGzipLevel',
    doc: 'The gzip level of batches the broker recompresses to gzip (1-9; -1 is zlib\'s default, 6).' },
  { name: 'compression.lz4.level', type: 'INT', defaultValue: '9', min: 1, max: 17,
    brokerSynonyms: ['compression.lz4.level'], fromBroker: (b) => b.values.get('compression.lz4.level')!, field: 'compressionLz4Level',
    doc: 'The lz4 level of batches the broker recompresses to lz4 (1-17): accepted as Kafka does; the lz4 encoder here has one (fast) level.' },
  { name: 'compression.type', type: 'STRING', defaultValue: 'producer', oneOf: ['uncompressed', 'zstd', 'lz4', 'snappy', 'gzip', 'producer'],
    brokerSynonyms: ['compression.type'], fromBroker: (b) => b.compressionType, field: 'compressionType',
    doc: 'The codec of stored batches: producer keeps the producer\'s codec; uncompressed, gzip, snappy, lz4 or zstd make the leader recompress every batch written with another codec.' },
  { name: 'compression.zstd.level', type: 'INT', defaultValue: '3', min: -131072, max: 22,
    brokerSynonyms: ['compression.zstd.level'], fromBroker: (b) => b.values.get('compression.zstd.level')!, field: 'compressionZstdLevel',
    doc: 'The zstd level of batches the broker recompresses to zstd (-131072..22).' },
  { name: 'delete.retention.ms', type: 'LONG', defaultValue: '86400000', min: 0,
    brokerSynonyms: ['log.cleaner.delete.retention.ms'], fromBroker: (b) => b.logCleanerDeleteRetentionMs, field: 'deleteRetentionMs',
    doc: 'How long delete markers (tombstones) are kept in a compacted topic, in ms.' },
  { name: 'file.delete.delay.ms', type: 'LONG', defaultValue: '60000', min: 0,
    brokerSynonyms: ['log.segment.delete.delay.ms'], fromBroker: (b) => b.logSegmentDeleteDelayMs, field: 'fileDeleteDelayMs',
    doc: 'Delay before a deleted segment\'s files are removed from disk, in ms.' },
  { name: 'flush.messages', type: 'LONG', defaultValue: LONG_MAX_TEXT, min: 1,
    brokerSynonyms: ['log.flush.interval.messages'], fromBroker: (b) => b.logFlushIntervalMessages, field: 'flushMessages',
    doc: 'fsync the log after this many records.' },
  { name: 'flush.ms', type: 'LONG', defaultValue: LONG_MAX_TEXT, min: 0,
    brokerSynonyms: ['log.flush.interval.ms', 'log.flush.scheduler.interval.ms'], fromBroker: (b) => b.logFlushIntervalMs, field: 'flushMs',
    doc: 'fsync the log after this many ms.' },
  { name: 'index.interval.bytes', type: 'INT', defaultValue: '4096', min: 0,
    brokerSynonyms: ['log.index.interval.bytes'], fromBroker: (b) => b.logIndexIntervalBytes, field: 'indexIntervalBytes',
    doc: 'Bytes of records between two offset index entries.' },
  { name: 'max.message.bytes', type: 'INT', defaultValue: '1048588', min: 0,
    brokerSynonyms: ['message.max.bytes'], fromBroker: (b) => b.messageMaxBytes, field: 'maxMessageBytes',
    doc: 'The largest record batch accepted, in bytes.' },
  { name: 'message.timestamp.type', type: 'STRING', defaultValue: 'CreateTime', oneOf: ['CreateTime', 'LogAppendTime'],
    brokerSynonyms: ['log.message.timestamp.type'], fromBroker: (b) => b.logMessageTimestampType, field: 'messageTimestampType',
    doc: 'CreateTime keeps the producer\'s timestamps; LogAppendTime stamps the broker\'s clock.' },
  { name: 'message.timestamp.before.max.ms', type: 'LONG', defaultValue: LONG_MAX_TEXT, min: 0,
    brokerSynonyms: ['log.message.timestamp.before.max.ms'], fromBroker: (b) => b.values.get('log.message.timestamp.before.max.ms')!, field: 'messageTimestampBeforeMaxMs',
    doc: 'How far before the broker\'s clock a CreateTime record\'s timestamp may be, in ms (INVALID_TIMESTAMP beyond).' },
  { name: 'message.timestamp.after.max.ms', type: 'LONG', defaultValue: LONG_MAX_TEXT, min: 0,
    brokerSynonyms: ['log.message.timestamp.after.max.ms'], fromBroker: (b) => b.values.get('log.message.timestamp.after.max.ms')!, field: 'messageTimestampAfterMaxMs',
    doc: 'How far after the broker\'s clock a CreateTime record\'s timestamp may be, in ms (INVALID_TIMESTAMP beyond).' },
  { name: 'message.timestamp.difference.max.ms', type: 'LONG', defaultValue: LONG_MAX_TEXT, min: 0,
    brokerSynonyms: ['log.message.timestamp.difference.max.ms'], fromBroker: (b) => b.values.get('log.message.timestamp.difference.max.ms')!, field: 'messageTimestampDifferenceMaxMs',
    doc: 'Deprecated (KIP-937): the before and after limits when those are left at their defaults, in ms.' },
  { name: 'min.cleanable.dirty.ratio', type: 'DOUBLE', defaultValue: '0.5', min: 0, max: 1,
    brokerSynonyms: ['log.cleaner.min.cleanable.ratio'], fromBroker: (b) => b.logCleanerMinCleanableRatio, field: 'minCleanableDirtyRatio',
    doc: 'Compact the log once this fraction of it is dirty.' },
  { name: 'min.compaction.lag.ms', type: 'LONG', defaultValue: '0', min: 0,
    brokerSynonyms: ['log.cleaner.min.compaction.lag.ms'], fromBroker: (b) => b.logCleanerMinCompactionLagMs, field: 'minCompactionLagMs',
    doc: 'Minimum age of a record before compaction may remove it, in ms.' },
  { name: 'min.insync.replicas', type: 'INT', defaultValue: '1', min: 1,
    brokerSynonyms: ['min.insync.replicas'], fromBroker: (b) => b.minInsyncReplicas, field: 'minInsyncReplicas',
    doc: 'Minimum in-sync replicas for an acks=all produce to succeed.' },
  { name: 'retention.bytes', type: 'LONG', defaultValue: '-1', min: -1,
    brokerSynonyms: ['log.retention.bytes'], fromBroker: (b) => b.logRetentionBytes, field: 'retentionBytes',
    doc: 'Delete old segments while a partition is larger than this, in bytes; -1 for no limit.' },
  { name: 'retention.ms', type: 'LONG', defaultValue: '604800000', min: -1,
    brokerSynonyms: ['log.retention.ms', 'log.retention.minutes', 'log.retention.hours'], fromBroker: (b) => b.logRetentionMs, field: 'retentionMs',
    doc: 'Delete segments older than this, in ms; -1 for no limit.' },
  { name: 'segment.bytes', type: 'INT', defaultValue: '1073741824', min: 14,
    brokerSynonyms: ['log.segment.bytes'], fromBroker: (b) => b.logSegmentBytes, field: 'segmentBytes',
    doc: 'Maximum size of one segment file, in bytes.' },
  { name: 'segment.index.bytes', type: 'INT', defaultValue: '10485760', min: 4,
    brokerSynonyms: ['log.index.size.max.bytes'], fromBroker: (b) => b.logIndexSizeMaxBytes, field: 'segmentIndexBytes',
    doc: 'Maximum size of an offset or time index file, in bytes.' },
  { name: 'segment.ms', type: 'LONG', defaultValue: '604800000', min: 1,
    brokerSynonyms: ['log.roll.ms', 'log.roll.hours'], fromBroker: (b) => b.logRollMs, field: 'segmentMs',
    doc: 'Roll a new segment after this many ms even if it is not full.' },
  { name: 'unclean.leader.election.enable', type: 'BOOLEAN', defaultValue: 'false',
    brokerSynonyms: ['unclean.leader.election.enable'], fromBroker: (b) => b.uncleanLeaderElectionEnable, field: 'uncleanLeaderElectionEnable',
    doc: 'Allow a replica outside the ISR to become leader (may lose data).' },
];

/**
 * A no-effect topic config's broker-level value: its first broker synonym that is set (or has a
 * default), converted from hours/minutes when the synonym says so (log.roll.jitter.hours ->
 * segment.jitter.ms, as Kafka's ConfigSynonym does); else the topic default.
 */
function valueFromBrokerSynonyms(def: ConfigDef, synonyms: readonly string[]): (broker: BrokerConfig) => ConfigValue {
  const topicDefault = def.defaultValue === null ? null : parseConfigValue(def, def.defaultValue);
  return (broker) => {
    for (const name of synonyms) {
      const value = broker.values.get(name);
      if (value === undefined || value === null) continue;
      if (typeof value === 'number' && name.endsWith('.hours') && !def.name.endsWith('.hours')) return value * 3_600_000;
      if (typeof value === 'number' && name.endsWith('.minutes') && !def.name.endsWith('.minutes')) return value * 60_000;
      return value;
    }
    return topicDefault;
  };
}

/** Kafka's other topic configs: accepted with Kafka's validator, no effect, said so. Reads the Kafka config catalog. */
function kafkaOnlyTopicConfigDefs(): TopicConfigDef[] {
  return kafkaTopicConfigs()
    .filter((info) => !IMPLEMENTED_TOPIC_CONFIG_DEFS.some((def) => def.name === info.name))
    .map((info) => {
      const def = noEffectConfigDef(info);
      const brokerSynonyms = info.brokerSynonyms ?? [];
      return { ...def, brokerSynonyms, fromBroker: valueFromBrokerSynonyms(def, brokerSynonyms) };
    });
}

/** Tributary's own definitions by name: looked up first, without reading the Kafka config catalog. */
const IMPLEMENTED_TOPIC_CONFIG_DEF_BY_NAME: ReadonlyMap<string, TopicConfigDef> = new Map(
  IMPLEMENTED_TOPIC_CONFIG_DEFS.map((def) => [def.name, def]),
);

let allTopicConfigDefs: readonly TopicConfigDef[] | null = null;
let allTopicConfigDefsByName: ReadonlyMap<string, TopicConfigDef> | null = null;

/**
 * Every topic config Kafka has: Tributary's own, then the ones without effect, each group by name.
 * Reads the Kafka config catalog on first call.
 */
export function topicConfigDefs(): readonly TopicConfigDef[] {
  allTopicConfigDefs ??= [...IMPLEMENTED_TOPIC_CONFIG_DEFS, ...kafkaOnlyTopicConfigDefs()];
  return allTopicConfigDefs;
}

/** Every definition of {@link topicConfigDefs} by name, in that order. Reads the catalog on first call. */
export function topicConfigDefByName(): ReadonlyMap<string, TopicConfigDef> {
  allTopicConfigDefsByName ??= new Map(topicConfigDefs().map((def) => [def.name, def]));
  return allTopicConfigDefsByName;
}

/**
 * The definition of one topic config, or undefined when Kafka has no such topic config. Tributary's
 * own configs are answered without reading the Kafka config catalog.
 */
export function topicConfigDef(name: string): TopicConfigDef | undefined {
  return IMPLEMENTED_TOPIC_CONFIG_DEF_BY_NAME.get(name) ?? topicConfigDefByName().get(name);
}

/** One config of a CreateTopics or AlterConfigs request. */
export interface TopicConfigEntry {
  readonly name: string;
  readonly value: string | null;
}

/** A rejected entry: the Kafka error code and a message naming the key, the value and what is accepted. */
export interface TopicConfigError {
  readonly name: string;
  readonly errorCode: number;
  readonly errorMessage: string;
}

export interface TopicConfigValidation {
  /** The accepted overrides, name -> trimmed text (store these). Empty when `errors` is not. */
  readonly overrides: Readonly<Record<string, string>>;
  /** Every rejected entry, in request order; a request-level answer uses the first. */
  readonly errors: readonly TopicConfigError[];
}

/**
 * Validates the configs of a CreateTopics topic or an AlterConfigs TOPIC resource.
 * Never throws for client input: each bad entry becomes an INVALID_CONFIG (40) error value.
 * @param options.nullValue what a null value means: `reject` (CreateTopics, as Kafka: "Null value
 *   not supported for topic configs") or `ignore` (legacy AlterConfigs, as Kafka)
 */
export function validateTopicConfigs(
  entries: Iterable<TopicConfigEntry>,
  options: { nullValue?: 'reject' | 'ignore' } = {},
): TopicConfigValidation {
  const nullValue = options.nullValue ?? 'reject';
  const overrides: Record<string, string> = Object.create(null) as Record<string, string>;
  const errors: TopicConfigError[] = [];
  const seen = new Set<string>();
  const fail = (name: string, errorMessage: string): void => {
    errors.push({ name, errorCode: INVALID_CONFIG, errorMessage });
  };
  for (const { name, value } of entries) {
    if (seen.has(name)) {
      fail(name, `Config ${name} is given more than once; give each config once.`);
      continue;
    }
    seen.add(name);
    const def = topicConfigDef(name);
    if (!def) {
      fail(name, unknownTopicConfigMessage(name));
      continue;
    }
    if (value === null) {
      if (nullValue === 'reject') fail(name, `Null value not supported for topic config ${name}; give a value or leave it out.`);
      continue;
    }
    const problem = configValueProblem(def, value);
    if (problem !== null) {
      fail(name, problem);
      continue;
    }
    overrides[name] = value.trim();
  }
  return { overrides: errors.length > 0 ? (Object.create(null) as Record<string, string>) : overrides, errors };
}

function unknownTopicConfigMessage(name: string): string {
  const suggestions = suggestConfigNames(name, topicConfigDefByName().keys());
  const hint = suggestions.length > 0
    ? ` Did you mean ${suggestions.join(' or ')}?`
    : ` Accepted: ${topicConfigDefs().map((def) => def.name).join(', ')}.`;
  return `Unknown topic config name: ${name}.${hint}`;
}

type Overrides = Readonly<Record<string, string>> | ReadonlyMap<string, string>;

function overrideOf(overrides: Overrides, name: string): string | undefined {
  if (overrides instanceof Map) return overrides.get(name);
  const record = overrides as Readonly<Record<string, string>>;
  return Object.prototype.hasOwnProperty.call(record, name) ? record[name] : undefined;
}

/**
 * A topic's full configuration: its overrides over the broker's defaults.
 * @param overrides stored overrides (validated by {@link validateTopicConfigs} when they came in)
 * @throws ConfigError if a stored override is unknown or invalid (corrupt metadata: a bug)
 */
export function resolveTopicConfig(overrides: Overrides, broker: BrokerConfig): ResolvedTopicConfig {
  const resolved: Record<string, ConfigValue> = {};
  // Only Tributary's own configs have a field; the Kafka-only ones (no field) come after them.
  for (const def of IMPLEMENTED_TOPIC_CONFIG_DEFS) {
    if (def.field === undefined) continue;
    const text = overrideOf(overrides, def.name);
    resolved[def.field] = text === undefined ? def.fromBroker(broker) : parseConfigValue(def, text, 'topic override');
  }
  const names = overrides instanceof Map ? [...overrides.keys()] : Object.keys(overrides);
  for (const name of names) {
    if (topicConfigDef(name) === undefined) throw new ConfigError(unknownTopicConfigMessage(name), { key: name });
  }
  const result = resolved as unknown as ResolvedTopicConfig;
  return { ...result, cleanupPolicy: [...result.cleanupPolicy] };
}

/**
 * The LogConfig of a topic (overrides over broker defaults), without the non-log fields.
 * @throws ConfigError as {@link resolveTopicConfig}
 */
export function toLogConfig(overrides: Overrides, broker: BrokerConfig): LogConfig {
  const { uncleanLeaderElectionEnable: _unclean, ...logConfig } =
    resolveTopicConfig(overrides, broker);
  return logConfig;
}

/** The LogConfig a topic without overrides gets: LogManager's `defaults`. */
export function brokerLogConfigDefaults(broker: BrokerConfig): LogConfig {
  return toLogConfig({}, broker);
}

/**
 * Only the overridden LogConfig fields (LogManager's `topicConfigs` callback shape).
 * @throws ConfigError as {@link resolveTopicConfig}
 */
export function topicOverridesToLogConfig(overrides: Overrides): Partial<LogConfig> {
  const partial: Record<string, ConfigValue> = {};
  const names = overrides instanceof Map ? [...overrides.keys()] : Object.keys(overrides);
  for (const name of names) {
    const def = topicConfigDef(name);
    if (!def) throw new ConfigError(unknownTopicConfigMessage(name), { key: name });
    if (def.field === undefined || def.field === 'uncleanLeaderElectionEnable') continue;
    const value = parseConfigValue(def, overrideOf(overrides, name)!, 'topic override');
    partial[def.field] = Array.isArray(value) ? [...value] : value;
  }
  return partial as Partial<LogConfig>;
}

