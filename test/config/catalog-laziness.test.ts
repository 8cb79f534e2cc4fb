/**
 * The Kafka config catalog (66 KB of generated JSON, about 360 configs) is read only when a config
 * Tributary does not implement is met (issue 10: the quick start's ready time does not get worse).
 * This file runs in its own module graph (vitest isolates test files), so the catalog starts unread.
 */
import { describe, expect, it } from 'vitest';
import { brokerConfigDefs, loadBrokerConfig } from '../../host/config/broker-config.js';
import { kafkaConfigCatalogLoaded } from '../../host/config/kafka-config-catalog.js';
import { brokerLogConfigDefaults, toLogConfig, validateTopicConfigs } from '../../host/config/topic-config.js';

describe('the Kafka config catalog', () => {
  it('is not read by the default configuration, its topic defaults or Tributary\'s own topic configs; then read by a Kafka-only config', () => {
    const config = loadBrokerConfig({ overrides: { 'log.dirs': '/tmp/unused', 'num.partitions': '3' } });
    expect(config.numPartitions).toBe(3);
    expect(config.values.get('num.partitions')).toBe(3);
    brokerLogConfigDefaults(config);
    toLogConfig({ 'retention.ms': '1000', 'cleanup.policy': 'compact' }, config);
    expect(validateTopicConfigs([{ name: 'segment.bytes', value: '1048576' }]).errors).toEqual([]);
    expect(kafkaConfigCatalogLoaded()).toBe(false);

    // Any other key of `values` completes the map: every Kafka broker config has its default.
    expect(config.values.get('background.threads')).toBe(10);
    expect(kafkaConfigCatalogLoaded()).toBe(true);
    expect([...config.values.keys()]).toEqual(expect.arrayContaining(brokerConfigDefs().map((def) => def.name)));
    expect(config.values.size).toBe(brokerConfigDefs().length);
  });
});
