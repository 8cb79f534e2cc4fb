/**
 * What a single node started as `npm start` does (the HTTP listener on, one voter) never loads,
 * so its start-up does not pay for it (issue 10: the quick start's ready time does not get
 * worse): the client library (the `/json` sessions and the console load it with their first
 * socket or request), the replica fetchers (with the first partition followed) and the
 * AlterPartitionManager (with the first ISR proposal), and the Kafka config catalog (the
 * generated table of Kafka's configs, read only when a config Tributary does not implement is met).
 * The broker runs from dist/ under a module-loading hook that reports every module, and a wrapper
 * of `fs.readFileSync` that reports reads of the catalog's JSON.
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

/**
 * `node --import <register>`: a load hook (on the hooks thread) writing each file module to stderr,
 * synchronously, and `fs.readFileSync` wrapped (named imports too, syncBuiltinESMExports) to write
 * `CATALOG_READ <path>` for each read of generated/kafka-configs.json.
 */
function moduleReportingHook(): string {
  const hooks = join(hookDir, 'hooks.mjs');
  writeFileSync(hooks, `import { writeSync } from 'node:fs';
export async function load(url, context, next) {
  if (url.startsWith('file:')) writeSync(2, 'MODULE_LOADED ' + url + '\\n');
  return next(url, context);
}
`);
  const register = join(hookDir, 'register.mjs');
  writeFileSync(register, `import fs from 'node:fs';
import { register, syncBuiltinESMExports } from 'node:module';
register(${JSON.stringify(pathToFileURL(hooks).href)});
const readFileSync = fs.readFileSync;
fs.readFileSync = function reportingReadFileSync(file, ...rest) {
  if (String(file).endsWith('kafka-configs.json')) fs.writeSync(2, 'CATALOG_READ ' + String(file) + '\\n');
  return readFileSync.call(this, file, ...rest);
};
syncBuiltinESMExports();
`);
  return register;
}

/** The stderr lines of a broker run under {@link moduleReportingHook} that start with `prefix`, without it. */
function reported(lines: readonly string[], prefix: string): string[] {
  return lines.filter((line) => line.startsWith(prefix)).map((line) => line.slice(prefix.length));
}

describe('the single-node quick start', () => {
  it('never loads the client library, the console application, the replica fetchers, the AlterPartitionManager or the Kafka config catalog', async () => {
    const httpPort = await findFreePort();
    const broker = await startBrokerProcess({
      command: { file: process.execPath, args: ['--import', moduleReportingHook(), BROKER_CLI_PATH, 'broker'] },
      overrides: { 'http.listeners': `127.0.0.1:${httpPort}` },
    });
    expect((await fetch(`http://127.0.0.1:${httpPort}/ready`)).status).toBe(200);
    await broker.stop();
    const loaded = reported(broker.stderrLines, 'MODULE_LOADED ');
    expect(loaded.some((url) => url.endsWith('/dist/host/server/broker-server.js'))).toBe(true);
    const unwanted = loaded.filter((url) =>
      /\/dist\/host\/clients\//.test(url) ||
      /\/dist\/host\/gateway\/json-session\.js$/.test(url) ||
      /\/dist\/host\/console\/console-(application|clients)\.js$/.test(url) ||
      /\/dist\/host\/server\/replica-fetching\.js$/.test(url) ||
      /\/dist\/host\/replication\/(alter-partition-manager|replica-fetcher-manager)\.js$/.test(url));
    expect(unwanted).toEqual([]);
    expect(reported(broker.stderrLines, 'CATALOG_READ ')).toEqual([]);
    await broker.close();
  });

  it('reads the Kafka config catalog when a config Tributary does not implement is set, and says it has no effect', async () => {
    const broker = await startBrokerProcess({
      command: { file: process.execPath, args: ['--import', moduleReportingHook(), BROKER_CLI_PATH, 'broker'] },
      overrides: { 'background.threads': '4' },
    });
    await broker.stop();
    expect(reported(broker.stderrLines, 'CATALOG_READ ')).toEqual([expect.stringMatching(/\/dist\/host\/config\/generated\/kafka-configs\.json$/)]);
    expect(broker.stdoutLines.some((line) => line.includes('"event":"config.ignored"') && line.includes('"config":"background.threads"'))).toBe(true);
    await broker.close();
  });
});

