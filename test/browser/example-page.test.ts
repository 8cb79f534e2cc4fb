/**
 * The example page (examples/) in headless Debian Chromium, driven by playwright-core: it
 * live-consumes what kcat produced to the broker's TCP port (with every codec librdkafka writes,
 * decoded by the bundle's pure-JS codecs) and produces through the gateway what kcat then reads
 * back with CRC checks on. Needs `npm run build:browser` (part of `npm run build`), /usr/bin/chromium
 * and kcat (both installed by .ci/run).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admin } from '../../host/clients/admin.js';
// @ts-expect-error plain ESM without types (examples are what a user would write)
import { serveExamples } from '../../examples/serve.mjs';
import { startGatewayBroker, type GatewayBroker } from './gateway-broker.js';

const run = promisify(execFile);
const CHROMIUM = '/usr/bin/chromium';
/** Flags for a root user on a machine without a network beyond loopback. */
const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync',
];

let broker: GatewayBroker;
let server: { url: string; close(): Promise<void> };
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  if (!existsSync('dist/browser/tributary.js')) throw new Error('dist/browser/tributary.js is missing: run npm run build:browser');
  broker = await startGatewayBroker();
  server = await serveExamples(0);
  // playwright gives every launch a fresh temporary profile (--user-data-dir) and removes it on close.
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  page = await browser.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(message.text());
  });
  const admin = new Admin({ bootstrapServers: [broker.tcpBootstrap] });
  try {
    await admin.createTopics({ topics: [{ topic: 'from-kcat', numPartitions: 2 }, { topic: 'from-page', numPartitions: 1 }] });
  } finally {
    await admin.close();
  }
  await page.goto(`${server.url}/examples/?gateway=${encodeURIComponent(broker.kafkaUrl)}`);
  await page.waitForSelector('body[data-ready="true"]');
});

afterAll(async () => {
  await page?.close().catch(() => undefined);
  await browser?.close().catch(() => undefined);
  await server?.close();
  await broker?.stop();
});

async function kcatProduce(topic: string, codec: string, lines: string[]): Promise<void> {
  const child = run('kcat', ['-P', '-b', broker.tcpBootstrap, '-t', topic, '-K', ':', '-z', codec, '-X', 'linger.ms=50'], { timeout: 30_000 });
  child.child.stdin!.end(`${lines.join('\n')}\n`);
  await child;
}

async function rowsOnPage(): Promise<{ partition: number; offset: number; key: string; value: string }[]> {
  return page.$$eval('#records tr.record', (rows) => rows.map((row) => {
    const cells = [...row.querySelectorAll('td')].map((td) => td.textContent ?? '');
    return { partition: Number(cells[0]), offset: Number(cells[1]), key: cells[2]!, value: cells[3]! };
  }));
}

describe('The example page in headless Chromium', () => {
  it('live-consumes in a group what kcat produced with every codec', async () => {
    await page.fill('#consume-topic', 'from-kcat');
    await page.fill('#consume-group', 'example-page');
    await page.selectOption('#consume-from', 'earliest');
    await page.click('#consume-start');
    await page.waitForSelector('body[data-consuming="true"]');
    const codecs = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];
    const expected: string[] = [];
    for (const codec of codecs) {
      const lines = [0, 1, 2].map((i) => `${codec}-key-${i}:${codec} value ${i} ${'x'.repeat(40)}`);
      expected.push(...lines);
      await kcatProduce('from-kcat', codec, lines);
    }
    await page.waitForFunction((count) => document.querySelectorAll('#records tr.record').length >= count, expected.length, { timeout: 30_000 });
    const rows = await rowsOnPage();
    expect(rows.map((row) => `${row.key}:${row.value}`).sort()).toEqual([...expected].sort());
    expect(pageErrors).toEqual([]);
  });

  it('produces through the gateway with each browser codec, and kcat reads it back with CRC checks', async () => {
    const sent: string[] = [];
    for (const codec of ['none', 'gzip', 'snappy', 'lz4']) {
      await page.fill('#produce-topic', 'from-page');
      await page.fill('#produce-key', `page-${codec}`);
      await page.fill('#produce-value', `hello from the page with ${codec}`);
      await page.selectOption('#produce-compression', codec);
      await page.click('#produce-send');
      await page.waitForFunction((offset) => document.querySelector('#produce-result')?.getAttribute('data-offset') === String(offset), sent.length);
      expect(await page.textContent('#produce-result')).toBe(`sent to from-page-0 at offset ${sent.length}`);
      sent.push(`page-${codec}=hello from the page with ${codec}`);
    }
    const { stdout } = await run('kcat', ['-C', '-b', broker.tcpBootstrap, '-t', 'from-page', '-o', 'beginning', '-e', '-q', '-X', 'check.crcs=true', '-f', '%k=%s\\n'], { timeout: 30_000 });
    expect(stdout.trim().split('\n')).toEqual(sent);
    expect(pageErrors).toEqual([]);
  });

  it('gives clients made without a transport the WebSocket transport in the bundle', async () => {
    // A string, so vitest leaves the page's dynamic import() alone.
    const topics = await page.evaluate(`(async () => {
      const bundle = await import('/dist/browser/tributary.js');
      // Only the bootstrap connection is used here; Metadata's TCP endpoints need viaWebSocketGateway.
      const admin = new bundle.Admin({ bootstrapServers: [${JSON.stringify(broker.gatewayHostPort)}] });
      try {
        return await admin.listTopics();
      } finally {
        await admin.close();
      }
    })()`);
    expect(topics).toEqual(expect.arrayContaining(['from-kcat', 'from-page']));
    expect(pageErrors).toEqual([]);
  });

  it('shows records as they arrive when consuming without a group', async () => {
    await page.fill('#consume-topic', 'from-page');
    await page.fill('#consume-group', '');
    await page.selectOption('#consume-from', 'latest');
    await page.click('#consume-start');
    await page.waitForFunction(() => document.querySelector('#status')?.textContent?.startsWith('consuming from-page through') === true);
    const before = (await rowsOnPage()).length;
    await kcatProduce('from-page', 'gzip', ['live:arrives while the page watches']);
    await page.waitForFunction((count) => document.querySelectorAll('#records tr.record').length > count, before, { timeout: 30_000 });
    const [newest] = await rowsOnPage();
    expect(newest).toEqual({ partition: 0, offset: 4, key: 'live', value: 'arrives while the page watches' });
    await page.click('#consume-stop');
    await page.waitForFunction(() => document.querySelector('#status')?.textContent === 'stopped');
    expect(pageErrors).toEqual([]);
  });
});
