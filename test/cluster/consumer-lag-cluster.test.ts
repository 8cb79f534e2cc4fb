/**
 * Consumer lag in a cluster of three real broker processes (issue 14): a topic whose three
 * partitions have one replica each, on three different brokers, so the group coordinator holds a
 * replica of only one of them and must ask the other two leaders (ListOffsets, and a Fetch of the
 * batch at the committed offset for its timestamp) over its inter-broker client. A kafkajs member
 * that commits once and then never again is shown STALLED with its lag in offsets and in seconds,
 * for every partition, on every surface: `GET /consumer-lag`, `/metrics`, `tributary group
 * describe` (a real CLI process, which finds the coordinator's HTTP listener itself) and the web
 * console of a broker that is not the coordinator, in headless Chromium.
 *
 * The records carry a CreateTime two minutes in the past, so the lag in seconds is at least that
 * however long the test takes; waits are bounded guards, not timing assertions.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Kafka, logLevel } from 'kafkajs';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { chromium } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import type { GroupLagReport } from '../../host/metrics/consumer-lag-monitor.js';
import { BROKER_CLI_PATH, findFreePort, stopAllBrokerProcesses } from '../helpers/broker-process.js';
import { TestCluster } from './cluster.js';
import { kcatMetadata, until } from './cluster-probes.js';

const run = promisify(execFile);

afterAll(async () => {
  await stopAllBrokerProcesses();
});

const TOPIC = 'spread-lag';
const GROUP = 'stalled-across-brokers';
const RECORDS = 10;
const COMMITTED = 4;
/** The records' CreateTime is this far in the past, ms. */
const AGE_MS = 120_000;

interface Family { name: string; metrics: { value: string; labels?: Record<string, string> }[] }

function sample(families: Family[], name: string, labels: Record<string, string>): number | undefined {
  const found = families.find((f) => f.name === name)?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return found === undefined ? undefined : Number(found.value);
}

async function groupLag(http: string): Promise<GroupLagReport | undefined> {
  const response = await fetch(`http://${http}/consumer-lag?group=${GROUP}`);
  if (!response.ok) return undefined;
  return ((await response.json()) as { groups: GroupLagReport[] }).groups[0];
}

describe('consumer lag on a three-broker cluster of real processes', () => {
  it('shows a stalled group STALLED with lag in offsets and seconds for partitions led by every broker, on every surface', async () => {
    const httpPorts = new Map<number, number>();
    for (const id of [1, 2, 3]) httpPorts.set(id, await findFreePort());
    const cluster = await TestCluster.start({
      overrides: { 'consumer.lag.sample.interval.ms': 200, 'consumer.lag.window.ms': 2000, 'offsets.topic.replication.factor': 1 },
      nodeOverrides: (id) => ({ 'http.listeners': `127.0.0.1:${httpPorts.get(id)!}` }),
    });
    const kafka = new Kafka({ clientId: 'lag-cluster-test', brokers: cluster.bootstrap.split(','), logLevel: logLevel.NOTHING, retry: { retries: 10 } });
    const consumer = kafka.consumer({ groupId: GROUP, heartbeatInterval: 200 });
    try {
      await until('three brokers', async () => ((await kcatMetadata(cluster.bootstrap)).brokers.length === 3 ? true : undefined));
      const admin = kafka.admin();
      await admin.connect();
      await admin.createTopics({ topics: [{ topic: TOPIC, replicaAssignment: [0, 1, 2].map((partition) => ({ partition, replicas: [partition + 1] })) }] });
      await admin.disconnect();
      await until('a leader for every partition', async () => {
        const partitions = (await kcatMetadata(cluster.bootstrap)).partitions.get(TOPIC);
        return partitions?.length === 3 && partitions.every((p) => p.leader === p.partition + 1) ? true : undefined;
      });
      const producer = kafka.producer();
      await producer.connect();
      const timestamp = String(Date.now() - AGE_MS);
      for (let partition = 0; partition < 3; partition++) {
        await producer.send({ topic: TOPIC, acks: -1, messages: Array.from({ length: RECORDS }, (_, i) => ({ partition, timestamp, value: `p${partition}-${i}` })) });
      }
      await producer.disconnect();

      await consumer.connect();
      await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
      let seen = 0;
      await consumer.run({ autoCommit: false, eachMessage: async () => { seen++; } });
      await until('the member to read every record', async () => (seen >= 3 * RECORDS ? true : undefined));
      // One commit at offset 4 on each partition, then none while the member stays.
      await consumer.commitOffsets([0, 1, 2].map((partition) => ({ topic: TOPIC, partition, offset: String(COMMITTED) })));

      // The coordinator is the broker that reports the group; it leads one of the three partitions.
      const { coordinator, report } = await until('the coordinator to report the group STALLED on every partition', async () => {
        for (const [id, port] of httpPorts) {
          const found = await groupLag(`127.0.0.1:${port}`).catch(() => undefined);
          if (found?.status === 'STALLED' && found.partitions.length === 3 && found.partitions.every((p) => p.status === 'STALLED' && p.lagSeconds !== null)) {
            return { coordinator: id, report: found };
          }
        }
        return undefined;
      });
      const http = `127.0.0.1:${httpPorts.get(coordinator)!}`;
      expect(report.state).toBe('Stable');
      for (const partition of [0, 1, 2]) {
        const p = report.partitions.find((entry) => entry.partition === partition)!;
        expect(p, `partition ${partition} (leader ${partition + 1}, coordinator ${coordinator})`).toMatchObject({
          topic: TOPIC, committedOffset: COMMITTED, endOffset: RECORDS, lag: RECORDS - COMMITTED, status: 'STALLED',
        });
        expect(p.lagSeconds!).toBeGreaterThanOrEqual(AGE_MS / 1000);
      }

      const families = (parsePrometheusTextFormat as (text: string) => Family[])(await (await fetch(`http://${http}/metrics`)).text());
      const group = { consumergroup: GROUP };
      expect(sample(families, 'kafka_consumergroup_status', { ...group, status: 'STALLED' })).toBe(1);
      for (const partition of ['0', '1', '2']) {
        expect(sample(families, 'kafka_consumergroup_lag', { ...group, topic: TOPIC, partition })).toBe(RECORDS - COMMITTED);
        expect(sample(families, 'kafka_consumergroup_lag_seconds', { ...group, topic: TOPIC, partition })).toBeGreaterThanOrEqual(AGE_MS / 1000);
      }

      // No --http: the CLI finds the coordinator (FindCoordinator) and its http.listeners (DescribeConfigs).
      const cli = await run(process.execPath, [BROKER_CLI_PATH, 'group', 'describe', GROUP, '--json', '--brokers', cluster.bootstrap], { timeout: 30_000 });
      expect(cli.stderr).toBe('');
      const described = JSON.parse(cli.stdout)[0] as { status: string; offsets: { partition: number; lag: number; lagSeconds: number; status: string }[] };
      expect(described.status).toBe('STALLED');
      expect(described.offsets.map((o) => o.partition).sort()).toEqual([0, 1, 2]);
      for (const offset of described.offsets) {
        expect(offset).toMatchObject({ lag: RECORDS - COMMITTED, status: 'STALLED' });
        expect(offset.lagSeconds).toBeGreaterThanOrEqual(AGE_MS / 1000);
      }

      const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
      try {
        // The console of a broker that is not the coordinator: it asks the coordinator's HTTP listener.
        const other = [...httpPorts].find(([id]) => id !== coordinator)!;
        const page = await browser.newPage();
        await page.goto(`http://127.0.0.1:${other[1]}/console/#/groups/${GROUP}`);
        await page.waitForSelector('[data-testid="group-status"][data-status="STALLED"]');
        for (const partition of [0, 1, 2]) {
          const row = `[data-testid="offsets-table"] tr[data-partition="${partition}"]`;
          await page.waitForSelector(`${row} [data-status="STALLED"]`);
          expect(await page.textContent(`${row} [data-col="lag"]`)).toBe(String(RECORDS - COMMITTED));
          expect(await page.textContent(`${row} [data-col="lag-seconds"]`)).toMatch(/\d/);
        }
      } finally {
        await browser.close();
      }
    } finally {
      await consumer.disconnect().catch(() => undefined);
      await cluster.close();
    }
  }, 180_000);
});
