/**
 * `nodejs_eventloop_lag_*` come from the broker's one event-loop delay monitor (the watchdog's,
 * io/event-loop-delay.ts), not from a second sampler of prom-client's (issue 14): the families keep
 * prom-client's names, help texts, types and (empty) labels, carry sane figures, and the whole
 * process creates exactly one monitorEventLoopDelay histogram per broker.
 *
 * The count wraps node:perf_hooks' monitorEventLoopDelay on the builtin module object and syncs it
 * to the ESM bindings (syncBuiltinESMExports), so both our ESM import and prom-client's CommonJS
 * require go through the wrapper.
 */
import { createRequire, syncBuiltinESMExports } from 'node:module';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBroker, type TestBroker } from '../integration/in-process-broker.js';

interface Family { name: string; help: string; type: string; metrics: { value?: string; labels?: Record<string, string> }[] }

const perfHooks = createRequire(import.meta.url)('node:perf_hooks') as typeof import('node:perf_hooks');
const original = perfHooks.monitorEventLoopDelay;
let monitorsCreated = 0;

function countMonitors(): void {
  perfHooks.monitorEventLoopDelay = ((...args: Parameters<typeof original>) => {
    monitorsCreated++;
    return original(...args);
  }) as typeof original;
  syncBuiltinESMExports();
}

function restoreMonitors(): void {
  perfHooks.monitorEventLoopDelay = original;
  syncBuiltinESMExports();
}

async function scrapeText(port: number): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(response.status).toBe(200);
  return response.text();
}

function families(text: string): Map<string, Family> {
  return new Map((parsePrometheusTextFormat as (text: string) => Family[])(text).map((family) => [family.name, family]));
}

const LAG_FAMILIES = ['', '_min', '_max', '_mean', '_stddev', '_p50', '_p90', '_p99'].map((suffix) => `nodejs_eventloop_lag${suffix}_seconds`);

function lag(parsed: Map<string, Family>, name: string): number {
  const family = parsed.get(name)!;
  expect(family.metrics).toHaveLength(1);
  expect(family.metrics[0]!.labels ?? {}).toEqual({});
  return Number(family.metrics[0]!.value);
}

describe('nodejs_eventloop_lag_* from the watchdog\'s event-loop delay monitor', () => {
  let broker: TestBroker;
  let port: number;
  let scraped: Map<string, Family>;
  beforeAll(async () => {
    countMonitors();
    try {
      broker = await startTestBroker({ 'http.listeners': '127.0.0.1:0' });
      port = broker.broker.httpListeners[0]!.port;
      await scrapeText(port); // loads prom-client if the broker has not yet, and starts a period
      // Scrape until a period holds samples (the monitor samples every 20 ms).
      for (let attempt = 0; attempt < 400; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        scraped = families(await scrapeText(port));
        if (lag(scraped, 'nodejs_eventloop_lag_max_seconds') > 0) break;
      }
    } finally {
      restoreMonitors();
    }
  });
  afterAll(async () => {
    await broker?.close();
  });

  it('creates one event-loop delay histogram for the watchdog and /metrics together', () => {
    expect(monitorsCreated).toBe(1);
  });

  it('exposes the eight families, unlabelled, with ordered non-negative figures on the 10 ms scale', () => {
    for (const name of LAG_FAMILIES) {
      expect(scraped.get(name)?.type).toBe('GAUGE');
      expect(Number.isFinite(lag(scraped, name))).toBe(true);
      expect(lag(scraped, name)).toBeGreaterThanOrEqual(0);
    }
    const [min, p50, p90, p99, max] = ['min', 'p50', 'p90', 'p99', 'max'].map((figure) => lag(scraped, `nodejs_eventloop_lag_${figure}_seconds`));
    expect(max).toBeGreaterThan(0);
    expect(min).toBeLessThanOrEqual(p50!);
    expect(p50).toBeLessThanOrEqual(p90!);
    expect(p90).toBeLessThanOrEqual(p99!);
    expect(p99).toBeLessThanOrEqual(max!);
    const mean = lag(scraped, 'nodejs_eventloop_lag_mean_seconds');
    expect(mean).toBeGreaterThanOrEqual(min!);
    expect(mean).toBeLessThanOrEqual(max!);
    // A 20 ms sampler's intervals shifted to prom-client's 10 ms scale: an interval is at least ~10 ms.
    expect(min).toBeGreaterThan(0.005);
  });

  it('keeps every default family prom-client 15 exposes, with its help text and type', async () => {
    const reference = new Registry();
    collectDefaultMetrics({ register: reference });
    const expected = families(await reference.metrics());
    for (const [name, family] of expected) {
      expect(scraped.get(name), name).toMatchObject({ help: family.help, type: family.type });
    }
    for (const name of LAG_FAMILIES) expect(expected.has(name), name).toBe(true);
  });
});
