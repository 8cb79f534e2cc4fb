/**
 * The broker used as a library, the way a Node project would test against it
 * without Docker: `import { startBroker } from 'tributary'` (the package's own
 * export, i.e. the built dist/host/index.js), port 0, a temp log dir, then real
 * clients (kafkajs in-process, kcat as a process) against it, stop and start again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { startBroker } from 'tributary';
import { afterAll, describe, expect, it } from 'vitest';
import { formatRun, KCAT, killAllClientProcesses, run, uniqueName } from './processes.js';

const dataDir = mkdtempSync(join(tmpdir(), 'tributary-library-'));
const running: { stop(): Promise<void> }[] = [];

afterAll(async () => {
  killAllClientProcesses();
  await Promise.allSettled(running.map((broker) => broker.stop()));
  rmSync(dataDir, { recursive: true, force: true });
});

describe('startBroker() from the package entry', { timeout: 120_000 }, () => {
  it('binds a free port, serves kafkajs and kcat, and keeps the data across stop() and a new startBroker() on the same dir', async () => {
    const options = { logDirs: [dataDir], overrides: { 'group.initial.rebalance.delay.ms': 0, 'offsets.topic.num.partitions': 3, 'http.listeners': '' } };
    const first = await startBroker(options);
    running.push(first);
    expect(first.port).toBeGreaterThan(0);
    expect(first.bootstrap).toBe(`${first.host}:${first.port}`);

    const topic = uniqueName('library');
    const kafka = new Kafka({ clientId: 'library', brokers: [first.bootstrap], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    const producer = kafka.producer();
    await admin.connect();
    await producer.connect();
    try {
      await admin.createTopics({ topics: [{ topic, numPartitions: 2 }], waitForLeaders: true });
      await producer.send({ topic, messages: Array.from({ length: 6 }, (_, i) => ({ key: `k${i}`, value: `lib-${i}`, partition: i % 2 })) });
    } finally {
      await producer.disconnect();
      await admin.disconnect();
    }
    const listed = await run(KCAT, ['-b', first.bootstrap, '-m', '10', '-L', '-J', '-t', topic], { timeoutMs: 30_000 });
    expect(listed.code, formatRun(listed)).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject({ brokers: [{ id: first.nodeId, name: first.bootstrap }], topics: [{ topic }] });
    await first.stop();

    const second = await startBroker(options);
    running.push(second);
    const consumed = await run(KCAT, ['-b', second.bootstrap, '-m', '10', '-C', '-t', topic, '-o', 'beginning', '-e', '-J'], { timeoutMs: 30_000 });
    expect(consumed.code, formatRun(consumed)).toBe(0);
    const records = consumed.stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { partition: number; offset: number; payload: string });
    expect(records.map((r) => [r.partition, r.offset, r.payload]).sort()).toEqual(
      Array.from({ length: 6 }, (_, i) => [i % 2, Math.floor(i / 2), `lib-${i}`]).sort(),
    );
    await second.stop();
  });
});
