/**
 * `npm run bench:many-partitions -- [--baseline <root>] [--partitions 50000] [--idle 16000] [--runs 1]`:
 * issue 15's event-loop stalls on a broker holding many partitions, measured. For each build (a
 * project root given by `--baseline`, e.g. a worktree of the commit to compare, built; then this
 * one), a broker process with default configs except `controller.mutation.rate` 0 (the creates
 * are not throttled) and `event.loop.stall.threshold.ms` 10 (every turn of 10 ms or more is logged
 * with its cause) gets `--partitions` empty partitions (topics of 500, CreateTopics v4); once
 * every partition directory exists:
 * - idle: for `--idle` ms no client works; printed is the longest event-loop stall the watchdog
 *   logged (any cause: on an idle broker that is the housekeeping tick) and how many there were,
 *   and the longest round trip of a Metadata (no topics) sent every 2 ms;
 * - then each request of {@link requests}, on a fresh connection, with the same probe running:
 *   the longest stall logged for it (`cause: "request"` for its client id, or any turn while it
 *   ran), the probe's longest wait, and the time to its answer.
 * With `--runs n` the builds alternate run by run and medians are printed, then the ratios
 * baseline / this build. `--cpu-prof <dir>` keeps each broker's CPU profile (bench/e2e/cpu-profile.ts reads it);
 * `--only <text>` measures only the requests whose name contains it (`--idle 0` skips the idle
 * phase); `--baseline-config k=v` gives the baseline build's broker other configs (`--baseline .`
 * with it compares two settings of one build).
 */
import { Socket, connect } from 'node:net';
import { readdirSync } from 'node:fs';
import { Command } from 'commander';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { decodeCreateTopicsResponse, encodeCreateTopicsRequest } from '../../host/protocol/generated/create-topics.js';
import { encodeDescribeConfigsRequest } from '../../host/protocol/generated/describe-configs.js';
import { encodeFetchRequest } from '../../host/protocol/generated/fetch.js';
import { decodeMetadataResponse, encodeMetadataRequest } from '../../host/protocol/generated/metadata.js';
import { encodeProduceRequest } from '../../host/protocol/generated/produce.js';
import { buildRecordBatch } from '../../host/record/batch-builder.js';
import { encodeRequestHeader } from '../../host/protocol/headers.js';
import { Writer } from '../../host/protocol/writer.js';
import { BenchBroker, BENCH_HOST } from '../e2e/broker.js';
import { type BuildSnapshot, takeBuildSnapshot } from '../e2e/build-snapshot.js';
import { median, ratioLines, runBench } from './build-comparison.js';
import { Connection } from './well-behaved.js';

const CLIENT_ID = 'many-partitions';
const PREFIX = 'many-';
const PER_TOPIC = 500;
const PROBE_INTERVAL_MS = 2;
const THRESHOLD_MS = 10;

interface Stall {
  readonly cause: string;
  readonly clientId: string | null;
  readonly durationMs: number;
}

interface Outcome {
  readonly stallMs: number;
  readonly stalls: number;
  readonly waitMs: number;
  readonly endMs: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function frame<T>(apiKey: number, apiVersion: number, encode: (w: Writer, version: number, m: T) => void, message: T): Buffer {
  const w = new Writer(1 << 20);
  const start = w.reserveInt32();
  encodeRequestHeader(w, { apiKey, apiVersion, correlationId: 1, clientId: CLIENT_ID });
  encode(w, apiVersion, message);
  w.patchInt32(start, w.length - start - 4);
  return Buffer.from(w.toBuffer());
}

/** The requests measured after the idle phase, each naming every partition (or as many resources). */
function requests(partitions: number): { name: string; bytes: Buffer }[] {
  const topics = Array.from({ length: Math.ceil(partitions / PER_TOPIC) }, (_, t) => `${PREFIX}${t}`);
  const batch = buildRecordBatch({ records: [{ value: 'v', timestamp: Date.now() }] });
  const indexes = (t: number): number[] => Array.from({ length: Math.min(PER_TOPIC, partitions - t * PER_TOPIC) }, (_, i) => i);
  return [
    { name: `Fetch v11, ${partitions} partitions`, bytes: frame(ApiKey.Fetch, 11, encodeFetchRequest, {
      replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
      topics: topics.map((topic, t) => ({ topic, partitions: indexes(t).map((partition) => ({ partition, currentLeaderEpoch: -1, fetchOffset: 0, logStartOffset: -1, partitionMaxBytes: 1024 })) })),
      forgottenTopicsData: [], rackId: '' }) },
    { name: `Produce v8, ${partitions} partitions (one record each)`, bytes: frame(ApiKey.Produce, 8, encodeProduceRequest, {
      transactionalId: null, acks: 1, timeoutMs: 30_000, topicData: topics.map((name, t) => ({ name, partitionData: indexes(t).map((index) => ({ index, records: batch })) })) }) },
    // The same again: appends to partitions that have segment files now (the steady state).
    { name: `Produce v8 again, ${partitions} partitions (one record each)`, bytes: frame(ApiKey.Produce, 8, encodeProduceRequest, {
      transactionalId: null, acks: 1, timeoutMs: 30_000, topicData: topics.map((name, t) => ({ name, partitionData: indexes(t).map((index) => ({ index, records: batch })) })) }) },
    { name: `DescribeConfigs v4, ${partitions} topic resources`, bytes: frame(ApiKey.DescribeConfigs, 4, encodeDescribeConfigsRequest, {
      resources: Array.from({ length: partitions }, (_, i) => ({ resourceType: 2, resourceName: i < topics.length ? topics[i]! : `absent-${i}`, configurationKeys: null })),
      includeSynonyms: false, includeDocumentation: false }) },
  ];
}

/** Writes `bytes` on a fresh connection; resolves when the whole first response frame arrived or the broker closed. */
function sendOnce(port: number, bytes: Buffer): Promise<number> {
  return new Promise((resolve) => {
    const startedMs = performance.now();
    const socket: Socket = connect({ host: BENCH_HOST, port });
    let received = 0;
    let size = -1;
    const finish = (): void => {
      socket.destroy();
      resolve(performance.now() - startedMs);
    };
    socket.on('data', (chunk: Buffer) => {
      if (size < 0 && received === 0 && chunk.length >= 4) size = chunk.readInt32BE(0);
      received += chunk.length;
      if (size >= 0 && received >= size + 4) finish();
    });
    socket.on('close', finish);
    socket.on('error', finish);
    socket.once('connect', () => socket.write(bytes));
  });
}

/** Runs `work` while a Metadata probe runs every 2 ms; the stalls logged meanwhile and the probe's worst round trip. */
async function probed(broker: BenchBroker, stalls: Stall[], work: () => Promise<number>, select: (s: Stall) => boolean): Promise<Outcome> {
  stalls.length = 0;
  const probe = await Connection.open(BENCH_HOST, broker.port);
  let probing = true;
  let worstMs = 0;
  const probeLoop = (async () => {
    while (probing) {
      const sentMs = performance.now();
      try {
        await probe.request(ApiKey.Metadata, 8, encodeMetadataRequest, decodeMetadataResponse,
          { topics: [], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
      } catch {
        worstMs = Math.max(worstMs, performance.now() - sentMs); // no answer within the client's 10 s: stop probing
        return;
      }
      worstMs = Math.max(worstMs, performance.now() - sentMs);
      await sleep(PROBE_INTERVAL_MS);
    }
  })();
  const endMs = await work();
  await sleep(300);
  probing = false;
  await probeLoop;
  probe.close();
  const mine = stalls.filter(select);
  return { stallMs: Math.max(0, ...mine.map((s) => s.durationMs)), stalls: mine.length, waitMs: worstMs, endMs };
}

interface RunPlan {
  readonly partitions: number;
  /** 0: no idle phase. */
  readonly idleMs: number;
  readonly cpuProfileDir: string | undefined;
  /** Only the requests whose name contains this. */
  readonly only: string;
}

async function runBuild(snapshot: BuildSnapshot, plan: RunPlan, configs: Record<string, string>): Promise<Map<string, Outcome>> {
  const { partitions, idleMs, cpuProfileDir } = plan;
  const stalls: Stall[] = [];
  const broker = await BenchBroker.start(snapshot, {
    ...(cpuProfileDir === undefined ? {} : { nodeFlags: ['--cpu-prof', '--cpu-prof-dir', cpuProfileDir] }),
    overrides: { 'controller.mutation.rate': 0, 'event.loop.stall.threshold.ms': THRESHOLD_MS, ...configs },
    startTimeoutMs: 120_000,
    onLine: (line) => {
      if (!line.includes('event_loop.stall')) return;
      const parsed = JSON.parse(line) as { cause?: string; clientId?: string | null; durationMs?: number };
      stalls.push({ cause: parsed.cause ?? '', clientId: parsed.clientId ?? null, durationMs: parsed.durationMs ?? 0 });
    },
  });
  const out = new Map<string, Outcome>();
  try {
    const admin = await Connection.open(BENCH_HOST, broker.port);
    for (let t = 0, created = 0; created < partitions; t++) {
      const count = Math.min(PER_TOPIC, partitions - created);
      const response = await admin.request(ApiKey.CreateTopics, 4, encodeCreateTopicsRequest, decodeCreateTopicsResponse, {
        topics: [{ name: `${PREFIX}${t}`, numPartitions: count, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 120_000, validateOnly: false,
      });
      if (response.topics[0]!.errorCode !== 0) throw new Error(`CreateTopics ${PREFIX}${t}: error ${response.topics[0]!.errorCode}`);
      created += count;
    }
    admin.close();
    while (readdirSync(broker.logDir).filter((name) => name.startsWith(PREFIX)).length < partitions) {
      if (!broker.process.running) throw new Error(`the broker exited while creating partitions:\n${broker.process.outputTail()}`);
      await sleep(500);
    }
    await sleep(6_000); // the first housekeeping ticks after the creates (checkpoints of every new partition)
    if (idleMs > 0) {
      out.set(`idle ${idleMs} ms`, await probed(broker, stalls, async () => {
        await sleep(idleMs);
        return idleMs;
      }, () => true));
    }
    for (const request of requests(partitions).filter((r) => r.name.includes(plan.only))) {
      out.set(request.name, await probed(broker, stalls, () => sendOnce(broker.port, request.bytes), (s) => s.clientId === CLIENT_ID || s.cause !== 'request'));
    }
  } finally {
    await broker.close();
  }
  return out;
}

async function main(): Promise<void> {
  const options = new Command('many-partitions')
    .option('--baseline <root>', 'also measure the build in this project root (a worktree of another commit, built)')
    .option('--partitions <n>', 'partitions the broker holds', '50000')
    .option('--idle <ms>', 'length of the idle phase', '16000')
    .option('--runs <n>', 'runs per build', '1')
    .option('--cpu-prof <dir>', 'write each broker\'s CPU profile (node --cpu-prof) into this directory')
    .option('--only <text>', 'measure only the requests whose name contains this (e.g. Produce)', '')
    .option('--baseline-config <k=v...>', 'broker configs for the baseline build only (e.g. the same build with another request.max.partitions.per.turn)', [])
    .parse()
    .opts<{ baseline?: string; partitions: string; idle: string; runs: string; cpuProf?: string; only: string; baselineConfig: string[] }>();
  const plan: RunPlan = { partitions: Number(options.partitions), idleMs: Number(options.idle), cpuProfileDir: options.cpuProf, only: options.only };
  const baselineConfigs = Object.fromEntries(options.baselineConfig.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
  const partitions = Number(options.partitions);
  const builds: { label: string; snapshot: BuildSnapshot; configs: Record<string, string> }[] = [];
  try {
    if (options.baseline !== undefined) {
      const snapshot = takeBuildSnapshot(options.baseline);
      builds.push({ label: `baseline ${snapshot.gitCommit}${options.baselineConfig.length > 0 ? ` (${options.baselineConfig.join(' ')})` : ''}`, snapshot, configs: baselineConfigs });
    }
    const current = takeBuildSnapshot();
    builds.push({ label: `this build ${current.gitCommit}`, snapshot: current, configs: {} });
    const results = new Map<string, Map<string, Outcome[]>>(builds.map((b) => [b.label, new Map()]));
    for (let run = 0; run < Number(options.runs); run++) {
      for (const build of run % 2 === 0 ? builds : [...builds].reverse()) {
        process.stderr.write(`run ${run + 1}: ${build.label}\n`);
        for (const [name, outcome] of await runBuild(build.snapshot, plan, build.configs)) {
          const list = results.get(build.label)!.get(name) ?? [];
          list.push(outcome);
          results.get(build.label)!.set(name, list);
        }
      }
    }
    const lines = [`many partitions bench (issue 15): ${partitions} partitions, ${options.runs} run(s) per build, medians; stalls >= ${THRESHOLD_MS} ms`];
    for (const build of builds) {
      lines.push(`  ${build.label}:`);
      for (const [name, outcomes] of results.get(build.label)!) {
        lines.push(`    ${name}: longest stall ${median(outcomes.map((o) => o.stallMs)).toFixed(0)} ms (${median(outcomes.map((o) => o.stalls))} stalls), ` +
          `other client waited up to ${median(outcomes.map((o) => o.waitMs)).toFixed(1)} ms, answered after ${median(outcomes.map((o) => o.endMs)).toFixed(0)} ms`);
      }
    }
    if (builds.length === 2) {
      const [base, current] = builds.map((b) => results.get(b.label)!);
      lines.push('  ratios baseline / this build (longest stall, other client\'s longest wait; this build\'s figure floored at 1 ms):');
      lines.push(...ratioLines(base!, current!, [(o: Outcome) => o.stallMs, (o) => o.waitMs], 1));
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    for (const build of builds) build.snapshot.remove();
  }
}

runBench(main);
