import { describe, expect, it } from 'vitest';
import { ThroughputSampler, type ThroughputTotals } from '../../host/console/throughput-sampler.js';
import { ManualTime } from '../../host/io/time.js';

describe('ThroughputSampler', () => {
  it('keeps per-second rates of the last intervals in a ring, never negative, and answers what is new since a time', () => {
    const time = new ManualTime(1_000_000);
    let totals: ThroughputTotals = { messagesIn: 0, bytesIn: 0, bytesOut: 0, messagesOut: null };
    const sampler = new ThroughputSampler({ time, totals: () => totals, intervalMs: 1000, capacity: 3 });
    sampler.start();
    const step = (next: ThroughputTotals): void => {
      totals = next;
      time.advance(1000);
    };
    step({ messagesIn: 10, bytesIn: 1000, bytesOut: 500, messagesOut: null });
    step({ messagesIn: 30, bytesIn: 3000, bytesOut: 500, messagesOut: null });
    step({ messagesIn: 25, bytesIn: 3000, bytesOut: 900, messagesOut: null });
    step({ messagesIn: 26, bytesIn: 3100, bytesOut: 900, messagesOut: null });
    const samples = sampler.samples();
    expect(samples.map((s) => s.messagesInPerSec)).toEqual([20, 0, 1]);
    expect(samples.map((s) => s.bytesOutPerSec)).toEqual([0, 400, 0]);
    expect(samples.every((s) => s.messagesOutPerSec === null)).toBe(true);
    expect(sampler.samples(samples[1]!.timeMs)).toEqual([samples[2]]);
    sampler.stop();
    time.advance(5000);
    expect(sampler.samples()).toEqual(samples);
  });
});
