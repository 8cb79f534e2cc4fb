import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  brokerConfigDefs,
  loadBrokerConfig,
  parseListener,
  parseOverrides,
  resolveAdvertisedListeners,
} from '../../host/config/broker-config.js';
import { ConfigDef, acceptedPhrase } from '../../host/config/config-def.js';
import { ConfigError } from '../../host/config/config-error.js';

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

const tempDir = mkdtempSync(join(tmpdir(), 'tributary-config-'));
afterAll(() => rmSync(tempDir, { recursive: true, force: true }));

describe('loadBrokerConfig defaults', () => {
  it('runs a single node with an embedded controller on 127.0.0.1:9092 with no config at all', () => {
    const config = loadBrokerConfig({});
    expect(config.nodeId).toBe(1);
    expect(config.processRoles).toEqual(['broker', 'controller']);
    expect(config.listeners).toEqual([{ name: 'PLAINTEXT', host: '127.0.0.1', port: 9092 }]);
    expect(config.advertisedListeners).toEqual(config.listeners);
    expect(config.listenerSecurityProtocolMap.PLAINTEXT).toBe('PLAINTEXT');
    expect(config.httpListeners).toEqual([{ host: '127.0.0.1', port: 8080 }]);
    expect(config.logDirs).toEqual(['./.tributary-data']);
    expect(config.controllerQuorumVoters).toEqual([]);
    expect(config.logLevel).toBe('info');
    expect(config.originals.size).toBe(0);
    expect(config.ignoredConfigs).toEqual([]);
  });

  it('uses Kafka\'s defaults for limits, logs and groups', () => {
    const config = loadBrokerConfig();
    expect(config).toMatchObject({
      numPartitions: 1, defaultReplicationFactor: 1, minInsyncReplicas: 1,
      autoCreateTopicsEnable: true, deleteTopicEnable: true,
      messageMaxBytes: 1048588, socketRequestMaxBytes: 104857600, connectionsMaxIdleMs: 600000,
      logSegmentBytes: 1073741824, logRollMs: 168 * 3600000, logRetentionMs: 168 * 3600000,
      logRetentionBytes: -1, logRetentionCheckIntervalMs: 300000, logCleanupPolicy: ['delete'],
      logCleanerEnable: true, logCleanerDeleteRetentionMs: 86400000, logIndexIntervalBytes: 4096,
      logIndexSizeMaxBytes: 10485760, logMessageTimestampType: 'CreateTime',
      offsetsTopicNumPartitions: 50, offsetsRetentionMinutes: 10080,
      groupInitialRebalanceDelayMs: 3000, groupMinSessionTimeoutMs: 6000, groupMaxSessionTimeoutMs: 1800000,
      groupMaxSize: 2147483647, uncleanLeaderElectionEnable: false, replicaLagTimeMaxMs: 30000,
    });
  });

  it('bounds what Kafka leaves unbounded or sizes for a cluster, and holds Long.MAX as MAX_SAFE_INTEGER', () => {
    const config = loadBrokerConfig();
    expect(config.maxConnections).toBe(10000);
    expect(config.autoCreateTopicsMaxPerRequest).toBe(100);
    expect(loadBrokerConfig({ overrides: { 'auto.create.topics.max.per.request': '5000' } }).autoCreateTopicsMaxPerRequest).toBe(5000);
    expect(config.offsetsTopicReplicationFactor).toBe(3);
    expect(config.logFlushIntervalMessages).toBe(Number.MAX_SAFE_INTEGER);
    expect(config.logFlushIntervalMs).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('gives every definition a doc line and a default that passes its own validation', () => {
    for (const def of brokerConfigDefs()) {
      expect(def.doc.length, def.name).toBeGreaterThan(10);
      expect(def.doc.includes('\n'), def.name).toBe(false);
    }
    expect(new Set(brokerConfigDefs().map((def) => def.name)).size).toBe(brokerConfigDefs().length);
    expect(() => loadBrokerConfig()).not.toThrow();
  });
});

describe('loadBrokerConfig precedence', () => {
  it('lets overrides win over the file and the file win over defaults', () => {
    const file = join(tempDir, 'precedence.properties');
    writeFileSync(file, 'num.partitions=3\nlog.dirs=/data/a,/data/b\nmessage.max.bytes = 2000 \n');
    const config = loadBrokerConfig({ file, overrides: { 'num.partitions': '5' } });
    expect(config.numPartitions).toBe(5);
    expect(config.logDirs).toEqual(['/data/a', '/data/b']);
    expect(config.messageMaxBytes).toBe(2000);
    expect(config.originals.get('message.max.bytes')).toBe('2000');
    expect(config.originals.get('num.partitions')).toBe('5');
  });

  it('takes log.retention.ms over minutes over hours', () => {
    expect(loadBrokerConfig({ overrides: { 'log.retention.hours': '2' } }).logRetentionMs).toBe(7_200_000);
    expect(loadBrokerConfig({ overrides: { 'log.retention.hours': '2', 'log.retention.minutes': '3' } }).logRetentionMs)
      .toBe(180_000);
    expect(loadBrokerConfig({
      overrides: { 'log.retention.hours': '2', 'log.retention.minutes': '3', 'log.retention.ms': '1234' },
    }).logRetentionMs).toBe(1234);
  });

  it('reads a retention of -1 in any unit as no time limit', () => {
    expect(loadBrokerConfig({ overrides: { 'log.retention.hours': '-1' } }).logRetentionMs).toBe(-1);
    expect(loadBrokerConfig({ overrides: { 'log.retention.minutes': '-1' } }).logRetentionMs).toBe(-1);
  });

  it('takes log.roll.ms over log.roll.hours', () => {
    expect(loadBrokerConfig({ overrides: { 'log.roll.hours': '1' } }).logRollMs).toBe(3_600_000);
    expect(loadBrokerConfig({ overrides: { 'log.roll.hours': '1', 'log.roll.ms': '500' } }).logRollMs).toBe(500);
  });

  it('takes log.dirs over log.dir', () => {
    expect(loadBrokerConfig({ overrides: { 'log.dir': '/one' } }).logDirs).toEqual(['/one']);
    expect(loadBrokerConfig({ overrides: { 'log.dir': '/one', 'log.dirs': '/two' } }).logDirs).toEqual(['/two']);
  });

  it('falls back from log.flush.interval.ms to log.flush.scheduler.interval.ms', () => {
    expect(loadBrokerConfig({ overrides: { 'log.flush.scheduler.interval.ms': '10' } }).logFlushIntervalMs).toBe(10);
    expect(loadBrokerConfig({
      overrides: { 'log.flush.scheduler.interval.ms': '10', 'log.flush.interval.ms': '20' },
    }).logFlushIntervalMs).toBe(20);
  });

  it('loads Kafka\'s stock KRaft server.properties and lists the configs without effect', () => {
    const config = loadBrokerConfig({
      file: 'server.properties',
      properties: [
        'process.roles=broker,controller', 'node.id=1', 'controller.quorum.voters=1@localhost:9093',
        'listeners=PLAINTEXT://:9092,CONTROLLER://:9093', 'inter.broker.listener.name=PLAINTEXT',
        'advertised.listeners=PLAINTEXT://localhost:9092', 'controller.listener.names=CONTROLLER',
        'listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL',
        'num.network.threads=3', 'num.io.threads=8', 'socket.send.buffer.bytes=102400',
        'socket.receive.buffer.bytes=102400', 'socket.request.max.bytes=104857600', 'log.dirs=/tmp/kraft-combined-logs',
        'num.partitions=1', 'num.recovery.threads.per.data.dir=1', 'offsets.topic.replication.factor=1',
        'transaction.state.log.replication.factor=1', 'transaction.state.log.min.isr=1',
        'log.retention.hours=168', 'log.segment.bytes=1073741824', 'log.retention.check.interval.ms=300000',
      ].join('\n'),
    });
    expect(config.controllerQuorumVoters).toEqual([{ id: 1, host: 'localhost', port: 9093 }]);
    expect(config.listeners).toEqual([
      { name: 'PLAINTEXT', host: '', port: 9092 },
      { name: 'CONTROLLER', host: '', port: 9093 },
    ]);
    expect(config.advertisedListeners).toEqual([{ name: 'PLAINTEXT', host: 'localhost', port: 9092 }]);
    expect(config.ignoredConfigs).toEqual([
      'num.network.threads', 'num.io.threads', 'socket.send.buffer.bytes',
      'socket.receive.buffer.bytes', 'num.recovery.threads.per.data.dir',
    ]);
    expect(config.transactionStateLogReplicationFactor).toBe(1);
    expect(config.transactionStateLogMinIsr).toBe(1);
  });

  it('advertises every listener except the controller ones by default, and maps controller listeners to PLAINTEXT', () => {
    const config = loadBrokerConfig({
      overrides: { listeners: 'PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:0', 'controller.listener.names': 'CONTROLLER' },
    });
    expect(config.advertisedListeners).toEqual([{ name: 'PLAINTEXT', host: '127.0.0.1', port: 0 }]);
    expect(config.listenerSecurityProtocolMap.CONTROLLER).toBe('PLAINTEXT');
  });
});

describe('loadBrokerConfig errors', () => {
  it('rejects an unknown key, naming it, where it came from and the closest known names', () => {
    const error = configError(() => loadBrokerConfig({ overrides: { 'num.partition': '3' } }));
    expect(error.key).toBe('num.partition');
    expect(error.message).toBe('Unknown broker config "num.partition" (from --override). Did you mean num.partitions?');
    const other = configError(() => loadBrokerConfig({ overrides: { 'bogus.key': '1' } }));
    expect(other.message).toContain('"bogus.key"');
    expect(other.message).toContain('config reference');
  });

  it('names the file and line of a bad value', () => {
    const error = configError(() => loadBrokerConfig({ file: 'my.properties', properties: '# x\nnum.partitions=zero' }));
    expect(error.message).toBe(
      'Invalid value "zero" for config num.partitions (from my.properties line 2): not an integer. Accepted: an integer >= 1.',
    );
    expect(error).toMatchObject({ key: 'num.partitions', value: 'zero', accepted: 'an integer >= 1' });
  });

  it('names the path of a config file it cannot read and how to fix it', () => {
    const missing = join(tempDir, 'missing.properties');
    const error = configError(() => loadBrokerConfig({ file: missing }));
    expect(error.message).toContain(missing);
    expect(error.message).toContain('ENOENT');
    expect(error.message).toContain('--config');
  });

  it('rejects a bad value of every config with a message naming the key, the value and what is accepted', () => {
    let checked = 0;
    for (const def of brokerConfigDefs()) {
      for (const bad of invalidValuesFor(def)) {
        const error = configError(() => loadBrokerConfig({ overrides: { [def.name]: bad } }));
        expect(error.key, `${def.name}=${bad}`).toBe(def.name);
        expect(error.value, `${def.name}=${bad}`).toBe(bad);
        expect(error.message, `${def.name}=${bad}`).toContain(`Invalid value ${JSON.stringify(bad)} for config ${def.name} (from --override): `);
        expect(error.message, `${def.name}=${bad}`).toContain(`Accepted: ${acceptedPhrase(def)}.`);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(brokerConfigDefs().length);
  });

  it('explains the type or bound a value misses', () => {
    const reason = (key: string, value: string): string =>
      configError(() => loadBrokerConfig({ overrides: { [key]: value } })).message;
    expect(reason('auto.create.topics.enable', 'yes')).toContain(': not a boolean. Accepted: true or false.');
    expect(reason('num.partitions', '0')).toContain(': below the minimum 1. Accepted: an integer >= 1.');
    expect(reason('num.partitions', '2147483648')).toContain('out of the 32-bit integer range');
    // No 0 or negative "unbounded" or "off": auto.create.topics.enable=false turns auto-creation off.
    expect(reason('auto.create.topics.max.per.request', '0')).toContain(': below the minimum 1. Accepted: an integer >= 1.');
    expect(reason('auto.create.topics.max.per.request', '-1')).toContain(': below the minimum 1.');
    expect(reason('offsets.topic.replication.factor', '40000')).toContain('out of the 16-bit integer range');
    expect(reason('log.retention.ms', '9223372036854775808')).toContain('out of the 64-bit integer range');
    expect(reason('log.cleaner.min.cleanable.ratio', '1.5')).toContain('above the maximum 1. Accepted: a number between 0 and 1.');
    expect(reason('log.message.timestamp.type', 'createtime')).toContain('Accepted: one of CreateTime, LogAppendTime.');
    expect(reason('log.cleanup.policy', 'delete,purge')).toContain('"purge" is not an accepted element');
    expect(reason('process.roles', '')).toContain(': empty. Accepted: a comma-separated list of one or more of broker, controller.');
    expect(reason('compression.type', 'lzo')).toContain('Accepted: one of uncompressed, zstd, lz4, snappy, gzip, producer.');
    expect(reason('log.level', 'verbose')).toContain('Accepted: one of fatal, error, warn, info, debug, trace, silent.');
  });

  it('accepts values with whitespace around them and booleans in any case, as Kafka does', () => {
    const config = loadBrokerConfig({ overrides: { 'num.partitions': ' 7 ', 'auto.create.topics.enable': 'FALSE' } });
    expect(config.numPartitions).toBe(7);
    expect(config.autoCreateTopicsEnable).toBe(false);
  });

  it('takes node.id from broker.id when node.id is not set, as Kafka does', () => {
    const config = loadBrokerConfig({ overrides: { 'broker.id': '0' } });
    expect(config.nodeId).toBe(0);
    expect(config.values.get('node.id')).toBe(0);
    expect(loadBrokerConfig({ overrides: { 'broker.id': '3', 'node.id': '3' } }).nodeId).toBe(3);
  });

  it('loads a stock ZooKeeper-mode server.properties, its zookeeper.* keys accepted without effect', () => {
    const config = loadBrokerConfig({ properties: [
      'broker.id=0', 'num.network.threads=3', 'log.dirs=/tmp/kafka-logs', 'num.partitions=1',
      'offsets.topic.replication.factor=1', 'zookeeper.connect=localhost:2181',
      'zookeeper.connection.timeout.ms=18000', 'zookeeper.session.timeout.ms=18000',
      'group.initial.rebalance.delay.ms=0',
    ].join('\n') });
    expect(config.nodeId).toBe(0);
    expect(config.ignoredConfigs).toEqual(['num.network.threads', 'zookeeper.connect',
      'zookeeper.connection.timeout.ms', 'zookeeper.session.timeout.ms']);
    expect(configError(() => loadBrokerConfig({ overrides: { 'zookeper.connect': 'x' } })).message).toContain('Unknown broker config');
  });

  it('rejects inconsistent combinations, naming the key and the fix', () => {
    const message = (overrides: Record<string, string>): string => configError(() => loadBrokerConfig({ overrides })).message;
    expect(message({ 'broker.id': '2', 'node.id': '1' })).toContain('broker.id: it differs from node.id 1');
    expect(message({ 'controller.quorum.voters': '2@h:9093' })).toContain('is not a voter');
    expect(message({ 'controller.quorum.voters': '1@h:9093,1@g:9093' })).toContain('voter id 1 appears twice');
    expect(message({ listeners: 'PLAINTEXT://a:1,plaintext://b:2' })).toContain('the listener name PLAINTEXT is used twice');
    expect(message({ listeners: 'PLAINTEXT://a:1,OTHER://a:1', 'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,OTHER:PLAINTEXT' }))
      .toContain('two listeners bind port 1 (PLAINTEXT://a:1 and OTHER://a:1)');
    // Same port on two hosts of one address family is refused too (Kafka: a different port per listener).
    expect(message({ listeners: 'PLAINTEXT://0.0.0.0:9092,CONTROLLER://127.0.0.1:9092', 'controller.listener.names': 'CONTROLLER' }))
      .toContain('two listeners bind port 9092');
    expect(loadBrokerConfig({ overrides: { listeners: 'PLAINTEXT://127.0.0.1:9092,OTHER://[::1]:9092',
      'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,OTHER:PLAINTEXT' } }).listeners).toHaveLength(2);
    expect(message({ 'controller.quorum.voters': '1@h:9093,2@h:9094', listeners: 'PLAINTEXT://a:1,CONTROLLER://a:9093' }))
      .toContain('controller.listener.names: a controller of a quorum with other voters needs a listener they reach it on');
    expect(message({ listeners: 'OTHER://a:1' })).toContain('listener.security.protocol.map: it has no entry for listener OTHER');
    expect(message({ listeners: 'SSL://a:1' })).toContain('uses security protocol SSL, which Tributary does not support yet');
    expect(message({ 'advertised.listeners': 'EXTERNAL://h:1' })).toContain('EXTERNAL is not the name of one of the listeners');
    expect(message({ 'advertised.listeners': 'PLAINTEXT://0.0.0.0:9092' })).toContain('non-routable meta-address');
    expect(message({ 'controller.listener.names': 'CONTROLLER' })).toContain('CONTROLLER is not one of the listeners');
    expect(message({ listeners: 'CONTROLLER://a:1', 'controller.listener.names': 'CONTROLLER' }))
      .toContain('the broker role needs a listener that is not a controller listener');
    expect(message({ 'group.min.session.timeout.ms': '10', 'group.max.session.timeout.ms': '5' }))
      .toContain('it is above group.max.session.timeout.ms 5');
  });
});

describe('listener parsing', () => {
  it('parses NAME://host:port with port 0, an empty host and bracketed IPv6', () => {
    expect(parseListener('PLAINTEXT://127.0.0.1:0')).toEqual({ name: 'PLAINTEXT', host: '127.0.0.1', port: 0 });
    expect(parseListener('plaintext://:9092')).toEqual({ name: 'PLAINTEXT', host: '', port: 9092 });
    expect(parseListener('INTERNAL://[::1]:9093')).toEqual({ name: 'INTERNAL', host: '::1', port: 9093 });
    expect(parseListener(' EXT://broker-1.example.com:19092 ')).toEqual({ name: 'EXT', host: 'broker-1.example.com', port: 19092 });
  });

  it('rejects malformed listeners with the expected form', () => {
    expect(() => parseListener('127.0.0.1:9092')).toThrow('expected NAME://host:port');
    expect(() => parseListener('PLAINTEXT://host')).toThrow('missing ":port"');
    expect(() => parseListener('PLAINTEXT://host:65536')).toThrow('between 0 and 65535');
    expect(() => parseListener('PLAINTEXT://host:-1')).toThrow('between 0 and 65535');
    expect(() => parseListener('PLAINTEXT://::1:9092')).toThrow('in brackets');
    expect(() => parseListener('PLAINTEXT://[::1:9092')).toThrow('[address]:port');
    expect(() => parseListener('PLAINTEXT://ho st:1')).toThrow('not a host name');
  });
});

describe('resolveAdvertisedListeners', () => {
  it('publishes the bound port for port 0 and a specific host for wildcard binds', () => {
    const config = loadBrokerConfig({
      overrides: { listeners: 'PLAINTEXT://127.0.0.1:0,OTHER://:0,ALL://0.0.0.0:7000', 'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,OTHER:PLAINTEXT,ALL:PLAINTEXT' },
    });
    const bound = [
      { name: 'PLAINTEXT', host: '127.0.0.1', port: 41001 },
      { name: 'OTHER', host: '', port: 41002 },
      { name: 'ALL', host: '0.0.0.0', port: 7000 },
    ];
    expect(resolveAdvertisedListeners(config.advertisedListeners, bound, 'broker-host')).toEqual([
      { name: 'PLAINTEXT', host: '127.0.0.1', port: 41001 },
      { name: 'OTHER', host: 'broker-host', port: 41002 },
      { name: 'ALL', host: 'broker-host', port: 7000 },
    ]);
  });

  it('keeps explicit advertised hosts and ports', () => {
    const config = loadBrokerConfig({ overrides: { listeners: 'PLAINTEXT://:0', 'advertised.listeners': 'PLAINTEXT://public.example:19092' } });
    expect(resolveAdvertisedListeners(config.advertisedListeners, [{ name: 'PLAINTEXT', host: '', port: 5 }], 'h'))
      .toEqual([{ name: 'PLAINTEXT', host: 'public.example', port: 19092 }]);
  });
});

describe('parseOverrides', () => {
  it('splits at the first = and allows empty values', () => {
    expect({ ...parseOverrides(['a=1', 'b=x=y', 'c=', 'a=2']) }).toEqual({ a: '2', b: 'x=y', c: '' });
  });

  it('rejects an argument without a key, showing the expected form', () => {
    expect(() => parseOverrides(['num.partitions'])).toThrow('is not key=value. Write it like --override num.partitions=3.');
    expect(() => parseOverrides(['=3'])).toThrow(ConfigError);
  });
});

/** Values `def` must reject: out of bounds, of the wrong type, not among the accepted ones. */
function invalidValuesFor(def: ConfigDef): string[] {
  const values: string[] = [];
  switch (def.type) {
    case 'BOOLEAN':
      values.push('yes');
      break;
    case 'INT':
    case 'SHORT':
    case 'LONG':
      values.push('12abc');
      if (def.min !== undefined) values.push(String(def.min - 1));
      if (def.max !== undefined) values.push(String(def.max + 1));
      break;
    case 'DOUBLE':
      values.push('half');
      if (def.min !== undefined) values.push(String(def.min - 0.5));
      if (def.max !== undefined) values.push(String(def.max + 0.5));
      break;
    case 'STRING':
    case 'PASSWORD':
      if (def.oneOf || def.check) values.push('bogus-value');
      if (def.nonEmpty) values.push('');
      break;
    case 'LIST':
      values.push('a,,b');
      if (def.oneOf || def.check) values.push('bogus-value');
      if (def.nonEmpty) values.push('');
      break;
  }
  return values;
}
