#!/usr/bin/env node
/**
 * Rewrites README.md's generated config reference from the config definitions: the table under
 * ### Broker configs, the list under ### Kafka broker configs without effect and the table under
 * ### Topic configs. Each is replaced in place (from its first `|` or `- ` line after the heading
 * to the next blank line), so the prose around them, and the sections between them (### Fixed
 * bounds), stay as written. Needs the TypeScript build (dist/):
 *   npx tsc -p tsconfig.json && node scripts/update-readme-configs.mjs
 * test/docs/readme.test.ts fails when README.md and the definitions differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const reference = await import(new URL('../dist/host/config/config-reference.js', import.meta.url));
const path = new URL('../README.md', import.meta.url);
let readme = readFileSync(path, 'utf8');

/** Replaces the generated block under `heading` (its first line starting with `marker`, up to the next blank line) with `text`. */
function replaceBlock(heading, marker, text) {
  const at = readme.indexOf(`\n${heading}\n`);
  if (at < 0) throw new Error(`README.md has no "${heading}" heading`);
  const start = readme.indexOf(`\n${marker}`, at + heading.length + 1) + 1;
  if (start <= 0) throw new Error(`README.md has no block starting with "${marker}" under "${heading}"`);
  const blank = readme.indexOf('\n\n', start);
  const end = blank < 0 ? readme.length : blank + 1;
  readme = readme.slice(0, start) + text + readme.slice(end);
}

replaceBlock('### Broker configs', '|', reference.brokerConfigReferenceMarkdown());
replaceBlock('### Kafka broker configs without effect', '- ', reference.kafkaOnlyBrokerConfigsMarkdown());
replaceBlock('### Topic configs', '|', reference.topicConfigReferenceMarkdown());
writeFileSync(path, readme);
console.log('README.md config reference updated');
