import { describe, expect, it } from 'vitest';
import { BROKER_CONFIG_DEFS } from '../../host/config/broker-config.js';
import { brokerConfigReferenceMarkdown, topicConfigReferenceMarkdown } from '../../host/config/config-reference.js';
import { TOPIC_CONFIG_DEFS } from '../../host/config/topic-config.js';

describe('config reference', () => {
  it('has one Markdown row per broker config with its default and accepted values', () => {
    const markdown = brokerConfigReferenceMarkdown();
    const rows = markdown.trim().split('\n').slice(2);
    expect(rows).toHaveLength(BROKER_CONFIG_DEFS.length);
    expect(markdown).toContain('| `num.partitions` | `1` | an integer >= 1 | Partitions of auto-created topics');
    expect(markdown).toContain('| `log.retention.ms` | (none) | a 64-bit integer >= -1 |');
    for (const row of rows) expect(row.split(/(?<!\\)\|/)).toHaveLength(6);
  });

  it('lists each topic config with the broker configs its default comes from', () => {
    const markdown = topicConfigReferenceMarkdown();
    expect(markdown.trim().split('\n').slice(2)).toHaveLength(TOPIC_CONFIG_DEFS.length);
    expect(markdown).toContain('| `retention.ms` | `604800000` | a 64-bit integer >= -1 | `log.retention.ms`, `log.retention.minutes`, `log.retention.hours` |');
  });
});
