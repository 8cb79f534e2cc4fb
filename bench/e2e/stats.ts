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
