/**
 * What a single node started as `npm start` does (the HTTP listener on, one voter) never loads,
 * so its start-up does not pay for it (issue 10: the quick start's ready time does not get
 * worse): the client library (the `/json` sessions and the console load it with their first
 * socket or request), the replica fetchers (with the first partition followed) and the
 * AlterPartitionManager (with the first ISR proposal). The broker runs from dist/ under a module-loading hook that reports every module.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BROKER_CLI_PATH, findFreePort, startBrokerProcess, stopAllBrokerProcesses } from '../helpers/broker-process.js';

const hookDir = mkdtempSync(join(tmpdir(), 'tributary-module-hook-'));
afterAll(async () => {
  await stopAllBrokerProcesses();
  rmSync(hookDir, { recursive: true, force: true });
});

/** `node --import <register>`: a load hook (on the hooks thread) writing each file module to stderr, synchronously. */
function moduleReportingHook(): string {
  const hooks = join(hookDir, 'hooks.mjs');
  writeFileSync(hooks, `import { writeSync } from 'node:fs';
export async function load(url, context, next) {
  if (url.startsWith('file:')) writeSync(2, 'MODULE_LOADED ' + url + '\\n');
  return next(url, context);
}
`);
  const register = join(hookDir, 'register.mjs');
  writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  return register;
}

describe('the single-node quick start', () => {
  it('never loads the client library, the console application, the replica fetchers or the AlterPartitionManager', async () => {
    const httpPort = await findFreePort();
    const broker = await startBrokerProcess({
      command: { file: process.execPath, args: ['--import', moduleReportingHook(), BROKER_CLI_PATH, 'broker'] },
      overrides: { 'http.listeners': `127.0.0.1:${httpPort}` },
    });
    expect((await fetch(`http://127.0.0.1:${httpPort}/ready`)).status).toBe(200);
    await broker.stop();
    const loaded = broker.stderrLines.filter((line) => line.startsWith('MODULE_LOADED ')).map((line) => line.slice('MODULE_LOADED '.length));
    expect(loaded.some((url) => url.endsWith('/dist/host/server/broker-server.js'))).toBe(true);
    const unwanted = loaded.filter((url) =>
      /\/dist\/host\/clients\//.test(url) ||
      /\/dist\/host\/gateway\/json-session\.js$/.test(url) ||
      /\/dist\/host\/console\/console-(application|clients)\.js$/.test(url) ||
      /\/dist\/host\/server\/replica-fetching\.js$/.test(url) ||
      /\/dist\/host\/replication\/(alter-partition-manager|replica-fetcher-manager)\.js$/.test(url));
    expect(unwanted).toEqual([]);
    await broker.close();
  });
});

