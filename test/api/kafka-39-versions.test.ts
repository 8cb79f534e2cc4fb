/**
 * Every API the broker advertises in ApiVersions against Apache Kafka 3.9's highest version (issue
 * 13, "API versions"): the broker serves Kafka 3.9's latest unless host/api/kafka-version-gaps.ts
 * states why not (the README's API table shows the reason, test/docs checks it).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createApiRegistry } from '../../host/api/api-handlers.js';
import { KAFKA_3_9_MAX_VERSION, WHY_NOT_KAFKA_3_9_LATEST } from '../../host/api/kafka-version-gaps.js';
import { API_INFO, ApiKey, apiKeyName } from '../../host/protocol/generated/api-keys.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** ../shared/kafka-protocol of the main checkout, or of a worktree one level further down. */
const protocolDir = [join(repoRoot, '..', 'shared'), join(repoRoot, '..', '..', 'shared')]
  .map((dir) => join(dir, 'kafka-protocol', 'messages'))
  .find((dir) => existsSync(dir));
/** Latest versions Kafka 3.9 marks `latestVersionUnstable` (not advertised): EndTxn v5 (KIP-890 part 2). */
const UNSTABLE_LATEST_IN_3_9 = [ApiKey.EndTxn];

/** api key -> Kafka's highest stable version, read from the *Request.json schemas (comments stripped). */
function schemaMaxVersions(protocolDir: string): Map<number, number> {
  const result = new Map<number, number>();
  for (const file of readdirSync(protocolDir).filter((name) => name.endsWith('Request.json'))) {
    const text = readFileSync(join(protocolDir, file), 'utf8').replace(/^\s*\/\/.*$/gm, '');
    const schema = JSON.parse(text) as { apiKey?: number; validVersions: string; latestVersionUnstable?: boolean };
    if (schema.apiKey === undefined) continue;
    const max = Number(schema.validVersions.split('-').at(-1));
    result.set(schema.apiKey, schema.latestVersionUnstable === true ? max - 1 : max);
  }
  return result;
}

describe('ApiVersions against Kafka 3.9', () => {
  const ranges = createApiRegistry().apiVersions();

  it('knows Kafka 3.9\'s highest version of exactly the APIs the broker advertises', () => {
    expect(Object.keys(KAFKA_3_9_MAX_VERSION).map(Number).sort((a, b) => a - b)).toEqual(ranges.map((r) => r.apiKey));
  });

  it('never advertises a version Kafka 3.9 does not serve', () => {
    for (const range of ranges) {
      expect(range.maxVersion, apiKeyName(range.apiKey)).toBeLessThanOrEqual(KAFKA_3_9_MAX_VERSION[range.apiKey]!);
    }
  });

  it('serves Kafka 3.9\'s latest version of every API unless a reason says why not, and keeps no stale reason', () => {
    const missing: string[] = [];
    const stale: string[] = [];
    for (const range of ranges) {
      const name = `${apiKeyName(range.apiKey)} (${range.maxVersion} < ${KAFKA_3_9_MAX_VERSION[range.apiKey]})`;
      const behind = range.maxVersion < KAFKA_3_9_MAX_VERSION[range.apiKey]!;
      const reason = WHY_NOT_KAFKA_3_9_LATEST[range.apiKey];
      if (behind && (reason === undefined || reason.trim() === '')) missing.push(name);
      if (!behind && reason !== undefined) stale.push(apiKeyName(range.apiKey));
    }
    expect(missing, 'APIs below Kafka 3.9 with no stated reason').toEqual([]);
    expect(stale, 'reasons for APIs that serve Kafka 3.9\'s latest').toEqual([]);
    expect(Object.keys(WHY_NOT_KAFKA_3_9_LATEST).map(Number).filter((key) => KAFKA_3_9_MAX_VERSION[key] === undefined)).toEqual([]);
  });

  it(protocolDir !== undefined
    ? 'takes its Kafka 3.9 maxima from Kafka\'s request schemas (../shared/kafka-protocol)'
    : 'takes its Kafka 3.9 maxima from the codecs generated from Kafka\'s request schemas', () => {
    const schemas = protocolDir !== undefined ? schemaMaxVersions(protocolDir) : undefined;
    for (const [key, max] of Object.entries(KAFKA_3_9_MAX_VERSION).map(([k, v]) => [Number(k), v] as const)) {
      const generated = API_INFO.find((info) => info.apiKey === key)!.maxVersion;
      expect(max, apiKeyName(key)).toBe(UNSTABLE_LATEST_IN_3_9.includes(key) ? generated - 1 : generated);
      if (schemas !== undefined) expect(max, apiKeyName(key)).toBe(schemas.get(key));
    }
  });
});
