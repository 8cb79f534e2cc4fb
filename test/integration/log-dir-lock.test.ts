import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startBroker } from '../../host/broker.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { startTestBroker, type TestBroker } from './in-process-broker.js';
import { RawKafkaClient } from './raw-kafka-client.js';
import { createTopic } from './requests.js';

const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempLogDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'tributary-lock-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function started(logDir: string, captureLogs = false): Promise<TestBroker> {
  const broker = await startTestBroker({}, { logDir, captureLogs });
  cleanups.push(() => broker.close());
  return broker;
}

describe('one broker per log directory', () => {
  it('refuses a second broker on the same log.dirs at start, and the first keeps serving', async () => {
    const logDir = tempLogDir();
    const first = await started(logDir);
    await expect(startBroker({ logDirs: [logDir], overrides: { 'log.level': 'silent' } }))
      .rejects.toThrow(`log directory ${path.resolve(logDir)} is in use by another broker in this process (pid ${process.pid})`);
    const client = await RawKafkaClient.connect(first.broker.port);
    cleanups.push(() => client.close());
    expect(await createTopic(client, 'still-served')).toBe(ErrorCode.NONE);
    // Once the first stops, the directory is free again (and keeps its data).
    await first.broker.stop();
    expect(existsSync(path.join(logDir, '.lock'))).toBe(false);
    const second = await startBroker({ logDirs: [logDir], overrides: { 'log.level': 'silent' } });
    cleanups.push(() => second.stop());
    expect(second.clusterId).toBe(first.broker.clusterId);
  });

  it('takes over a stale lock file left by a dead broker, with a warning', async () => {
    const logDir = tempLogDir();
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    writeFileSync(path.join(logDir, '.lock'), `${dead}\n00112233aabbccdd\n`);
    const broker = await started(logDir, true);
    expect(readFileSync(path.join(logDir, '.lock'), 'utf8').split('\n')[0]).toBe(String(process.pid));
    const warning = broker.logLines.find((line) => line['event'] === 'log_dir.stale_lock');
    expect(warning).toMatchObject({ level: 'warn', stalePid: dead });
    await broker.broker.stop();
    expect(existsSync(path.join(logDir, '.lock'))).toBe(false);
  });
});
