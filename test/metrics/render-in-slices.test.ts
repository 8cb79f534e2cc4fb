/**
 * `/metrics` is formatted a bounded number of series per event-loop turn
 * (metrics.render.max.series.per.turn, lazy-metrics.ts renderInSlices; issue 15: 50,000
 * per-partition series formatted in one turn stalled the broker for up to 1.9 s per scrape), and
 * the text is the one prom-client's own `registry.metrics()` writes: same families, order,
 * escaping and value spelling.
 */
import { Counter, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { registerLazyCounter, registerLazyGauge, renderInSlices } from '../../host/metrics/lazy-metrics.js';

function registryWith(series: number): Registry {
  const registry = new Registry();
  registerLazyGauge(registry, {
    name: 'test_log_size',
    help: 'Bytes per partition, with a \\ backslash and a\nnewline in the help.',
    labelNames: ['topic', 'partition'],
    *samples() {
      for (let i = 0; i < series; i++) yield { labels: { topic: `t-${i % 7}`, partition: i }, value: i * 3 };
    },
  });
  registerLazyGauge(registry, {
    name: 'test_odd_values',
    help: 'Values prom-client spells its own way.',
    labelNames: ['kind'],
    samples: () => [
      { labels: { kind: 'nan' }, value: Number.NaN },
      { labels: { kind: 'inf' }, value: Number.POSITIVE_INFINITY },
      { labels: { kind: 'minus "quoted"\nname\\' }, value: Number.NEGATIVE_INFINITY },
      { labels: {}, value: 0.5 },
    ],
  });
  const plain = new Counter({ name: 'test_plain_total', help: 'A prom-client counter, formatted by prom-client.', labelNames: ['route'], registers: [registry] });
  plain.inc({ route: 'a' }, 2);
  registerLazyCounter(registry, { name: 'test_lazy_total', help: 'A lazy counter.', samples: () => [{ labels: {}, value: 41 }] });
  return registry;
}

describe('renderInSlices', () => {
  it('writes the very text prom-client writes for the same registry', async () => {
    const registry = registryWith(25);
    expect(await renderInSlices(registry, 4, setImmediate)).toBe(await registry.metrics());
    expect(await renderInSlices(registry, 1_000_000, setImmediate)).toBe(await registry.metrics());
  });

  it('formats 10,000 series in slices of metrics.render.max.series.per.turn, letting timers run between them', async () => {
    const registry = registryWith(10_000);
    let turnsBetweenSlices = 0;
    let rendering = true;
    const tick = (): void => {
      if (!rendering) return;
      turnsBetweenSlices++;
      setImmediate(tick);
    };
    setImmediate(tick);
    const text = await renderInSlices(registry, 1000, setImmediate);
    rendering = false;
    // 10,000 + 4 lazy series in slices of 1,000: at least 10 slices, another turn ran between each two.
    expect(turnsBetweenSlices).toBeGreaterThanOrEqual(9);
    expect(text.split('\n').filter((line) => line.startsWith('test_log_size{'))).toHaveLength(10_000);
    expect(text).toBe(await registry.metrics());
  });
});
