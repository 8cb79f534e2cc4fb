/**
 * README.md carries tables generated from the code (config reference, supported API versions):
 * these tests fail when the code changes and the README was not regenerated, so the documentation
 * a new user reads cannot drift from what the broker does.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createApiRegistry } from '../../host/api/api-handlers.js';
import { brokerConfigReferenceMarkdown, kafkaOnlyBrokerConfigsMarkdown, topicConfigReferenceMarkdown } from '../../host/config/config-reference.js';
import { KAFKA_3_9_MAX_VERSION, WHY_NOT_KAFKA_3_9_LATEST } from '../../host/api/kafka-version-gaps.js';
import { apiKeyName } from '../../host/protocol/generated/api-keys.js';
import { DEFAULT_MAX_EVICTABLE_INDEX_BYTES } from '../../host/log/index-memory.js';
import { DEFAULT_MAX_DECOMPRESSED_BYTES } from '../../host/record/compression-codecs.js';
import { getCore } from '../../host/wasm/core.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('README.md', () => {
  it('lists every broker config exactly as the config definitions describe it', () => {
    expect(readme).toContain(brokerConfigReferenceMarkdown());
  });

  it('names every Kafka broker config that has no effect, by reason, as the definitions say', () => {
    expect(readme).toContain(kafkaOnlyBrokerConfigsMarkdown());
  });

  it('lists every topic config exactly as the config definitions describe it', () => {
    expect(readme).toContain(topicConfigReferenceMarkdown());
  });

  it('lists exactly the API versions that ApiVersions advertises, with Kafka 3.9\'s and why not its latest', () => {
    const rows = createApiRegistry()
      .apiVersions()
      .map((range) => `| ${range.apiKey} | ${apiKeyName(range.apiKey)} | ${range.minVersion}–${range.maxVersion} | ` +
        `${KAFKA_3_9_MAX_VERSION[range.apiKey]} | ${WHY_NOT_KAFKA_3_9_LATEST[range.apiKey] ?? ''} |`);
    const table = readme.split('\n').filter((line) => /^\| \d+ \| \w+ \| \d+–\d+ \| /.test(line));
    expect(table).toEqual(rows);
  });

  it('states the fixed bounds as the build has them (WebAssembly memory, its regions, index bytes)', () => {
    const core = getCore();
    const asconfig = JSON.parse(readFileSync(new URL('../../asconfig.json', import.meta.url), 'utf8')) as { options: { maximumMemory: number } };
    const row = (bound: string): string => readme.split('\n').find((line) => line.startsWith(`| ${bound} |`)) ?? '';
    expect(row('WebAssembly memory')).toContain(`| ${asconfig.options.maximumMemory} pages of 64 KiB`);
    expect(row('batch scratch region')).toContain(`| ${core.maxBlobBytes / 2 ** 20} MiB |`);
    expect(row('index arena')).toContain(`| ${core.arenaCapacityBytes / 2 ** 20} MiB `);
    expect(row('evictable index bytes')).toContain(`| ${DEFAULT_MAX_EVICTABLE_INDEX_BYTES / 2 ** 20} MiB |`);
    expect(row('request frame ring')).toContain('| 32 MiB |');
    expect(row('decompressed records section')).toContain(`| ${DEFAULT_MAX_DECOMPRESSED_BYTES / 2 ** 20} MiB per batch |`);
  });

  it('gives the two-command quick start', () => {
    expect(readme).toContain('npm install && npm start');
    expect(readme).toMatch(/^npm test\b/m);
  });
});
