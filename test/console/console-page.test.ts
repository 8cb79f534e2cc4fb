/**
 * The web console (/console on the HTTP listener) in headless Debian Chromium, driven by
 * playwright-core, against an in-process broker holding records that kcat produced: every page
 * shows the numbers the Kafka APIs give (read back here with our Admin client), the throughput
 * charts move while a producer runs, and writes are refused unless console.write.enable=true.
 * Needs `npm run build:browser` (dist/console/), /usr/bin/chromium and kcat (.ci/run installs both).
 *
 * `npm run screenshots` runs this file with CONSOLE_SCREENSHOTS=1, which saves each page to
 * docs/console/*.png (committed; linked from the README). Plain test runs take none.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { promisify } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admin } from '../../host/clients/admin.js';
import { Consumer } from '../../host/clients/consumer.js';
import { Producer } from '../../host/clients/producer.js';
import { startGatewayBroker, type GatewayBroker } from '../browser/gateway-broker.js';

const run = promisify(execFile);
const CHROMIUM = '/usr/bin/chromium';
/** Flags for a root user on a machine without a network beyond loopback. */
const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync',
];
const SCREENSHOTS = process.env['CONSOLE_SCREENSHOTS'] === '1' ? 'docs/console' : null;

let broker: GatewayBroker;
let writable: GatewayBroker;
let browser: Browser;
let admin: Admin;
/** A group with a member throughout (Stable), consuming `payments`. */
let liveConsumer: Consumer;
/** A group with a member that committed once and never again while records wait: STALLED. */
let stalledConsumer: Consumer;
const pageErrors: string[] = [];

async function kcatProduce(bootstrap: string, topic: string, lines: string[], extra: string[] = []): Promise<void> {
  const child = run('kcat', ['-P', '-b', bootstrap, '-t', topic, '-K', '|', '-X', 'linger.ms=20', ...extra], { timeout: 30_000 });
  child.child.stdin!.end(`${lines.join('\n')}\n`);
  await child;
}

async function openPage(target: GatewayBroker, hash: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(message.text());
  });
  await page.goto(`http://${target.gatewayHostPort}/console/${hash}`);
  await page.waitForSelector('body[data-ready="true"]');
  return page;
}

async function screenshot(page: Page, name: string): Promise<void> {
  if (SCREENSHOTS === null) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: true });
}

/** The text of every cell of a table's body rows. */
function tableRows(page: Page, testId: string): Promise<string[][]> {
  return page.$$eval(`[data-testid="${testId}"] tbody tr`, (rows) => rows.map((row) => [...row.querySelectorAll('td')].map((td) => td.textContent ?? '')));
}

beforeAll(async () => {
  if (!existsSync('dist/console/console.js')) throw new Error('dist/console/console.js is missing: run npm run build:browser');
  // The lag monitor samples every 100 ms and judges over 1.5 s, so that a stalled group shows soon.
  broker = await startGatewayBroker({ 'num.partitions': 3, 'consumer.lag.sample.interval.ms': 100, 'consumer.lag.window.ms': 1500 });
  writable = await startGatewayBroker({ 'console.write.enable': true });
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  admin = new Admin({ bootstrapServers: [broker.tcpBootstrap] });
  await admin.createTopics({ topics: [{ topic: 'orders', numPartitions: 3 }, { topic: 'payments', numPartitions: 1, configs: { 'retention.ms': '86400000' } }] });
  const orders = Array.from({ length: 30 }, (_, i) => `customer-${i % 5}|{"order":${i},"amount":${(i * 7.5).toFixed(2)},"currency":"EUR"}`);
  await kcatProduce(broker.tcpBootstrap, 'orders', orders, ['-H', 'source=kcat']);
  await kcatProduce(broker.tcpBootstrap, 'payments', ['p-1|paid', 'p-2|refunded']);
  // billing read 10 records and left: an Empty group with lag.
  const billing = new Consumer({ bootstrapServers: [broker.tcpBootstrap], groupId: 'billing', autoOffsetReset: 'earliest', enableAutoCommit: false });
  billing.assign([{ topic: 'orders', partition: 0 }, { topic: 'orders', partition: 1 }, { topic: 'orders', partition: 2 }]);
  await billing.commitSync([{ topic: 'orders', partition: 0, offset: 4 }, { topic: 'orders', partition: 1, offset: 3 }, { topic: 'orders', partition: 2, offset: 3 }]);
  await billing.close();
  liveConsumer = new Consumer({ bootstrapServers: [broker.tcpBootstrap], groupId: 'dashboard', autoOffsetReset: 'earliest' });
  liveConsumer.subscribe(['payments']);
  void liveConsumer.run({ eachMessage: () => undefined, pollTimeoutMs: 200 });
  stalledConsumer = new Consumer({ bootstrapServers: [broker.tcpBootstrap], groupId: 'stalled-app', autoOffsetReset: 'earliest', enableAutoCommit: false });
  stalledConsumer.subscribe(['orders']);
  void stalledConsumer.run({ eachMessage: () => undefined, pollTimeoutMs: 200 });
  while (stalledConsumer.assignment().length < 3) await new Promise((resolve) => setTimeout(resolve, 50));
  await stalledConsumer.commitSync([0, 1, 2].map((partition) => ({ topic: 'orders', partition, offset: 1 })));
}, 60_000);

afterAll(async () => {
  for (const consumer of [liveConsumer, stalledConsumer]) {
    consumer?.stop();
    await consumer?.close().catch(() => undefined);
  }
  await admin?.close();
  await browser?.close().catch(() => undefined);
  await broker?.stop();
  await writable?.stop();
});

describe('The web console in headless Chromium', () => {
  it('shows on the overview the brokers, controller and counts that Metadata gives, and charts that move while a producer runs', async () => {
    const cluster = await admin.describeCluster();
    const page = await openPage(broker, '#/');
    await page.waitForFunction(() => document.querySelector('[data-testid="topics"]')?.textContent === '2');
    expect(await page.textContent('[data-testid="brokers"]')).toBe(String(cluster.brokers.length));
    expect(await page.textContent('[data-testid="controller"]')).toBe(String(cluster.controllerId));
    expect(await page.textContent('[data-testid="partitions"]')).toBe('4');
    const brokers = await tableRows(page, 'broker-table');
    expect(brokers.map((row) => row[1])).toEqual(cluster.brokers.map((b) => `${b.host}:${b.port}`));
    expect(await page.textContent('[data-testid="write-mode"]')).toBe('read-only');

    const producer = new Producer({ bootstrapServers: [broker.tcpBootstrap], lingerMs: 5 });
    let producing = true;
    const load = (async () => {
      for (let i = 0; producing; i++) {
        await producer.send({ topic: 'payments', messages: Array.from({ length: 20 }, (_, j) => ({ key: `load-${j}`, value: `payment ${i}-${j}` })) });
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    try {
      // The messages-in series' last point rises above zero while records arrive.
      await page.waitForFunction(() => Number(document.querySelector('[data-testid="chart-messages"]')?.getAttribute('data-last')?.split(',')[0]) > 0, undefined, { timeout: 20_000 });
      await page.waitForFunction(() => Number(document.querySelector('[data-testid="chart-bytes"]')?.getAttribute('data-last')?.split(',')[0]) > 0);
      // Bytes out: the dashboard group's consumer fetches what the producer writes.
      await page.waitForFunction(() => Number(document.querySelector('[data-testid="chart-bytes"]')?.getAttribute('data-last')?.split(',')[1]) > 0, undefined, { timeout: 20_000 });
      const points = Number(await page.getAttribute('[data-testid="chart-messages"]', 'data-points'));
      await page.waitForFunction((before) => Number(document.querySelector('[data-testid="chart-messages"]')?.getAttribute('data-points')) > before, points);
      // A picture for the README wants a minute of history, not the test's few seconds.
      if (SCREENSHOTS !== null) await page.waitForFunction(() => Number(document.querySelector('[data-testid="chart-messages"]')?.getAttribute('data-points')) >= 40, undefined, { timeout: 60_000 });
      await screenshot(page, 'overview');
    } finally {
      producing = false;
      await load;
      await producer.close();
    }
    await page.close();
    expect(pageErrors).toEqual([]);
  });

  it('lists topics and shows a topic\'s partitions with the leaders, ISR and offsets the Kafka APIs give', async () => {
    const page = await openPage(broker, '#/topics');
    await page.waitForSelector('[data-testid="topics-table"] tr[data-topic="orders"]');
    const offsets = await admin.fetchTopicOffsets('orders');
    const messages = offsets.reduce((sum, p) => sum + p.high - p.low, 0);
    expect(await page.textContent('tr[data-topic="orders"] [data-col="messages"]')).toBe(String(messages));
    expect(await page.textContent('tr[data-topic="orders"] [data-col="partitions"]')).toBe('3');
    await screenshot(page, 'topics');

    await page.click('tr[data-topic="orders"] a');
    await page.waitForSelector('[data-testid="partitions-table"] tr[data-partition="2"]');
    const [described] = await admin.describeTopics({ topics: ['orders'] });
    for (const partition of described!.partitions) {
      const row = `[data-testid="partitions-table"] tr[data-partition="${partition.partition}"]`;
      const bounds = offsets.find((o) => o.partition === partition.partition)!;
      expect(await page.textContent(`${row} [data-col="leader"]`)).toBe(String(partition.leader));
      expect(await page.textContent(`${row} [data-col="replicas"]`)).toBe(partition.replicas.join(', '));
      expect(await page.textContent(`${row} [data-col="isr"]`)).toBe(partition.isr.join(', '));
      expect(await page.textContent(`${row} [data-col="log-start"]`)).toBe(String(bounds.low));
      expect(await page.textContent(`${row} [data-col="high-watermark"]`)).toBe(String(bounds.high));
    }
    expect(await page.textContent('[data-testid="configs-table"]')).toContain('retention.ms');
    await screenshot(page, 'topic');
    await page.close();
    expect(pageErrors).toEqual([]);
  });

  it('browses a partition newest first with kcat\'s keys, values and headers, as JSON or hex, and searches the loaded window', async () => {
    const [latest] = await admin.listOffsets({ topic: 'orders', partitions: [0], spec: 'latest' });
    const page = await openPage(broker, '#/topics/orders/messages');
    await page.waitForSelector('[data-testid="records-table"] tr.record');
    const offsetsShown = await page.$$eval('tr.record', (rows) => rows.map((row) => Number(row.getAttribute('data-offset'))));
    expect(offsetsShown[0]).toBe(latest!.offset - 1);
    expect(offsetsShown).toEqual([...offsetsShown].sort((a, b) => b - a));
    const { stdout } = await run('kcat', ['-C', '-b', broker.tcpBootstrap, '-t', 'orders', '-p', '0', '-o', String(latest!.offset - 1), '-c', '1', '-e', '-q', '-f', '%k|%s|%h\\n'], { timeout: 30_000 });
    const [key, value, headers] = stdout.trim().split('|');
    const newest = 'tr.record:first-child';
    expect(await page.textContent(`${newest} [data-col="key"]`)).toBe(key);
    expect(await page.textContent(`${newest} [data-col="value"]`)).toBe(value);
    expect(await page.textContent(`${newest} .header`)).toBe(headers!.replace('=', ': '));
    await page.selectOption('#browse-format', 'json');
    expect(await page.textContent(`${newest} [data-col="value"]`)).toBe(JSON.stringify(JSON.parse(value!), null, 2));
    await page.fill('#browse-search', key!);
    await page.waitForFunction((wanted) => [...document.querySelectorAll('tr.record [data-col="key"]')].every((cell) => cell.textContent === wanted), key);
    expect(await page.$$eval('tr.record', (rows) => rows.length)).toBeGreaterThan(0);
    await page.fill('#browse-search', '');
    await screenshot(page, 'messages');
    await page.selectOption('#browse-format', 'hex');
    expect(await page.textContent(`${newest} [data-col="key"]`)).toBe([...Buffer.from(key!)].map((b) => b.toString(16).padStart(2, '0')).join(' '));
    await page.close();
    expect(pageErrors).toEqual([]);
  });

  it('shows groups with their state, members, the lag the Kafka APIs give, and a stalled group STALLED with its lag in seconds', async () => {
    const lags = await admin.fetchGroupLag('billing');
    const total = lags.reduce((sum, p) => sum + p.lag, 0);
    const page = await openPage(broker, '#/groups');
    await page.waitForSelector('tr[data-group="dashboard"] [data-col="members"]');
    await page.waitForFunction(() => document.querySelector('tr[data-group="dashboard"] [data-col="state"]')?.textContent === 'Stable');
    expect(await page.textContent('tr[data-group="billing"] [data-col="state"]')).toBe('Empty');
    expect(await page.textContent('tr[data-group="billing"] [data-col="lag"]')).toBe(String(total));
    // The broker's lag monitor: an empty group with lag is STOPPED, one whose member stopped committing STALLED.
    await page.waitForSelector('tr[data-group="billing"] [data-status="STOPPED"]');
    await page.waitForSelector('tr[data-group="stalled-app"] [data-status="STALLED"]', { timeout: 20_000 });
    expect(broker.broker.metrics.consumerLag.describeGroup('stalled-app')?.status).toBe('STALLED');
    await screenshot(page, 'groups');
    const stalled = await openPage(broker, '#/groups/stalled-app');
    await stalled.waitForSelector('[data-testid="group-status"][data-status="STALLED"]');
    await stalled.waitForFunction(() => /^\d/.test(document.querySelector('[data-testid="group-lag-seconds"]')?.textContent ?? ''));
    await stalled.waitForSelector('[data-testid="offsets-table"] tr[data-partition="0"] [data-status="STALLED"]');
    // The lag chart gets a point per poll (2 s): a picture wants a few.
    if (SCREENSHOTS !== null) await stalled.waitForFunction(() => Number(document.querySelector('[data-testid="chart-lag"]')?.getAttribute('data-points')) >= 8, undefined, { timeout: 30_000 });
    await screenshot(stalled, 'group-stalled');
    await stalled.close();
    await page.click('tr[data-group="billing"] a');
    await page.waitForSelector('[data-testid="offsets-table"] tr[data-partition="2"]');
    for (const lag of lags) {
      const row = `[data-testid="offsets-table"] tr[data-topic="${lag.topic}"][data-partition="${lag.partition}"]`;
      expect(await page.textContent(`${row} [data-col="committed"]`)).toBe(String(lag.committedOffset));
      expect(await page.textContent(`${row} [data-col="log-end"]`)).toBe(String(lag.logEndOffset));
      expect(await page.textContent(`${row} [data-col="lag"]`)).toBe(String(lag.lag));
    }
    expect(await page.textContent('[data-testid="group-lag"]')).toBe(String(total));
    await screenshot(page, 'group');
    await page.close();
    expect(pageErrors).toEqual([]);
  });

  it('refuses writes unless console.write.enable=true, and with it creates a topic and produces from the page', async () => {
    const readOnly = await openPage(broker, '#/topics');
    await readOnly.waitForSelector('[data-testid="write-disabled"]');
    expect(await readOnly.$('[data-testid="create-topic"]')).toBeNull();
    const refused = await readOnly.evaluate(async () => {
      const response = await fetch('/console/api/topics', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'sneaky' }) });
      return { status: response.status, body: await response.json() as { error: string } };
    });
    expect(refused).toEqual({ status: 403, body: expect.objectContaining({ error: 'CONSOLE_WRITE_DISABLED' }) });
    // Chromium logs the refused request as an error; it is the one expected here.
    pageErrors.splice(0, pageErrors.length, ...pageErrors.filter((text) => !text.includes('status of 403')));
    expect(await admin.listTopics()).not.toContain('sneaky');
    await readOnly.close();

    const page = await openPage(writable, '#/topics');
    await page.waitForFunction(() => document.querySelector('[data-testid="write-mode"]')?.textContent === 'writes enabled');
    await page.fill('#create-name', 'from-console');
    await page.fill('#create-partitions', '2');
    await page.click('#create-submit');
    await page.waitForSelector('[data-testid="create-result"].ok');
    const writableAdmin = new Admin({ bootstrapServers: [writable.tcpBootstrap] });
    try {
      const [created] = await writableAdmin.describeTopics({ topics: ['from-console'] });
      expect(created!.partitions).toHaveLength(2);
      await page.goto(`http://${writable.gatewayHostPort}/console/#/topics/from-console/messages`);
      await page.waitForSelector('[data-testid="produce-form"]');
      await page.selectOption('#produce-partition', '1');
      await page.fill('#produce-key', 'console-key');
      await page.fill('#produce-value', 'written from the console');
      await page.click('#produce-submit');
      await page.waitForSelector('[data-testid="produce-result"].ok');
      const { stdout } = await run('kcat', ['-C', '-b', writable.tcpBootstrap, '-t', 'from-console', '-p', '1', '-o', 'beginning', '-e', '-q', '-f', '%k=%s\\n'], { timeout: 30_000 });
      expect(stdout.trim()).toBe('console-key=written from the console');
    } finally {
      await writableAdmin.close();
    }
    await page.close();
    expect(pageErrors).toEqual([]);
  });
});
