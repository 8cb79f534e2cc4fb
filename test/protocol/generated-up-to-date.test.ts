import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { GENERATED_HEADER, generateAll } from '../../host/protocol/codegen/generate.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const generatedDir = join(repoRoot, 'host', 'protocol', 'generated');
const protocolDir = join(repoRoot, '..', 'shared', 'kafka-protocol');
const modules = import.meta.glob<Record<string, unknown>>('../../host/protocol/generated/*.ts', { eager: true });

describe('host/protocol/generated', () => {
  it(existsSync(join(protocolDir, 'messages'))
    ? 'matches a fresh regeneration from ../shared/kafka-protocol byte for byte'
    : 'carries the generated header and loads with its codecs (../shared/kafka-protocol is absent, so no regeneration)', () => {
    const committed = readdirSync(generatedDir).filter((f) => f.endsWith('.ts')).sort();
    if (existsSync(join(protocolDir, 'messages'))) {
      const fresh = generateAll(protocolDir);
      expect(committed, 'generated file set (run npm run generate:protocol)').toEqual([...fresh.keys()]);
      for (const [name, text] of fresh) {
        expect(readFileSync(join(generatedDir, name), 'utf8') === text, `${name} is stale: run npm run generate:protocol`).toBe(true);
      }
    } else {
      expect(committed.length).toBeGreaterThan(30);
      for (const name of committed) {
        expect(readFileSync(join(generatedDir, name), 'utf8').startsWith(GENERATED_HEADER), name).toBe(true);
        const mod = modules[`../../host/protocol/generated/${name}`];
        expect(mod, name).toBeDefined();
        expect(Object.keys(mod!).length, name).toBeGreaterThan(0);
      }
    }
  });
});
