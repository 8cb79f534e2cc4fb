import { describe, expect, it } from 'vitest';
import { loadBrokerConfig } from '../../host/config/broker-config.js';
import { ConfigSource, ConfigTypeCode, LONG_MAX_TEXT } from '../../host/config/config-def.js';
import {
  INVALID_CONFIG,
  topicConfigDefs,
  TopicConfigDef,
  brokerLogConfigDefaults,
  resolveTopicConfig,
  toLogConfig,
  topicOverridesToLogConfig,
  validateTopicConfigs,
} from '../../host/config/topic-config.js';
import { defaultLogConfig } from '../../host/log/log-config.js';
import { describeBrokerConfigs, describeTopicConfigs } from '../../host/config/describe-configs.js';

const defaults = loadBrokerConfig();

const kafkaDefaultLogConfig = {
  segmentBytes: 1073741824, segmentMs: 604800000, segmentIndexBytes: 10485760, indexIntervalBytes: 4096,
  retentionMs: 604800000, retentionBytes: -1, cleanupPolicy: ['delete'], deleteRetentionMs: 86400000,
  minCompactionLagMs: 0, flushMessages: Number.MAX_SAFE_INTEGER, flushMs: Number.MAX_SAFE_INTEGER,
  messageTimestampType: 'CreateTime', maxMessageBytes: 1048588, fileDeleteDelayMs: 60000,
  minInsyncReplicas: 1, minCleanableDirtyRatio: 0.5,
  messageTimestampBeforeMaxMs: Number.MAX_SAFE_INTEGER, messageTimestampAfterMaxMs: Number.MAX_SAFE_INTEGER,
  messageTimestampDifferenceMaxMs: Number.MAX_SAFE_INTEGER,
  compressionType: 'producer', compressionGzipLevel: -1, compressionLz4Level: 9, compressionZstdLevel: 3,
};

describe('validateTopicConfigs', () => {
  it('accepts Kafka topic configs and returns them trimmed for storage', () => {
    const result = validateTopicConfigs([
      { name: 'retention.ms', value: ' 1000 ' },
      { name: 'cleanup.policy', value: 'compact,delete' },
      { name: 'message.timestamp.type', value: 'LogAppendTime' },
      { name: 'compression.type', value: 'producer' },
    ]);
    expect(result.errors).toEqual([]);
    expect({ ...result.overrides }).toEqual({
      'retention.ms': '1000', 'cleanup.policy': 'compact,delete', 'message.timestamp.type': 'LogAppendTime',
      'compression.type': 'producer',
    });
  });

  it('answers an unknown name with INVALID_CONFIG and the closest names', () => {
    const result = validateTopicConfigs([{ name: 'retention.msec', value: '1' }]);
    expect(result.errors).toEqual([{
      name: 'retention.msec', errorCode: INVALID_CONFIG,
      errorMessage: 'Unknown topic config name: retention.msec. Did you mean retention.ms?',
    }]);
    expect(validateTopicConfigs([{ name: 'zzz', value: '1' }]).errors[0]!.errorMessage).toContain('Accepted: cleanup.policy, ');
  });

  it('answers a bad value of every topic config with INVALID_CONFIG naming the key, the value and what is accepted', () => {
    let checked = 0;
    for (const def of topicConfigDefs()) {
      for (const bad of invalidValuesFor(def)) {
        const result = validateTopicConfigs([{ name: def.name, value: bad }]);
        expect(result.errors, `${def.name}=${bad}`).toHaveLength(1);
        const error = result.errors[0]!;
        expect(error.errorCode).toBe(40);
        expect(error.name).toBe(def.name);
        expect(error.errorMessage).toContain(`Invalid value ${JSON.stringify(bad)} for config ${def.name}: `);
        expect(error.errorMessage).toContain('. Accepted: ');
        expect(Object.keys(result.overrides)).toEqual([]);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(topicConfigDefs().length);
  });

  it('gives Kafka\'s bounds in the messages', () => {
    const message = (name: string, value: string): string =>
      validateTopicConfigs([{ name, value }]).errors[0]!.errorMessage;
    expect(message('segment.bytes', '13')).toBe(
      'Invalid value "13" for config segment.bytes: below the minimum 14. Accepted: an integer >= 14.',
    );
    expect(message('retention.ms', '-2')).toContain('Accepted: a 64-bit integer >= -1.');
    expect(message('min.cleanable.dirty.ratio', '2')).toContain('Accepted: a number between 0 and 1.');
    expect(message('cleanup.policy', '')).toContain('Accepted: a comma-separated list of one or more of delete, compact.');
    expect(message('compression.type', 'brotli')).toContain('Accepted: one of uncompressed, zstd, lz4, snappy, gzip, producer.');
    expect(message('compression.gzip.level', '0')).toContain('Accepted: an integer between 1 and 9 (or -1).');
    expect(message('compression.zstd.level', '23')).toContain('above the maximum 22');
  });

  it('reports every bad entry in request order and stores none of them', () => {
    const result = validateTopicConfigs([
      { name: 'retention.ms', value: 'x' },
      { name: 'segment.ms', value: '10' },
      { name: 'nope', value: '1' },
    ]);
    expect(result.errors.map((error) => error.name)).toEqual(['retention.ms', 'nope']);
    expect(Object.keys(result.overrides)).toEqual([]);
  });

  it('rejects null values for CreateTopics and ignores them for legacy AlterConfigs', () => {
    const entries = [{ name: 'retention.ms', value: null }, { name: 'segment.ms', value: '10' }];
    expect(validateTopicConfigs(entries).errors[0]).toMatchObject({ name: 'retention.ms', errorCode: 40 });
    const ignored = validateTopicConfigs(entries, { nullValue: 'ignore' });
    expect(ignored.errors).toEqual([]);
    expect({ ...ignored.overrides }).toEqual({ 'segment.ms': '10' });
  });

  it('rejects a config given twice', () => {
    const result = validateTopicConfigs([{ name: 'segment.ms', value: '10' }, { name: 'segment.ms', value: '20' }]);
    expect(result.errors).toEqual([{ name: 'segment.ms', errorCode: 40, errorMessage: 'Config segment.ms is given more than once; give each config once.' }]);
  });
});

describe('LogConfig conversion', () => {
  it('gives a topic without overrides Kafka\'s defaults, the same as the log layer\'s defaultLogConfig', () => {
    expect(brokerLogConfigDefaults(defaults)).toEqual(kafkaDefaultLogConfig);
    expect(brokerLogConfigDefaults(defaults)).toEqual(defaultLogConfig);
  });

  it('takes topic defaults from the broker\'s log.* synonyms', () => {
    const broker = loadBrokerConfig({
      overrides: {
        'log.retention.hours': '1', 'log.roll.ms': '5000', 'log.segment.bytes': '1000', 'log.cleanup.policy': 'compact',
        'message.max.bytes': '500', 'log.message.timestamp.type': 'LogAppendTime', 'min.insync.replicas': '2',
        'log.flush.interval.messages': '10', 'log.flush.interval.ms': '20', 'log.index.interval.bytes': '100',
        'log.index.size.max.bytes': '4096', 'log.retention.bytes': '99', 'log.cleaner.delete.retention.ms': '7',
        'log.cleaner.min.compaction.lag.ms': '8', 'log.segment.delete.delay.ms': '9', 'log.cleaner.min.cleanable.ratio': '0.25',
        'log.message.timestamp.before.max.ms': '11', 'log.message.timestamp.after.max.ms': '12', 'log.message.timestamp.difference.max.ms': '13',
        'compression.type': 'lz4', 'compression.gzip.level': '4', 'compression.lz4.level': '12', 'compression.zstd.level': '-5',
      },
    });
    expect(brokerLogConfigDefaults(broker)).toEqual({
      segmentBytes: 1000, segmentMs: 5000, segmentIndexBytes: 4096, indexIntervalBytes: 100, retentionMs: 3600000,
      retentionBytes: 99, cleanupPolicy: ['compact'], deleteRetentionMs: 7, minCompactionLagMs: 8, flushMessages: 10,
      flushMs: 20, messageTimestampType: 'LogAppendTime', maxMessageBytes: 500, fileDeleteDelayMs: 9,
      minInsyncReplicas: 2, minCleanableDirtyRatio: 0.25,
      messageTimestampBeforeMaxMs: 11, messageTimestampAfterMaxMs: 12, messageTimestampDifferenceMaxMs: 13,
      compressionType: 'lz4', compressionGzipLevel: 4, compressionLz4Level: 12, compressionZstdLevel: -5,
    });
  });

  it('applies topic overrides over the broker defaults', () => {
    const broker = loadBrokerConfig({ overrides: { 'log.retention.hours': '1' } });
    const logConfig = toLogConfig({ 'retention.ms': '-1', 'segment.bytes': '2048', 'cleanup.policy': 'compact,delete' }, broker);
    expect(logConfig).toEqual({
      ...kafkaDefaultLogConfig, retentionMs: -1, segmentBytes: 2048, cleanupPolicy: ['compact', 'delete'],
    });
    expect(toLogConfig(new Map([['flush.messages', LONG_MAX_TEXT]]), broker).flushMessages).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('resolves the non-log topic configs too', () => {
    const resolved = resolveTopicConfig({ 'unclean.leader.election.enable': 'true' }, defaults);
    expect(resolved.uncleanLeaderElectionEnable).toBe(true);
    expect(resolved.compressionType).toBe('producer');
    expect('uncleanLeaderElectionEnable' in toLogConfig({}, defaults)).toBe(false);
    expect(toLogConfig({ 'compression.type': 'zstd', 'compression.zstd.level': '9' }, defaults))
      .toMatchObject({ compressionType: 'zstd', compressionZstdLevel: 9 });
  });

  it('returns only the overridden LogConfig fields for LogManager', () => {
    expect(topicOverridesToLogConfig({ 'retention.ms': '5', 'compression.type': 'gzip', 'cleanup.policy': 'compact', 'unclean.leader.election.enable': 'true' }))
      .toEqual({ retentionMs: 5, compressionType: 'gzip', cleanupPolicy: ['compact'] });
  });

  it('throws on a stored override it does not know (corrupt metadata)', () => {
    expect(() => toLogConfig({ 'retention.msec': '1' }, defaults)).toThrow('Unknown topic config name: retention.msec');
    expect(() => topicOverridesToLogConfig({ 'segment.bytes': 'x' })).toThrow('segment.bytes');
  });
});

describe('describeTopicConfigs', () => {
  it('describes every topic config from the defaults with DEFAULT_CONFIG', () => {
    const described = describeTopicConfigs({}, defaults);
    expect(described.map((entry) => entry.name)).toEqual(topicConfigDefs().map((def) => def.name));
    const retention = described.find((entry) => entry.name === 'retention.ms')!;
    expect(retention).toEqual({
      name: 'retention.ms', value: '604800000', readOnly: false, isDefault: true,
      configSource: ConfigSource.DEFAULT_CONFIG, isSensitive: false, synonyms: [],
      configType: ConfigTypeCode.LONG, documentation: null,
    });
    expect(described.find((entry) => entry.name === 'flush.ms')!.value).toBe(LONG_MAX_TEXT);
    expect(described.find((entry) => entry.name === 'cleanup.policy')!.configType).toBe(ConfigTypeCode.LIST);
  });

  it('reports STATIC_BROKER_CONFIG when a broker synonym is set, with synonyms in Kafka\'s order and units', () => {
    const broker = loadBrokerConfig({ overrides: { 'log.retention.hours': '24' } });
    const [retention] = describeTopicConfigs({}, broker, { names: ['retention.ms'], includeSynonyms: true });
    expect(retention).toMatchObject({ value: '86400000', configSource: ConfigSource.STATIC_BROKER_CONFIG, isDefault: false });
    expect(retention!.synonyms).toEqual([
      { name: 'log.retention.hours', value: '24', source: ConfigSource.STATIC_BROKER_CONFIG },
      { name: 'log.retention.hours', value: '168', source: ConfigSource.DEFAULT_CONFIG },
    ]);
  });

  it('reports DYNAMIC_TOPIC_CONFIG for a topic override, listed first among the synonyms', () => {
    const broker = loadBrokerConfig({ overrides: { 'log.retention.ms': '5000' } });
    const [retention] = describeTopicConfigs({ 'retention.ms': '100' }, broker, { names: ['retention.ms'], includeSynonyms: true });
    expect(retention).toMatchObject({ value: '100', configSource: ConfigSource.DYNAMIC_TOPIC_CONFIG, isDefault: false, readOnly: false });
    expect(retention!.synonyms).toEqual([
      { name: 'retention.ms', value: '100', source: ConfigSource.DYNAMIC_TOPIC_CONFIG },
      { name: 'log.retention.ms', value: '5000', source: ConfigSource.STATIC_BROKER_CONFIG },
      { name: 'log.retention.hours', value: '168', source: ConfigSource.DEFAULT_CONFIG },
    ]);
  });

  it('filters by name, skips unknown names and adds documentation when asked', () => {
    const described = describeTopicConfigs({}, defaults, { names: ['segment.bytes', 'nope'], includeDocumentation: true });
    expect(described).toHaveLength(1);
    expect(described[0]!.documentation).toBe('Maximum size of one segment file, in bytes.');
  });
});

describe('describeBrokerConfigs', () => {
  it('describes broker configs STATIC when set and DEFAULT otherwise, read-only unless Kafka changes them at run time', () => {
    const broker = loadBrokerConfig({ overrides: { 'num.partitions': '3' } });
    const described = describeBrokerConfigs(broker, { names: ['num.partitions', 'log.retention.ms', 'listeners'], includeSynonyms: true });
    expect(described).toEqual([
      {
        name: 'listeners', value: 'PLAINTEXT://127.0.0.1:9092', readOnly: false, isDefault: true,
        configSource: ConfigSource.DEFAULT_CONFIG, isSensitive: false,
        synonyms: [{ name: 'listeners', value: 'PLAINTEXT://127.0.0.1:9092', source: ConfigSource.DEFAULT_CONFIG }],
        configType: ConfigTypeCode.LIST, documentation: null,
      },
      {
        name: 'num.partitions', value: '3', readOnly: true, isDefault: false,
        configSource: ConfigSource.STATIC_BROKER_CONFIG, isSensitive: false,
        synonyms: [
          { name: 'num.partitions', value: '3', source: ConfigSource.STATIC_BROKER_CONFIG },
          { name: 'num.partitions', value: '1', source: ConfigSource.DEFAULT_CONFIG },
        ],
        configType: ConfigTypeCode.INT, documentation: null,
      },
      {
        name: 'log.retention.ms', value: null, readOnly: false, isDefault: true,
        configSource: ConfigSource.DEFAULT_CONFIG, isSensitive: false,
        synonyms: [{ name: 'log.retention.hours', value: '168', source: ConfigSource.DEFAULT_CONFIG }],
        configType: ConfigTypeCode.LONG, documentation: null,
      },
    ]);
  });
});

function invalidValuesFor(def: TopicConfigDef): string[] {
  const values: string[] = [];
  switch (def.type) {
    case 'BOOLEAN':
      values.push('maybe');
      break;
    case 'INT':
    case 'LONG':
      values.push('1.5');
      if (def.min !== undefined) values.push(String(def.min - 1));
      break;
    case 'DOUBLE':
      values.push('x');
      if (def.min !== undefined) values.push(String(def.min - 0.1));
      if (def.max !== undefined) values.push(String(def.max + 0.1));
      break;
    case 'STRING':
      values.push('bogus');
      break;
    case 'LIST':
      values.push('bogus', 'delete,,compact');
      if (def.nonEmpty) values.push('');
      break;
    default:
      throw new Error(`no invalid values for ${def.type}`);
  }
  return values;
}
