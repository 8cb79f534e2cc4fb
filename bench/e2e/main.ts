/**
 * `npm run bench:e2e [-- --workloads W1,W2 --runs 3 --quick --no-peers --generators kcat,ts]`:
 * the end-to-end suite of issue 5. Builds nothing itself (the npm script builds first), copies the
 * build to a private snapshot, runs the workloads (workloads.ts) against a broker process and the
 * installed peers, prints the table, and writes bench/results/e2e-<date>.json. A progress line
 * goes to stderr. Not a test: it never fails on figures, only on errors.
 */
import { cpus, release } from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { buildCommitSnapshot, PROJECT_ROOT, takeBuildSnapshot } from './build-snapshot.js';
import { kcatVersion, PayloadFiles } from './kcat.js';
import { Results } from './measurement.js';
import { serverVersion } from './peers.js';
import { printReport, writeJson, type Environment } from './report.js';
import { runWorkload, WORKLOAD_IDS, type SuiteContext, type WorkloadId } from './workloads.js';

interface CliOptions {
  workloads: string;
  runs: string;
  quick?: boolean;
  peers: boolean;
  generators: string;
  out: string;
  fromCommit?: string;
}

function progressPrinter(): (message: string) => void {
  const startedAtMs = performance.now();
  const tty = process.stderr.isTTY === true;
  return (message) => {
    const line = `[bench ${((performance.now() - startedAtMs) / 1000).toFixed(0).padStart(4)} s] ${message}`;
    process.stderr.write(tty ? `\r\x1b[2K${line}` : `${line}\n`);
  };
}

async function main(): Promise<void> {
  const program = new Command('bench:e2e')
    .option('--workloads <list>', `comma-separated subset of ${WORKLOAD_IDS.join(',')}`, WORKLOAD_IDS.join(','))
    .option('--runs <n>', 'runs per figure (median, min–max)', '3')
    .option('--quick', 'reduced sizes for development (÷10 records, W4 5 s, W6 1,000 partitions)')
    .option('--no-peers', 'skip NATS JetStream and Redis Streams even when installed')
    .option('--generators <list>', 'load generators for Tributary: kcat, ts (our client over TCP), ws (our client through the WebSocket gateway), replay (pre-encoded Produce/raw Fetch: the broker ceiling without a client, not a user\'s client)', 'kcat,ts,ws,replay')
    .option('--from-commit <revision>', 'measure a clean build of this git revision (e.g. HEAD) instead of the current dist/')
    .option('--out <dir>', 'where the JSON goes', path.join(PROJECT_ROOT, 'bench/results'))
    .parse();
  const options = program.opts<CliOptions>();
  const workloads = options.workloads.split(',').map((w) => w.trim().toUpperCase()).filter((w) => w !== '');
  for (const workload of workloads) {
    if (!(WORKLOAD_IDS as readonly string[]).includes(workload)) throw new Error(`unknown workload ${workload}: pick from ${WORKLOAD_IDS.join(',')}`);
  }
  const runs = Number(options.runs);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive integer, got ${options.runs}`);
  const generators = new Set(options.generators.split(',').map((g) => g.trim()));

  const results = new Results();
  const kcat = kcatVersion();
  const natsServer = options.peers ? serverVersion('nats-server') : null;
  const redisServer = options.peers ? serverVersion('redis-server') : null;
  if (kcat === null) results.notes.push('kcat is not on PATH: its rows are skipped (Debian: apt-get install kcat).');
  if (options.peers && natsServer === null) results.notes.push('nats-server is not installed: NATS JetStream rows are skipped (Debian: apt-get install nats-server).');
  if (options.peers && redisServer === null) results.notes.push('redis-server is not installed: Redis Streams rows are skipped (Debian: apt-get install redis-server).');
  if (!options.peers) results.notes.push('--no-peers: NATS JetStream and Redis Streams not run.');
  for (const note of results.notes) process.stderr.write(`[bench] ${note}\n`);

  if (options.fromCommit !== undefined) process.stderr.write(`[bench] building ${options.fromCommit} from git into a temp directory\n`);
  const snapshot = options.fromCommit === undefined ? takeBuildSnapshot() : buildCommitSnapshot(options.fromCommit);
  const payloads = new PayloadFiles();
  const environment: Environment = {
    date: new Date().toISOString(),
    tributary: `${snapshot.version} (${snapshot.gitCommit})`,
    node: process.version,
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    kernel: `Linux ${release()}`,
    kcat,
    natsServer,
    redisServer,
    runs,
    quick: options.quick === true,
  };
  const context: SuiteContext = {
    snapshot, results, payloads, runs, quick: options.quick === true,
    kcat: kcat !== null && generators.has('kcat'),
    tsClient: generators.has('ts'),
    tsWebSocket: generators.has('ws'),
    replay: generators.has('replay'),
    nats: natsServer !== null,
    redis: redisServer !== null,
    progress: progressPrinter(),
  };
  try {
    for (const workload of workloads) {
      try {
        await runWorkload(context, workload as WorkloadId);
      } catch (error) {
        const message = `${workload} failed: ${error instanceof Error ? error.message : String(error)}`;
        results.notes.push(message.split('\n').slice(0, 12).join('\n  '));
        process.stderr.write(`\n[bench] ${message}\n`);
      }
    }
  } finally {
    payloads.remove();
    snapshot.remove();
  }
  if (process.stderr.isTTY) process.stderr.write('\n');
  printReport(results, environment, workloads);
  const file = writeJson(results, environment, options.out);
  process.stdout.write(`\nJSON: ${path.relative(process.cwd(), file)}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
    process.exit(1);
  },
);
