/**
 * `npm run bench`: runs every compiled benchmark dist/bench/*.bench.js, or only those named on
 * the command line (`node dist/bench/run.js core record`). Benchmarks are not tests: they print
 * figures and ratios, never fail on numbers.
 *
 * Convention: a bench file exports `async function main(): Promise<void>` that measures its
 * kernels next to a baseline in the same run and prints its own table (helpers below).
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Bench } from 'tinybench';

export interface BenchTask {
  name: string;
  /** One call; a returned promise is awaited (tinybench times async tasks to settlement). */
  fn: () => unknown;
  /** Bytes processed per call, to print a throughput in GB/s. */
  bytesPerCall?: number;
  /** Operations per call (e.g. lookups per batch of lookups), to print ns per operation. */
  operationsPerCall?: number;
}

export interface BenchRow {
  name: string;
  /** Best round's median latency, ms per call. */
  meanMs: number;
  gbPerSecond?: number;
  nsPerOperation?: number;
  ratio: number;
}

/**
 * Runs `tasks` with tinybench (the first task is the baseline) and prints a table: time per call,
 * GB/s or ns/op where given, and the speed ratio against the baseline (> 1 = faster).
 *
 * The machine may be shared and busy, so every task runs in several interleaved rounds and the
 * figure kept is the best round's median latency: load spikes hit single rounds, not the minimum.
 */
export async function runBenchTable(
  title: string, tasks: BenchTask[], options: { timeMs?: number; rounds?: number } = {},
): Promise<BenchRow[]> {
  const rounds = options.rounds ?? 3;
  const best = tasks.map(() => Number.POSITIVE_INFINITY);
  for (let round = 0; round < rounds; round++) {
    const bench = new Bench({ name: title, time: options.timeMs ?? 300, warmupTime: 100 });
    for (const task of tasks) bench.add(task.name, task.fn);
    await bench.run();
    bench.tasks.forEach((task, i) => {
      const result = task.result as { latency?: { p50?: number; mean: number }; error?: unknown };
      if (result.error) throw result.error;
      const median = result.latency?.p50 ?? result.latency?.mean ?? Number.NaN;
      best[i] = Math.min(best[i]!, median);
    });
  }
  const baseline = best[0]!;
  const rows: BenchRow[] = tasks.map((task, i) => ({
    name: task.name,
    meanMs: best[i]!,
    ...(task.bytesPerCall ? { gbPerSecond: task.bytesPerCall / (best[i]! / 1000) / 1e9 } : {}),
    ...(task.operationsPerCall ? { nsPerOperation: (best[i]! * 1e6) / task.operationsPerCall } : {}),
    ratio: baseline / best[i]!,
  }));
  console.log(`\n## ${title}  (baseline: ${tasks[0]!.name}; best of ${rounds} rounds' medians)`);
  console.table(rows.map((row) => ({
    task: row.name,
    'µs/call': +(row.meanMs * 1000).toFixed(2),
    ...(row.gbPerSecond !== undefined ? { 'GB/s': +row.gbPerSecond.toFixed(3) } : {}),
    ...(row.nsPerOperation !== undefined ? { 'ns/op': +row.nsPerOperation.toFixed(1) } : {}),
    'x baseline': +row.ratio.toFixed(2),
  })));
  return rows;
}

async function runAll(names: string[]): Promise<void> {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const available = readdirSync(here).filter((file) => file.endsWith('.bench.js')).sort();
  const selected = names.length === 0
    ? available
    : names.map((name) => {
      const file = name.endsWith('.bench.js') ? name : `${name.replace(/\.bench(\.ts)?$/, '')}.bench.js`;
      if (!available.includes(file)) throw new Error(`no benchmark ${file} in ${here} (have: ${available.join(', ')})`);
      return file;
    });
  console.log(`node ${process.version}, ${process.platform}/${process.arch}; benchmarks: ${selected.join(', ')}`);
  for (const file of selected) {
    const module = (await import(pathToFileURL(path.join(here, file)).href)) as { main?: () => Promise<void> };
    if (typeof module.main !== 'function') throw new Error(`${file} does not export main()`);
    console.log(`\n# ${file}`);
    await module.main();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  runAll(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
