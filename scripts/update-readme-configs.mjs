#!/usr/bin/env node
/**
 * Rewrites README.md's config reference (### Broker configs, ### Kafka broker configs without
 * effect, ### Topic configs) from the config definitions. Needs the TypeScript build (dist/):
 *   npx tsc -p tsconfig.json && node scripts/update-readme-configs.mjs
 * test/docs/readme.test.ts fails when README.md and the definitions differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const reference = await import(new URL('../dist/host/config/config-reference.js', import.meta.url));
const path = new URL('../README.md', import.meta.url);
const readme = readFileSync(path, 'utf8');
const start = readme.indexOf('### Broker configs\n');
const end = readme.indexOf('\n## ', start);
if (start < 0 || end < 0) throw new Error('README.md has no "### Broker configs" section followed by a "## " heading');
const section = [
  '### Broker configs\n\n',
  reference.brokerConfigReferenceMarkdown(),
  '\n### Kafka broker configs without effect\n\n',
  'Every other broker config of Kafka 3.9/4.x is accepted with Kafka\'s type, default and validator,\n',
  'so a Kafka `server.properties`, an `--override` or an AlterConfigs from a Kafka tool works; the\n',
  'broker logs one line per such config it is given (`config NAME has no effect in Tributary: REASON`),\n',
  'and DescribeConfigs documents each as having no effect. The names, by reason:\n\n',
  reference.kafkaOnlyBrokerConfigsMarkdown(),
  '\n### Topic configs\n\n',
  reference.topicConfigReferenceMarkdown(),
].join('');
writeFileSync(path, readme.slice(0, start) + section + readme.slice(end));
console.log('README.md config reference updated');
