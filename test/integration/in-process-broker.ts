/**
 * Starts a broker in this process for integration tests: the library shape of startBroker,
 * 127.0.0.1 port 0, a fresh temp log.dirs, silent logs unless a destination is given. `close()`
 * stops it and removes the directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBroker, type RunningBroker } from '../../host/broker.js';
import { createLogger } from '../../host/observability/logger.js';
import type { Logger } from '../../host/observability/logger.js';

export interface TestBroker {
  broker: RunningBroker;
  logDir: string;
  /** Lines the broker logged (JSON objects), when started with `captureLogs`. */
  logLines: Record<string, unknown>[];
  /** Stops the broker and starts a new one on the same log.dirs (and the same overrides). */
  restart(): Promise<RunningBroker>;
  /** Stops the broker (idempotent) and removes log.dirs. */
  close(): Promise<void>;
}

export async function startTestBroker(
  overrides: Record<string, string | number | boolean> = {},
  options: { logDir?: string; captureLogs?: boolean } = {},
): Promise<TestBroker> {
  const logDir = options.logDir ?? mkdtempSync(join(tmpdir(), 'tributary-it-'));
  const logLines: Record<string, unknown>[] = [];
  const makeLogger = (): Logger => createLogger({
    level: options.captureLogs ? 'debug' : 'silent',
    destination: {
      write(line: string) {
        if (options.captureLogs) logLines.push(JSON.parse(line) as Record<string, unknown>);
      },
    },
  });
  const all = { 'group.initial.rebalance.delay.ms': 0, ...overrides };
  const start = (): Promise<RunningBroker> => startBroker({ logDirs: [logDir], overrides: all, logger: makeLogger() });
  const handle: TestBroker = {
    broker: await start(),
    logDir,
    logLines,
    async restart() {
      await handle.broker.stop();
      handle.broker = await start();
      return handle.broker;
    },
    async close() {
      await handle.broker.stop();
      if (options.logDir === undefined) rmSync(logDir, { recursive: true, force: true });
    },
  };
  return handle;
}
