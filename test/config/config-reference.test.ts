import { describe, expect, it } from 'vitest';
import { brokerConfigDefs, TRIBUTARY_BROKER_CONFIG_DEFS } from '../../host/config/broker-config.js';
import { brokerConfigReferenceMarkdown, kafkaOnlyBrokerConfigsMarkdown, topicConfigReferenceMarkdown } from '../../host/config/config-reference.js';
import { topicConfigDefs } from '../../host/config/topic-config.js';

describe('config reference', () => {
  it('has one Markdown row per broker config with its default and accepted values', () => {
    const markdown = brokerConfigReferenceMarkdown();
    const rows = markdown.trim().split('\n').slice(2);
    expect(rows).toHaveLength(TRIBUTARY_BROKER_CONFIG_DEFS.length);
    expect(markdown).toContain('| `num.partitions` | `1` | an integer >= 1 | Partitions of auto-created topics');
    expect(markdown).toContain('| `log.retention.ms` | (none) | a 64-bit integer >= -1 |');
    for (const row of rows) expect(row.split(/(?<!\\)\|/)).toHaveLength(6);
  });

  it('names every other Kafka broker config once, under the reason it has no effect', () => {
    const markdown = kafkaOnlyBrokerConfigsMarkdown();
    const named = [...markdown.matchAll(/`([^`]+)`/g)].map((match) => match[1]);
    expect(named.length + TRIBUTARY_BROKER_CONFIG_DEFS.length).toBe(brokerConfigDefs().length);
    expect(new Set(named).size).toBe(named.length);
    expect(markdown).toContain('`sasl.kerberos.min.time.before.relogin`');
    expect(markdown).toMatch(/^- Tributary has no ZooKeeper mode: .*`zookeeper.session.timeout.ms`/m);
  });

  it('lists each topic config with the broker configs its default comes from', () => {
    const markdown = topicConfigReferenceMarkdown();
    expect(markdown.trim().split('\n').slice(2)).toHaveLength(topicConfigDefs().length);
    expect(markdown).toContain('| `retention.ms` | `604800000` | a 64-bit integer >= -1 | `log.retention.ms`, `log.retention.minutes`, `log.retention.hours` |');
  });
});
