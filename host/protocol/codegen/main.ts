/**
 * `npm run generate:protocol`: regenerates host/protocol/generated/ from Kafka's JSON schemas.
 * Usage: node dist/host/protocol/codegen/main.js [kafka-protocol dir] (default
 * <repo>/../shared/kafka-protocol). Stale generated files (carrying the generated header but no
 * longer produced) are removed; hand-written files are never touched.
 */
import { existsSync, readFileSync, readdirSync, unlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GENERATED_HEADER, generateAll } from './generate.js';

/** The repository root: the nearest ancestor of this file holding package.json. */
export function findRepoRoot(start: string): string {
  let dir = start;
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${start}`);
    dir = parent;
  }
}

function main(): void {
  const root = findRepoRoot(dirname(fileURLToPath(import.meta.url)));
  const protocolDir = resolve(process.argv[2] ?? join(root, '..', 'shared', 'kafka-protocol'));
  if (!existsSync(join(protocolDir, 'messages'))) {
    console.error(`generate:protocol: no Kafka schemas at ${protocolDir}/messages (pass the kafka-protocol directory as an argument)`);
    process.exit(1);
  }
  const outDir = join(root, 'host', 'protocol', 'generated');
  mkdirSync(outDir, { recursive: true });
  const files = generateAll(protocolDir);
  let changed = 0;
  for (const [name, text] of files) {
    const path = join(outDir, name);
    if (existsSync(path) && readFileSync(path, 'utf8') === text) continue;
    writeFileSync(path, text);
    changed++;
  }
  for (const name of readdirSync(outDir)) {
    if (!name.endsWith('.ts') || files.has(name)) continue;
    const path = join(outDir, name);
    if (readFileSync(path, 'utf8').startsWith(GENERATED_HEADER)) {
      unlinkSync(path);
      changed++;
    }
  }
  console.log(`generate:protocol: ${files.size} files from ${protocolDir}, ${changed} changed`);
}

main();
