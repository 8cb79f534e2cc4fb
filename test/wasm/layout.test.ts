import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BatchAttributes, BatchLayout, MAGIC_V2, RECORD_BATCH_OVERHEAD } from '../../host/wasm/batch-layout.js';
import { ResultLayout } from '../../host/wasm/result-layout.js';

/** Evaluates the `export const NAME: type = expression;` lines of AssemblyScript files in order. */
function assemblyConstants(...files: string[]): Record<string, number> {
  const values: Record<string, number> = {};
  for (const file of files) {
    const source = readFileSync(new URL(`../../assembly/${file}`, import.meta.url), 'utf8');
    for (const [, name, expression] of source.matchAll(/export const (\w+): \w+ = ([^;]+);/g)) {
      const substituted = expression!.replace(/<\w+>/g, '').replace(/[A-Z][A-Z0-9_]+/g, (identifier) => {
        if (!(identifier in values)) throw new Error(`${file}: ${identifier} used before definition`);
        return String(values[identifier]);
      });
      values[name!] = Function(`return (${substituted});`)() as number;
    }
  }
  return values;
}

describe('host layout constants', () => {
  it('match assembly/record/batch-layout.ts', () => {
    const assembly = assemblyConstants('record/batch-layout.ts');
    for (const [name, value] of Object.entries(BatchLayout)) {
      const assemblyName = name === 'LOG_OVERHEAD' ? name : `${name}_OFFSET`;
      expect([name, assembly[assemblyName]]).toEqual([name, value]);
    }
    for (const [name, value] of Object.entries(BatchAttributes)) expect([name, assembly[name]]).toEqual([name, value]);
    expect(assembly.RECORD_BATCH_OVERHEAD).toBe(61);
    expect(RECORD_BATCH_OVERHEAD).toBe(assembly.RECORD_BATCH_OVERHEAD);
    expect(MAGIC_V2).toBe(assembly.MAGIC_V2);
    expect(assembly.MIN_BATCH_LENGTH).toBe(49);
  });

  it('match assembly/record/result-layout.ts', () => {
    const assembly = assemblyConstants('memory/layout.ts', 'record/batch-layout.ts', 'record/result-layout.ts');
    for (const [name, value] of Object.entries(ResultLayout)) {
      const assemblyName = name.startsWith('ENTRY_') ? name : `RESULT_${name}`;
      expect([name, assembly[assemblyName]]).toEqual([name, value]);
    }
  });
});
