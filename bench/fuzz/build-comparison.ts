/**
 * What the two-build fuzz benches (big-arrays, auto-create, many-partitions) print the same way:
 * the median of each figure over the runs, the ratio lines baseline / this build, and the entry
 * point that prints a failure's stack and exits 1.
 */

/** The median of `values` (the upper middle for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
}

/**
 * One line per request name: for each figure, median(baseline) / max(floor, median(this build)),
 * as `N.Nx`, comma separated. `floor` keeps a figure near zero from making the ratio infinite.
 */
export function ratioLines<O>(
  baseline: ReadonlyMap<string, readonly O[]>, current: ReadonlyMap<string, readonly O[]>,
  figures: readonly ((outcome: O) => number)[], floor: number,
): string[] {
  const lines: string[] = [];
  for (const [name, outcomes] of current) {
    const before = baseline.get(name)!;
    const ratios = figures.map((f) => `${(median(before.map(f)) / Math.max(floor, median(outcomes.map(f)))).toFixed(1)}x`);
    lines.push(`    ${name}: ${ratios.join(', ')}`);
  }
  return lines;
}

/** Runs a bench's `main`; a failure prints its stack on stderr and exits 1. */
export function runBench(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
    process.exit(1);
  });
}
