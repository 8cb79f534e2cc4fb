/**
 * Issue 5, "Kafka's network model in our terms": does a worker thread beat one event loop on this
 * machine? Three prototype brokers built from the broker's own parts (SocketServer + FrameDecoder,
 * the generated codecs, Core.prepareAppend in WebAssembly, UnifiedLog over fs; see
 * network-model/server-main.ts) are driven by kcat on the same machine:
 *
 *   A  one event loop (today's broker)
 *   B  A + one storage thread: the loop validates/stamps, the worker writes (and fsyncs); bytes
 *      handed over by one copy into a SharedArrayBuffer ring
 *   C  N request threads (default 2), each its own event loop + WebAssembly instance + sockets,
 *      leading partitions p % N (Metadata names each thread as a broker)
 *   G  control for B's fsync case: A with the fsyncs of one loop turn grouped (no thread)
 *
 * Phases per server start (fresh data directory each time):
 *   W2-1p   produce `--records` × 1 KiB (default 40,000: W2's shape, fewer records so a whole
 *           comparison stays near 5 minutes on 2 busy cores), 1 partition, acks=1,
 *           kcat batching as the suite's (linger.ms=5, batch.num.messages=10000 → ~1 MB batches)
 *   fetch-1p  kcat -C from the beginning to the end of that partition (fetch.wait.max.ms=20; the
 *           prototype holds an empty fetch that long, as Kafka's DelayedFetch)
 *   W2-8p / fetch-8p   the same over 8 partitions (kcat's random partitioner for null keys)
 *   W5-1p   produce `--fsync-records` (default 150,000) × 100 B to a 1-partition topic with flush.messages=1
 *           (fsync before the ack, W5's durability; acks=1 = acks=all with one replica)
 *   W5-1p, 100 kB batches   the same with batch.num.messages=1000: ten times the fsyncs
 * Before the phases each server gets an unmeasured warm-up (10,000 records produced to and fetched
 * from an 8-partition topic) so every thread's code is compiled. Variants run interleaved and
 * rotated (A,B,C,G then B,C,G,A, ...) so they share the machine's noise without a fixed position;
 * ratios against A are taken per round (same minute) and their median printed.
 *
 * Figures per phase: records/s and MB/s (kcat process start → exit), the server process's CPU
 * seconds (utime+stime from /proc, all threads; split main thread / other threads), kcat's CPU
 * seconds (bash `times`), p99 of the server's service time per request (frame handed to the
 * handler → response ready, ms; for A a frame waiting in the socket while the loop is busy is not
 * counted, for B the wait for the storage thread is, so it is no like-for-like latency), fsyncs
 * asked for / made, and the 1-minute load average at the phase's start.
 *
 * Run: `npm run bench:network-model -- [--runs 3] [--records 40000] [--fsync-records 150000]
 * [--threads 2] [--variants A,B,C,G] [--json out.json]` (after `npm run build`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { takeBuildSnapshot } from './build-snapshot.js';
import { runChild } from './child-run.js';
import { kcatVersion, PayloadFiles } from './kcat.js';
import { summarize, type Summary } from './stats.js';
import { measureHandoffCosts, type HandoffCosts } from './network-model/handoff-costs.js';

type Variant = 'A' | 'B' | 'C' | 'G';
const VARIANT_NAMES: Record<Variant, string> = {
  A: 'A one event loop',
  B: 'B loop + storage thread',
  C: 'C 2 request threads',
  G: 'G one loop, grouped fsync',
};

interface Phase {
  id: string;
  kind: 'produce' | 'fetch';
  topic: string;
  records: number;
  size: number;
  /** kcat batch.num.messages (default the suite's 10,000). */
  batchMessages?: number;
}

interface Sample {
  variant: Variant;
  round: number;
  phase: string;
  elapsedMs: number;
  records: number;
  bytes: number;
  serverCpuSeconds: number;
  serverMainCpuSeconds: number;
  serverOtherCpuSeconds: number;
  generatorCpuSeconds: number;
  p99ServiceMs: number;
  requests: number;
  loadAverage: number;
  /** Per phase: fsyncs asked for / made (B, G), bytes copied into the handoff ring and blocking waits of the loop (B). */
  fsyncRequests: number;
  fsyncsDone: number;
  copiedBytes: number;
  blockingWaits: number;
}

function parseArgs(argv: readonly string[]): { runs: number; records: number; fsyncRecords: number; threads: number; variants: Variant[]; json: string | null } {
  const options = { runs: 3, records: 40_000, fsyncRecords: 150_000, threads: 2, variants: ['A', 'B', 'C', 'G'] as Variant[], json: null as string | null };
  for (let i = 0; i < argv.length; i++) {
    const value = argv[i + 1];
    switch (argv[i]) {
      case '--runs': options.runs = Number(value); i++; break;
      case '--records': options.records = Number(value); i++; break;
      case '--fsync-records': options.fsyncRecords = Number(value); i++; break;
      case '--threads': options.threads = Number(value); i++; break;
      case '--variants': options.variants = value!.split(',') as Variant[]; i++; break;
      case '--json': options.json = value!; i++; break;
      default: throw new Error(`unknown option ${argv[i]}`);
    }
  }
  return options;
}

/** CPU seconds of a process: all threads, and its main thread (tid = pid). */
function threadCpu(pid: number): { total: number; main: number } {
  const ticks = 100; // CLK_TCK on Linux
  const read = (file: string): number => {
    try {
      const stat = readFileSync(file, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) / ticks;
    } catch {
      return 0;
    }
  };
  let total = read(`/proc/${pid}/stat`);
  if (!Number.isFinite(total)) total = Number.NaN;
  let main = 0;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) if (Number(tid) === pid) main = read(`/proc/${pid}/task/${tid}/stat`);
  } catch {
    main = Number.NaN;
  }
  return { total, main };
}

/** A prototype server child process speaking the line protocol of server-main.ts. */
class ProtoProcess {
  private constructor(private readonly child: ChildProcess, private readonly lines: Interface, readonly port: number, private readonly dataDir: string) {}

  static async start(serverMain: string, variant: Variant, threads: number): Promise<ProtoProcess> {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'tributary-network-model-'));
    const child = spawn(process.execPath, [serverMain, variant, dataDir, String(threads)], { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines = createInterface({ input: child.stdout! });
    const first = await new Promise<string>((resolve, reject) => {
      lines.once('line', resolve);
      child.once('exit', (code) => reject(new Error(`server ${variant} exited (${code}) before it was ready`)));
    });
    return new ProtoProcess(child, lines, (JSON.parse(first) as { port: number }).port, dataDir);
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Service times since the last call. */
  async times(): Promise<{ produce: number[]; fetch: number[] } & Record<string, unknown>> {
    const reply = new Promise<string>((resolve) => this.lines.once('line', resolve));
    this.child.stdin!.write('times\n');
    return JSON.parse(await reply) as { produce: number[]; fetch: number[] };
  }

  async stop(): Promise<void> {
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.stdin!.write('stop\n');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/** kcat under bash so its CPU time can be read (`times` prints the children's user and system time). */
async function runKcat(args: readonly string[], onStdout?: (chunk: Buffer) => void): Promise<{ elapsedMs: number; cpuSeconds: number }> {
  const outcome = await runChild('bash', ['-c', 'kcat "$@"; rc=$?; times >&2; exit $rc', 'kcat', ...args], {
    timeoutMs: 180_000,
    ...(onStdout === undefined ? {} : { onStdout }),
  });
  const stderr = outcome.stderr.replace(/^\d+m[\d.]+s \d+m[\d.]+s$/gm, '').trim();
  if (outcome.code !== 0 || /fail|error/i.test(stderr)) throw new Error(`kcat ${args.join(' ')} failed (code ${outcome.code}):\n${stderr.slice(-4000)}`);
  const times = [...outcome.stderr.matchAll(/(\d+)m([\d.]+)s (\d+)m([\d.]+)s/g)];
  const children = times[times.length - 1];
  const cpuSeconds = children === undefined ? Number.NaN
    : Number(children[1]) * 60 + Number(children[2]) + Number(children[3]) * 60 + Number(children[4]);
  return { elapsedMs: outcome.elapsedMs, cpuSeconds };
}

/** kcat's fetch.wait.max.ms: short, so the end-of-partition long polls add little to the elapsed time. */
const FETCH_WAIT_MAX_MS = 20;

function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function runPhase(server: ProtoProcess, phase: Phase, file: string): Promise<Omit<Sample, 'variant' | 'round' | 'phase'>> {
  const bootstrap = `127.0.0.1:${server.port}`;
  const loadAverage = loadavg()[0]!;
  const counters = await server.times(); // also resets the service times
  const before = threadCpu(server.pid);
  let outcome: { elapsedMs: number; cpuSeconds: number };
  let records = phase.records;
  if (phase.kind === 'produce') {
    outcome = await runKcat(['-P', '-b', bootstrap, '-t', phase.topic, '-q', '-X', 'acks=1', '-X', 'linger.ms=5',
      '-X', `batch.num.messages=${phase.batchMessages ?? 10_000}`, '-X', 'enable.idempotence=false', '-X', 'compression.codec=none', '-l', file]);
  } else {
    let seen = 0;
    outcome = await runKcat(['-C', '-b', bootstrap, '-t', phase.topic, '-e', '-o', 'beginning', '-q', '-X', `fetch.wait.max.ms=${FETCH_WAIT_MAX_MS}`], (chunk) => {
      for (let at = chunk.indexOf(0x0a); at >= 0; at = chunk.indexOf(0x0a, at + 1)) seen++;
    });
    if (seen !== phase.records) throw new Error(`${phase.id}: kcat consumed ${seen} records, expected ${phase.records}`);
    records = seen;
  }
  const after = threadCpu(server.pid);
  const times = await server.times();
  const service = phase.kind === 'produce' ? times.produce : times.fetch;
  const delta = (name: string): number => Number(times[name] ?? Number.NaN) - Number(counters[name] ?? Number.NaN);
  const serverCpuSeconds = after.total - before.total;
  const serverMainCpuSeconds = after.main - before.main;
  return {
    elapsedMs: outcome.elapsedMs, records, bytes: records * phase.size,
    serverCpuSeconds, serverMainCpuSeconds, serverOtherCpuSeconds: serverCpuSeconds - serverMainCpuSeconds,
    generatorCpuSeconds: outcome.cpuSeconds, p99ServiceMs: percentile(service, 99), requests: service.length, loadAverage,
    fsyncRequests: delta('fsyncRequests'), fsyncsDone: delta('fsyncsDone'), copiedBytes: delta('copiedBytes'), blockingWaits: delta('blockingWaits'),
  };
}

function fmt(value: number, digits = 2): string {
  if (!Number.isFinite(value)) return '–';
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString('en-US');
  return value.toFixed(digits);
}

function cell(summary: Summary, digits = 2): string {
  return `${fmt(summary.median, digits)} (${fmt(summary.min, digits)}–${fmt(summary.max, digits)})`;
}

function report(samples: readonly Sample[], phases: readonly Phase[], variants: readonly Variant[]): string {
  const out: string[] = [];
  const header = ['phase', 'variant', 'records/s', 'MB/s', 'ratio vs A', 'server CPU s (main+other)', 'server CPU vs A', 'kcat CPU s', 'server+kcat CPU s', 'p99 service ms', 'produce requests', 'fsyncs asked/made', 'load avg'];
  out.push(`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`);
  for (const phase of phases) {
    for (const variant of variants) {
      const mine = samples.filter((s) => s.phase === phase.id && s.variant === variant);
      if (mine.length === 0) continue;
      const rate = summarize(mine.map((s) => s.records / (s.elapsedMs / 1000)));
      const mbps = summarize(mine.map((s) => s.bytes / 1e6 / (s.elapsedMs / 1000)));
      const ratios = summarize(mine.map((s) => {
        const base = samples.find((b) => b.phase === phase.id && b.variant === 'A' && b.round === s.round);
        return base === undefined ? Number.NaN : base.elapsedMs / s.elapsedMs;
      }));
      const cpuRatios = summarize(mine.map((s) => {
        const base = samples.find((b) => b.phase === phase.id && b.variant === 'A' && b.round === s.round);
        return base === undefined ? Number.NaN : s.serverCpuSeconds / base.serverCpuSeconds;
      }));
      const cpu = summarize(mine.map((s) => s.serverCpuSeconds));
      const cpuMain = summarize(mine.map((s) => s.serverMainCpuSeconds));
      const cpuOther = summarize(mine.map((s) => s.serverOtherCpuSeconds));
      const kcatCpu = summarize(mine.map((s) => s.generatorCpuSeconds));
      const totalCpu = summarize(mine.map((s) => s.serverCpuSeconds + s.generatorCpuSeconds));
      const p99 = summarize(mine.map((s) => s.p99ServiceMs));
      const load = summarize(mine.map((s) => s.loadAverage));
      const requests = summarize(mine.map((s) => s.requests));
      const fsyncs = Number.isFinite(summarize(mine.map((s) => s.fsyncRequests)).median)
        ? `${fmt(summarize(mine.map((s) => s.fsyncRequests)).median, 0)}/${fmt(summarize(mine.map((s) => s.fsyncsDone)).median, 0)}` : '–';
      out.push(`| ${[phase.id, VARIANT_NAMES[variant], cell(rate, 0), cell(mbps, 1), variant === 'A' ? '1.00' : cell(ratios),
        `${cell(cpu)} (${fmt(cpuMain.median)}+${fmt(cpuOther.median)})`, variant === 'A' ? '1.00' : cell(cpuRatios), cell(kcatCpu), cell(totalCpu), cell(p99, 1),
        phase.kind === 'produce' ? fmt(requests.median, 0) : '–', fsyncs, cell(load, 1)].join(' | ')} |`);
    }
  }
  return out.join('\n');
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const version = kcatVersion();
  if (version === null) throw new Error('kcat is not on PATH: this comparison drives the prototypes with kcat (apt-get install kcat)');
  const snapshot = takeBuildSnapshot();
  // The prototypes import ../../../host/...: put them beside the snapshot's dist/host.
  const here = path.dirname(fileURLToPath(import.meta.url));
  cpSync(path.join(here, 'network-model'), path.join(snapshot.root, 'dist/bench/e2e/network-model'), { recursive: true });
  const serverMain = path.join(snapshot.root, 'dist/bench/e2e/network-model/server-main.js');
  const payloads = new PayloadFiles();
  const phases: Phase[] = [
    { id: 'W2-1p produce', kind: 'produce', topic: 't1', records: options.records, size: 1024 },
    { id: 'fetch-1p', kind: 'fetch', topic: 't1', records: options.records, size: 1024 },
    { id: 'W2-8p produce', kind: 'produce', topic: 't8', records: options.records, size: 1024 },
    { id: 'fetch-8p', kind: 'fetch', topic: 't8', records: options.records, size: 1024 },
    { id: 'W5-1p produce (fsync each append)', kind: 'produce', topic: 'f1', records: options.fsyncRecords, size: 100 },
    { id: 'W5-1p, 100 kB batches', kind: 'produce', topic: 'f1s', records: options.fsyncRecords, size: 100, batchMessages: 1000 },
  ];
  const warmUp: Phase[] = [
    { id: 'warm-up produce', kind: 'produce', topic: 'w8', records: 10_000, size: 1024 },
    { id: 'warm-up fetch', kind: 'fetch', topic: 'w8', records: 10_000, size: 1024 },
  ];
  const samples: Sample[] = [];
  const costs: HandoffCosts[] = [await measureHandoffCosts()];
  process.stderr.write(`network-model: ${options.runs} rounds of ${options.variants.join(',')}, ${version}, node ${process.version}, ${cpus().length} CPUs, build ${snapshot.gitCommit}\n`);
  try {
    for (let round = 1; round <= options.runs; round++) {
      // Rotated each round (A,B,C,G / B,C,G,A / ...) so no variant always runs first or last.
      const order = options.variants.map((_, i) => options.variants[(i + round - 1) % options.variants.length]!);
      for (const variant of order) {
        const server = await ProtoProcess.start(serverMain, variant, options.threads);
        try {
          for (const phase of warmUp) await runPhase(server, phase, payloads.file(phase.records, phase.size));
          for (const phase of phases) {
            const file = payloads.file(phase.records, phase.size);
            const sample = { variant, round, phase: phase.id, ...(await runPhase(server, phase, file)) };
            samples.push(sample);
            process.stderr.write(`  round ${round} ${variant} ${phase.id}: ${fmt(sample.records / (sample.elapsedMs / 1000), 0)} records/s, server CPU ${fmt(sample.serverCpuSeconds)} s, load ${fmt(sample.loadAverage, 1)}\n`);
          }
        } finally {
          await server.stop();
        }
      }
    }
    costs.push(await measureHandoffCosts());
  } finally {
    payloads.remove();
    snapshot.remove();
  }
  process.stdout.write(`\nNetwork model (${new Date().toISOString()}, ${version}, node ${process.version}, ${cpus().length} CPUs, build ${snapshot.gitCommit}, ${options.runs} rounds, median (min–max); ratio vs A = A's elapsed / variant's elapsed in the same round, >1 = faster; server CPU vs A = variant's / A's server CPU seconds in the same round)\n\n`);
  process.stdout.write(`${report(samples, phases, options.variants)}\n`);
  const us = (pick: (c: HandoffCosts) => number): string => costs.map((c) => fmt(pick(c), 0)).join(' / ');
  process.stdout.write(`\nHandoff costs per 1 MiB batch (median of 200, before / after the rounds, µs): copy out of WebAssembly memory into a SharedArrayBuffer ${us((c) => c.copyMiBUs)}; `
    + `fs.writeSync into the page cache ${us((c) => c.writeSyncMiBUs)}; postMessage round trip to a worker ${us((c) => c.postMessageRoundTripUs)}; Atomics.notify/wait round trip ${us((c) => c.atomicsRoundTripUs)}\n`);
  if (options.json !== null) writeFileSync(options.json, JSON.stringify({ options, costs, samples }, null, 2));
}

await main();
