/**
 * `npm run bench:partition-memory -- --steps 1000,5000`: what a partition costs in resident memory
 * (issue 15's "RSS stays within a documented bound"). A broker process (default configs but
 * `controller.mutation.rate=0`, so the creates are not throttled) with memory-probe.ts preloaded
 * and `--expose-gc`; empty topics of `--per-topic` partitions are created over one connection
 * (CreateTopics v4) until the broker holds each step's number of partitions, then, once every
 * partition directory exists and after `--settle` ms:
 * - RSS as a user sees it (/proc, no collection forced), and the peak RSS (VmHWM) so far;
 * - after two full collections (SIGUSR2 → memory-probe.ts): RSS, live heap, V8 heap pages
 *   resident, the WebAssembly memory's resident pages, and the rest (native, code).
 * Each figure is printed with its growth per partition over the baseline (the same broker after
 * its warm-up, before any of these topics). `--churn n` then deletes every topic and creates it
 * again, n times, measuring after each (freed index memory is reused, and what a fresh partition
 * touches of it shows). `--baseline <root>` first measures the build of another
 * project root the same way (a worktree of the commit to compare, built with tsc, build/ copied),
 * so a before/after pair comes from one invocation. One run per build; RSS as seen moves with the
 * collector's timing, the after-collection figures much less.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { decodeCreateTopicsResponse, encodeCreateTopicsRequest } from '../../host/protocol/generated/create-topics.js';
import { decodeDeleteTopicsResponse, encodeDeleteTopicsRequest } from '../../host/protocol/generated/delete-topics.js';
import { BenchBroker, BENCH_HOST } from '../e2e/broker.js';
import { type BuildSnapshot, takeBuildSnapshot } from '../e2e/build-snapshot.js';
import { Connection } from './well-behaved.js';

const PROBE = fileURLToPath(new URL('./memory-probe.js', import.meta.url));
const PREFIX = 'memory-';

/** memory-probe.ts's line, bytes. */
interface Probe {
  gc: boolean;
  rss: number;
  heapUsed: number;
  heapPhysical: number;
  external: number;
  arrayBuffers: number;
  wasmResident: number;
  rest: number;
}

interface Sample {
  partitions: number;
  /** Deleted and created again this many times (0: first created). */
  churn?: number;
  rssSeen: number;
  peakRss: number;
  probe: Probe;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/** VmHWM of `pid`, bytes (NaN once it exited). */
function peakRssBytes(pid: number): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match === null ? Number.NaN : Number(match[1]) * 1024;
  } catch {
    return Number.NaN;
  }
}

interface Plan {
  readonly steps: readonly number[];
  readonly perTopic: number;
  readonly settleMs: number;
  /** After the last step: delete every topic, create them again, measure (`churns` times). */
  readonly churns: number;
}

/** Measures one build (a snapshot): the baseline, then each step. */
async function measure(snapshot: BuildSnapshot, plan: Plan): Promise<Sample[]> {
  const probes: Probe[] = [];
  const broker = await BenchBroker.start(snapshot, {
    nodeFlags: ['--expose-gc', '--import', PROBE],
    overrides: { 'controller.mutation.rate': 0 },
    onLine: (line) => {
      if (line.startsWith('MEMORY_PROBE ')) probes.push(JSON.parse(line.slice('MEMORY_PROBE '.length)) as Probe);
    },
  });
  const probe = async (): Promise<Probe> => {
    const before = probes.length;
    process.kill(broker.process.pid, 'SIGUSR2');
    while (probes.length === before) await sleep(20);
    return probes[probes.length - 1]!;
  };
  const samples: Sample[] = [];
  try {
    const admin = await Connection.open(BENCH_HOST, broker.port);
    const createTopic = async (name: string, numPartitions: number): Promise<void> => {
      const response = await admin.request(ApiKey.CreateTopics, 4, encodeCreateTopicsRequest, decodeCreateTopicsResponse, {
        topics: [{ name, numPartitions, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 120_000, validateOnly: false,
      });
      const topic = response.topics[0]!;
      if (topic.errorCode !== 0) throw new Error(`CreateTopics ${name} x${numPartitions}: error ${topic.errorCode} ${topic.errorMessage ?? ''}`);
    };
    await createTopic('warm-up', 1);
    await sleep(plan.settleMs);
    samples.push({ partitions: 0, rssSeen: broker.process.stats().rssBytes, peakRss: peakRssBytes(broker.process.pid), probe: await probe() });
    let created = 0;
    let topics = 0;
    for (const step of plan.steps) {
      while (created < step) {
        const count = Math.min(plan.perTopic, step - created);
        await createTopic(`${PREFIX}${topics++}`, count);
        created += count;
      }
      while (readdirSync(broker.logDir).filter((name) => name.startsWith(PREFIX)).length < created) await sleep(200);
      await sleep(plan.settleMs);
      samples.push({ partitions: created, rssSeen: broker.process.stats().rssBytes, peakRss: peakRssBytes(broker.process.pid), probe: await probe() });
      process.stderr.write(`${snapshot.gitCommit}: ${created} partitions measured\n`);
    }
    for (let churn = 1; churn <= plan.churns; churn++) {
      const names = Array.from({ length: topics }, (_, i) => `${PREFIX}${i}`);
      await admin.request(ApiKey.DeleteTopics, 3, encodeDeleteTopicsRequest, decodeDeleteTopicsResponse, { topicNames: names, timeoutMs: 120_000 });
      while (readdirSync(broker.logDir).some((name) => name.startsWith(PREFIX) && !name.includes('-delete'))) await sleep(200);
      let remade = 0;
      for (const [i, name] of names.entries()) {
        const count = Math.min(plan.perTopic, created - i * plan.perTopic);
        await createTopic(name, count);
        remade += count;
      }
      while (readdirSync(broker.logDir).filter((name) => name.startsWith(PREFIX) && !name.includes('-delete')).length < remade) await sleep(200);
      await sleep(plan.settleMs);
      samples.push({
        partitions: created, churn, rssSeen: broker.process.stats().rssBytes, peakRss: peakRssBytes(broker.process.pid), probe: await probe(),
      });
      process.stderr.write(`${snapshot.gitCommit}: ${created} partitions deleted and created again (${churn}), measured\n`);
    }
    admin.close();
  } finally {
    await broker.close();
  }
  return samples;
}

async function main(): Promise<void> {
  const options = new Command('partition-memory')
    .option('--steps <list>', 'partition counts to measure at, ascending', '1000,5000')
    .option('--per-topic <n>', 'partitions per created topic', '500')
    .option('--settle <ms>', 'wait after the last directory exists before measuring', '3000')
    .option('--churn <n>', 'after the last step, delete every topic and create it again, n times, measuring each', '0')
    .option('--baseline <root>', 'also measure the build in this project root first (a worktree of another commit, built)')
    .parse()
    .opts<{ steps: string; perTopic: string; settle: string; churn: string; baseline?: string }>();
  const plan: Plan = { steps: options.steps.split(',').map(Number), perTopic: Number(options.perTopic), settleMs: Number(options.settle), churns: Number(options.churn) };
  const roots = options.baseline === undefined ? [undefined] : [options.baseline, undefined];
  for (const root of roots) {
    const snapshot = takeBuildSnapshot(root);
    try {
      const samples = await measure(snapshot, plan);
      process.stdout.write(`${formatSamples(samples, `${root === undefined ? 'this build' : 'baseline'} ${snapshot.gitCommit}`)}\n`);
    } finally {
      snapshot.remove();
    }
  }
}

/** One row per step: each figure, and its growth per partition over the baseline (bytes). */
function formatSamples(samples: readonly Sample[], build: string): string {
  const base = samples[0]!;
  const column = (value: (s: Sample) => number, s: Sample): string => {
    const perPartition = s.partitions === 0 ? '' : ` (+${((value(s) - value(base)) / s.partitions / 1024).toFixed(1)} KiB/p)`;
    return `${mib(value(s))}${perPartition}`;
  };
  const rows: [string, (s: Sample) => number][] = [
    ['RSS as seen', (s) => s.rssSeen],
    ['peak RSS (VmHWM)', (s) => s.peakRss],
    ['RSS after GC', (s) => s.probe.rss],
    ['live JS heap', (s) => s.probe.heapUsed],
    ['V8 heap resident', (s) => s.probe.heapPhysical],
    ['Wasm memory resident', (s) => s.probe.wasmResident],
    ['rest (native, code)', (s) => s.probe.rest],
    ['external (Buffers)', (s) => s.probe.arrayBuffers],
  ];
  return [
    `partition memory (issue 15), ${build}: empty topics, default broker configs; gc forced: ${base.probe.gc}`,
    ...samples.map((s) => `  ${s.partitions === 0 ? 'baseline' : `${s.partitions} partitions${s.churn ? `, deleted and created again (${s.churn})` : ''}`}:\n` +
      rows.map(([name, value]) => `    ${name.padEnd(22)} ${column(value, s)}`).join('\n')),
  ].join('\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exit(1);
});
