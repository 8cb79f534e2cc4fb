/**
 * An in-process Tributary broker for client integration tests: startBroker on 127.0.0.1:0 with a
 * temp log dir, removed on stop. Groups rebalance without the initial delay and the offsets topic
 * is small, so tests stay fast.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBroker, type RunningBroker } from '../../host/broker.js';

export interface TestBroker {
  broker: RunningBroker;
  bootstrap: string;
  logDir: string;
  stop(): Promise<void>;
}

export async function startTestBroker(overrides: Record<string, string | number | boolean> = {}): Promise<TestBroker> {
  const logDir = mkdtempSync(join(tmpdir(), 'tributary-clients-'));
  const broker = await startBroker({
    logDirs: logDir,
    overrides: {
      'group.initial.rebalance.delay.ms': 0,
      'offsets.topic.num.partitions': 3,
      'num.partitions': 1,
      ...overrides,
    },
  });
  return {
    broker,
    bootstrap: broker.bootstrap,
    logDir,
    async stop() {
      try {
        await broker.stop();
      } finally {
        rmSync(logDir, { recursive: true, force: true });
      }
    },
  };
}
