/**
 * `npm run build:browser` (host/clients/browser/build-bundle.mjs): the client library bundles for browsers
 * with the Node-only modules swapped out, and the build fails when a Node built-in would reach
 * the bundle. Bundles go to a temp dir so the test never races a concurrent `npm run build`.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'tributary-bundle-'));

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function buildBrowser(entry: string, outfile: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['host/clients/browser/build-bundle.mjs', '--entry', entry, '--outfile', outfile], { timeout: 60_000 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

describe('The browser build', () => {
  it('bundles the client library without any Node built-in', async () => {
    const outfile = join(dir, 'tributary.js');
    const { code, output } = await buildBrowser('host/clients/browser.ts', outfile);
    expect(output).toContain('no Node built-ins');
    expect(code).toBe(0);
    const bundle = readFileSync(outfile, 'utf8');
    expect(bundle).not.toMatch(/from\s*["']node:|require\(["']node:|import\(["']node:/);
    // The swapped-in modules are there, the Node ones are not.
    expect(bundle).toContain('not supported in the browser bundle');
    expect(bundle).toContain('TCP is not available in a browser');
    expect(bundle).not.toContain('@assemblyscript/loader');
    expect(bundle).toMatch(/export\s*\{[^}]*\bviaWebSocketGateway\b/);
  });

  it('fails when an entry pulls in a Node built-in', async () => {
    const entry = join(dir, 'uses-fs.ts');
    writeFileSync(entry, "import { readFileSync } from 'node:fs';\nexport const read = readFileSync;\n");
    const { code, output } = await buildBrowser(entry, join(dir, 'uses-fs.js'));
    expect(code).toBe(1);
    expect(output).toMatch(/Could not resolve "node:fs"/);
  });

  it('fails when the WebAssembly core is imported without the browser swap', async () => {
    const entry = join(dir, 'uses-core.ts');
    writeFileSync(entry, `export { getCore } from ${JSON.stringify(join(process.cwd(), 'host/wasm/core.ts'))};\n`);
    const { code, output } = await buildBrowser(entry, join(dir, 'uses-core.js'));
    expect(code).toBe(1);
    expect(output).toMatch(/Could not resolve "node:(fs|path|url)"/);
  });
});
