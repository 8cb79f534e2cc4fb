/**
 * Every Kafka config name is known (issue 13): Kafka's own sample server.properties files load,
 * an --override of any Kafka broker config starts the broker (without effect, said so), topic
 * configs Kafka has are accepted, and true typos are still refused with a "did you mean".
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { brokerConfigDefByName, loadBrokerConfig, TRIBUTARY_BROKER_CONFIG_DEFS } from '../../host/config/broker-config.js';
import { ConfigError } from '../../host/config/config-error.js';
import { kafkaBrokerConfigs, kafkaTopicConfigs } from '../../host/config/kafka-config-catalog.js';
import { topicConfigDefByName, validateTopicConfigs } from '../../host/config/topic-config.js';
import { describeTopicConfigs } from '../../host/config/describe-configs.js';

const fixture = (name: string): string => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

describe('Kafka config catalog', () => {
  it('knows Kafka\'s broker and topic configs (the generated table is complete enough to trust)', () => {
    expect(kafkaBrokerConfigs().length).toBeGreaterThan(300);
    expect(kafkaTopicConfigs().length).toBeGreaterThanOrEqual(36);
    for (const info of kafkaBrokerConfigs()) expect(brokerConfigDefByName().has(info.name), info.name).toBe(true);
    for (const info of kafkaTopicConfigs()) expect(topicConfigDefByName().has(info.name), info.name).toBe(true);
  });

  it('loads Kafka\'s sample KRaft combined-mode server.properties, logging what has no effect', () => {
    const config = loadBrokerConfig({ file: 'kraft/server.properties', properties: fixture('kafka-kraft-server.properties') });
    expect(config.processRoles).toEqual(['broker', 'controller']);
    expect(config.ignoredConfigs).toEqual(expect.arrayContaining([
      'num.network.threads', 'num.io.threads', 'share.coordinator.state.topic.replication.factor', 'share.coordinator.state.topic.min.isr',
    ]));
  });

  it('loads Kafka\'s sample (ZooKeeper-mode) server.properties', () => {
    const config = loadBrokerConfig({ file: 'server.properties', properties: fixture('kafka-server.properties') });
    expect(config.ignoredConfigs).toContain('zookeeper.connect');
  });

  it('accepts an --override of every Kafka broker config it does not implement, at Kafka\'s default, with no effect', () => {
    const own = new Set(TRIBUTARY_BROKER_CONFIG_DEFS.map((def) => def.name));
    let checked = 0;
    for (const info of kafkaBrokerConfigs()) {
      if (own.has(info.name) || info.defaultValue === null) continue;
      const config = loadBrokerConfig({ overrides: { [info.name]: info.defaultValue } });
      expect(config.ignoredConfigs, info.name).toEqual([info.name]);
      checked++;
    }
    expect(checked).toBeGreaterThan(150);
  });

  it('accepts log.cleaner.backoff.ms and sasl.kerberos.min.time.before.relogin (issue 13\'s examples)', () => {
    expect(() => loadBrokerConfig({ overrides: { 'log.cleaner.backoff.ms': '1000', 'sasl.kerberos.min.time.before.relogin': '30000' } })).not.toThrow();
  });

  it('validates a no-effect config with Kafka\'s validator', () => {
    expect(() => loadBrokerConfig({ overrides: { 'log.cleaner.io.buffer.load.factor': 'lots' } })).toThrow(/log\.cleaner\.io\.buffer\.load\.factor.*not a number/);
    expect(() => loadBrokerConfig({ overrides: { 'background.threads': '0' } })).toThrow(/below the minimum 1/);
  });

  it('still refuses a true typo with a "did you mean"', () => {
    const error = (() => {
      try {
        loadBrokerConfig({ overrides: { 'log.cleaner.backof.ms': '1000' } });
      } catch (caught) {
        return caught as ConfigError;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.message).toContain('Did you mean log.cleaner.backoff.ms');
  });

  it('accepts Kafka\'s per-listener configs (listener.name.<listener>.<config>) without effect', () => {
    const config = loadBrokerConfig({ overrides: { 'listener.name.internal.ssl.keystore.location': '/etc/kafka/keystore.jks' } });
    expect(config.ignoredConfigs).toEqual(['listener.name.internal.ssl.keystore.location']);
  });

  it('accepts every topic config Kafka has, validated with Kafka\'s rules, and refuses typos', () => {
    const accepted = validateTopicConfigs([
      { name: 'max.compaction.lag.ms', value: '60000' }, { name: 'segment.jitter.ms', value: '10' },
      { name: 'preallocate', value: 'true' }, { name: 'leader.replication.throttled.replicas', value: '0:1,1:2' },
      { name: 'follower.replication.throttled.replicas', value: '*' }, { name: 'message.downconversion.enable', value: 'false' },
      { name: 'local.retention.ms', value: '-2' }, { name: 'local.retention.bytes', value: '1000' },
      { name: 'remote.storage.enable', value: 'false' },
    ]);
    expect(accepted.errors).toEqual([]);
    const typo = validateTopicConfigs([{ name: 'max.compaction.lag', value: '1' }]);
    expect(typo.errors[0]!.errorMessage).toContain('Did you mean max.compaction.lag.ms');
    const bad = validateTopicConfigs([{ name: 'leader.replication.throttled.replicas', value: 'all' }]);
    expect(bad.errors[0]!.errorCode).toBe(40);
  });

  it('describes a topic\'s no-effect configs with Kafka\'s default and documentation saying so', () => {
    const broker = loadBrokerConfig({ overrides: { 'log.preallocate': 'true' } });
    const described = describeTopicConfigs({ 'segment.jitter.ms': '5' }, broker, { includeSynonyms: true, includeDocumentation: true });
    const jitter = described.find((config) => config.name === 'segment.jitter.ms')!;
    expect(jitter.value).toBe('5');
    expect(jitter.configSource).toBe(1);
    expect(jitter.documentation).toMatch(/^No effect in Tributary/);
    const preallocate = described.find((config) => config.name === 'preallocate')!;
    expect(preallocate).toMatchObject({ value: 'true', configSource: 4 });
    expect(preallocate.synonyms).toEqual([
      { name: 'log.preallocate', value: 'true', source: 4 },
      { name: 'log.preallocate', value: 'false', source: 5 },
    ]);
    expect(described.map((config) => config.name)).toEqual(expect.arrayContaining(kafkaTopicConfigs().map((info) => info.name)));
  });
});
