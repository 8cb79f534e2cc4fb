/** Medians with min–max over repeated runs, the figure every table cell shows. */

export interface Summary {
  median: number;
  min: number;
  max: number;
  /** How many runs gave a finite figure. */
  runs: number;
}

/** Median (mean of the two middle values for an even count), min and max of the finite values; NaN when none. */
export function summarize(values: readonly number[]): Summary {
  const finite = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  if (finite.length === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN, runs: 0 };
  const middle = finite.length >> 1;
  const median = finite.length % 2 === 1 ? finite[middle]! : (finite[middle - 1]! + finite[middle]!) / 2;
  return { median, min: finite[0]!, max: finite[finite.length - 1]!, runs: finite.length };
}

/** A ratio B/A of two conditions measured in the same run, with a bootstrap interval and the paired ratios' range. */
export interface RatioSummary {
  /** Median of B ÷ median of A. */
  ofMedians: number;
  /** 2.5th and 97.5th percentiles of the ratio of medians over bootstrap resamples (runs drawn with replacement within each condition). */
  low: number;
  high: number;
  /** Median of the per-pair ratios B_i / A_i (pairs measured back to back), and their min–max. */
  paired: Summary;
}

/** Deterministic 32-bit PRNG (mulberry32) so that a report's interval is reproducible from its samples. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * B/A of two samples of runs (`a[i]` and `b[i]` measured back to back): the ratio of the medians
 * with its percentile bootstrap 95% interval (`resamples` draws, fixed seed), and the paired
 * ratios' median and min–max. NaN figures when either side is empty.
 */
export function ratioSummary(a: readonly number[], b: readonly number[], resamples = 4000): RatioSummary {
  const median = (values: readonly number[]): number => summarize(values).median;
  const ofMedians = median(b) / median(a);
  const random = mulberry32(0x5eed);
  const draw = (values: readonly number[]): number[] => values.map(() => values[Math.floor(random() * values.length)]!);
  const ratios: number[] = [];
  if (a.length > 0 && b.length > 0) {
    for (let i = 0; i < resamples; i++) ratios.push(median(draw(b)) / median(draw(a)));
  }
  ratios.sort((x, y) => x - y);
  const at = (q: number): number => (ratios.length === 0 ? Number.NaN : ratios[Math.min(ratios.length - 1, Math.floor(q * ratios.length))]!);
  const pairs = Math.min(a.length, b.length);
  const paired = summarize(Array.from({ length: pairs }, (_, i) => b[i]! / a[i]!));
  return { ofMedians, low: at(0.025), high: at(0.975), paired };
}
