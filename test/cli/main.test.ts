import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The compiled CLI as users run it; `npm test` builds dist/ first.
const mainJs = resolve(dirname(fileURLToPath(import.meta.url)), '../../dist/host/cli/main.js');
const workDir = mkdtempSync(join(tmpdir(), 'tributary-cli-main-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

beforeAll(() => {
  if (!existsSync(mainJs)) throw new Error(`${mainJs} is missing: run npm run build before these tests`);
});

function tributary(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [mainJs, ...args], { cwd: workDir, encoding: 'utf8', timeout: 30_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('the tributary executable', () => {
  it('starts with a node shebang so that npm can link it as a bin', () => {
    expect(readFileSync(mainJs, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  it('exits 2 naming bogus.key for tributary broker --override bogus.key=1', () => {
    const result = tributary('broker', '--override', 'bogus.key=1');
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('Unknown broker config "bogus.key" (from --override)');
    expect(result.stderr).toContain('fix: ');
    expect(result.stdout).toBe('');
  });

  it('exits 2 naming the key, the value and what is accepted for a bad value', () => {
    const result = tributary('broker', '--override', 'num.partitions=abc');
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('Invalid value "abc" for config num.partitions (from --override): not an integer. Accepted: an integer >= 1.');
  });

  it('exits 2 naming a config file it cannot read', () => {
    const missing = join(workDir, 'missing.properties');
    const result = tributary('broker', '--config', missing);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`Cannot read config file ${missing}`);
  });

  it('prints its version and exits 0', () => {
    const result = tributary('--version');
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
