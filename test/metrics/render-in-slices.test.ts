/**
 * `/metrics` is read and formatted a bounded number of series per event-loop turn
 * (metrics.render.max.series.per.turn, lazy-metrics.ts renderChunks; issue 15: 50,000
 * per-partition series formatted in one turn stalled the broker for up to 1.9 s per scrape, and
 * then the reading of 50,000 partitions for three counts, and the writing of the whole text, in
 * one turn each), handed out one chunk per turn, and the text is the one prom-client's own
 * `registry.metrics()` writes: same families, order, escaping and value spelling.
 */
import { Counter, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { type LazyItem, registerLazyCounter, registerLazyGauge, renderChunks, renderInSlices, VISITED } from '../../host/metrics/lazy-metrics.js';

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

/**
 * A registry whose families count what they read: `test_count` reads `items` items for one series
 * (VISITED per item), `test_sizes` yields every third item as a series (one sample object refilled
 * each time) and VISITED for the others. `reads` counts items read, across both families.
 */
function countingRegistry(items: number): { registry: Registry; reads: { count: number } } {
  const registry = new Registry();
  const reads = { count: 0 };
  registerLazyGauge(registry, {
    name: 'test_count',
    help: 'Items counted in one pass.',
    *samples(): Generator<LazyItem> {
      let counted = 0;
      for (let i = 0; i < items; i++) {
        reads.count++;
        counted++;
        yield VISITED;
      }
      yield { labels: {}, value: counted };
    },
  });
  registerLazyGauge(registry, {
    name: 'test_sizes',
    help: 'Every third item, with labels; the others read and left out.',
    labelNames: ['topic', 'partition'],
    *samples(): Generator<LazyItem> {
      const labels = { topic: '', partition: 0 };
      const sample = { labels, value: 0 };
      for (let i = 0; i < items; i++) {
        reads.count++;
        if (i % 3 !== 0) {
          yield VISITED;
          continue;
        }
        labels.topic = `topic-${i % 11}`;
        labels.partition = i;
        sample.value = i * 7;
        yield sample;
      }
    },
  });
  return { registry, reads };
}

describe('renderChunks', () => {
  it('writes chunks whose concatenation is prom-client\'s text, VISITED items left out and a refilled sample object read each time', async () => {
    const { registry } = countingRegistry(3_000);
    const chunks: string[] = [];
    expect(await renderChunks(registry, 500, (chunk) => chunks.push(chunk) > 0, setImmediate)).toBe(true);
    const expected = await registry.metrics();
    expect(chunks.join('')).toBe(expected);
    expect(expected).toContain('\ntest_count 3000\n');
    expect(expected.split('\n').filter((line) => line.startsWith('test_sizes{'))).toHaveLength(1_000);
    expect(await renderInSlices(registry, 7, setImmediate)).toBe(expected);
    expect(await renderInSlices(registry, 1_000_000)).toBe(expected);
  });

  it('reads at most metrics.render.max.series.per.turn items per turn, series or VISITED, and writes at most one chunk per turn', async () => {
    const items = 10_000;
    const perTurn = 800;
    const { registry, reads } = countingRegistry(items);
    // Each deferred task starts a new turn: what is read and written between two of them is one turn's work.
    const readsPerTurn: number[] = [];
    const writesPerTurn: number[] = [];
    let turnStartReads = 0;
    let writesThisTurn = 0;
    const defer = (task: () => void): void => {
      readsPerTurn.push(reads.count - turnStartReads);
      writesPerTurn.push(writesThisTurn);
      setImmediate(() => {
        turnStartReads = reads.count;
        writesThisTurn = 0;
        task();
      });
    };
    const chunks: string[] = [];
    await renderChunks(registry, perTurn, (chunk) => {
      writesThisTurn++;
      return chunks.push(chunk) > 0;
    }, defer);
    readsPerTurn.push(reads.count - turnStartReads);
    writesPerTurn.push(writesThisTurn);
    expect(reads.count).toBe(2 * items);
    // 20,001 yields (10,000 VISITED and a series, then 10,000 items) in turns of 800: 26 turns, none reading more than 800 items.
    expect(readsPerTurn.length).toBe(Math.ceil((2 * items + 1) / perTurn));
    expect(Math.max(...readsPerTurn)).toBeLessThanOrEqual(perTurn);
    expect(Math.max(...writesPerTurn)).toBe(1);
    // The counting family's turns format no series: they write nothing, so no empty chunk goes out.
    expect(chunks.every((chunk) => chunk !== '')).toBe(true);
    expect(chunks.length).toBeLessThan(readsPerTurn.length);
    expect(chunks.join('')).toBe(await registry.metrics());
  });

  it('stops reading and writing when the writer says the reader went away', async () => {
    const { registry, reads } = countingRegistry(10_000);
    let writes = 0;
    expect(await renderChunks(registry, 1_000, () => ++writes < 2, setImmediate)).toBe(false);
    expect(writes).toBe(2);
    expect(reads.count).toBeLessThan(20_000);
  });
});
