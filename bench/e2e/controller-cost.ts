/**
 * `node dist/bench/e2e/controller-cost.js [--baseline <dist dir>] [--runs 3] [--profile]`:
 * issue 15's controller path, timed per request. How long one CreateTopics / CreatePartitions
 * holds the event loop in its own turn (API handler → QuorumController: validate, place replicas,
 * encode records, append + fsync the metadata log, commit, replay into the image, publish to the
 * broker's MetadataCache and BrokerMetadataPublisher), not counting the storage apply, which runs
 * in later slices (metadata.apply.max.partitions.per.turn).
 *
 * Each measurement runs in a fresh child process with an in-process BrokerServer (default configs
 * but metadata.apply.max.partitions.per.turn 8, as the fuzz campaign; `log.dirs` a temp directory
 * under `--dir`, default /dev/shm where it exists: the storage apply of ~35,000 partitions per
 * child then takes seconds instead of minutes, and the metadata log's one fsync per request costs
 * nothing, which leaves the per-partition cost under measurement), warmed up with small topics,
 * then per repetition: CreateTopics of 1,000 partitions, CreateTopics of 9,999 partitions (the
 * most controller.max.records.per.user.op = 10,000 allows) and CreateTopics of 1 followed by
 * CreatePartitions to 1,000 (`--scenarios` also takes grow-1-to-9999). The first repetition is
 * reported apart ("first": mostly unoptimized code, as a rare large request meets it in a live
 * broker), the others after it. The figure is the wall time of the synchronous part of the
 * controller call (the request's turn: with the embedded single-node metadata log the batch is
 * committed and published inside it); the storage apply of each is awaited before the next.
 *
 * With `--baseline`, children alternate between this build's dist/ and the baseline's (e.g. the
 * main worktree's dist/ before a change), so both see the same machine load; printed: the median
 * of each scenario's per-child medians and the ratio baseline / this (> 1 = faster now).
 * `--profile` runs one child of this build under `node --cpu-prof` (repetitions only, after the
 * warm-up) and prints the hottest functions.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { formatProfileSummary, summarizeCpuProfiles } from './cpu-profile.js';

const THIS_DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** One measured turn: wall ms and this process's CPU ms (user + system, every thread) during it. */
interface Turn {
  wallMs: number;
  cpuMs: number;
}

/** Scenario name → the measured turn of each repetition. */
type Timings = Record<string, Turn[]>;

interface Args {
  baseline: string | null;
  runs: number;
  reps: number;
  profile: boolean;
  child: string | null;
  dir: string;
  scenarios: string[];
  /** Child: write one .cpuprofile per measured turn into this directory. */
  profileOut: string | null;
}

const ALL_SCENARIOS = ['create-1000', 'create-9999', 'grow-1-to-1000', 'grow-1-to-9999'];

function parseArgs(argv: readonly string[]): Args {
  const args: Args = { baseline: null, runs: 3, reps: 3, profile: false, child: null, dir: existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), scenarios: ALL_SCENARIOS, profileOut: null };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const value = (): string => {
      const next = argv[++i];
      if (next === undefined) throw new Error(`${flag} needs a value`);
      return next;
    };
    if (flag === '--baseline') args.baseline = path.resolve(value());
    else if (flag === '--runs') args.runs = Number(value());
    else if (flag === '--reps') args.reps = Number(value());
    else if (flag === '--profile') args.profile = true;
    else if (flag === '--child') args.child = path.resolve(value());
    else if (flag === '--dir') args.dir = path.resolve(value());
    else if (flag === '--scenarios') args.scenarios = value().split(',');
    else if (flag === '--profile-out') args.profileOut = path.resolve(value());
    else throw new Error(`unknown flag ${flag}`);
  }
  return args;
}

interface Controller {
  createTopics(topics: { name: string; numPartitions: number; replicationFactor: number }[]): Promise<{ errorCode: number; errorMessage: string | null }[]>;
  createPartitions(topics: { name: string; count: number }[]): Promise<{ errorCode: number; errorMessage: string | null }[]>;
}

/**
 * Profiles only the measured turns: the inspector's CPU profiler started before and stopped after
 * each, one .cpuprofile per turn (the inspector answers a same-thread session synchronously).
 */
class TurnProfiler {
  private readonly session = new Session();
  private turns = 0;

  constructor(private readonly dir: string) {
    this.session.connect();
    this.post('Profiler.enable');
    this.post('Profiler.setSamplingInterval', { interval: 50 });
  }

  start(): void {
    this.post('Profiler.start');
  }

  stop(): void {
    const result = this.post('Profiler.stop') as { profile: object };
    writeFileSync(path.join(this.dir, `turn-${this.turns++}.cpuprofile`), JSON.stringify(result.profile));
  }

  private post(method: string, params?: object): unknown {
    let answer: unknown;
    let failure: Error | null = null;
    this.session.post(method, params, (error, result) => {
      failure = error;
      answer = result;
    });
    if (failure !== null) throw failure;
    return answer;
  }
}

/** One child: a broker of the build at `dist`, every scenario `reps` times; prints Timings as JSON. */
async function runChild(dist: string, args: Args): Promise<void> {
  const load = <T>(relative: string): Promise<T> => import(pathToFileURL(path.join(dist, relative)).href) as Promise<T>;
  const { libraryBrokerConfig } = await load<typeof import('../../host/broker.js')>('host/broker.js');
  const { BrokerServer } = await load<typeof import('../../host/server/broker-server.js')>('host/server/broker-server.js');
  const { systemEnvironment } = await load<typeof import('../../host/io/environment.js')>('host/io/environment.js');
  const { createLogger } = await load<typeof import('../../host/observability/logger.js')>('host/observability/logger.js');
  const { getCore } = await load<typeof import('../../host/wasm/core.js')>('host/wasm/core.js');
  let profiler = args.profileOut === null ? null : new TurnProfiler(args.profileOut);
  const logDir = mkdtempSync(path.join(args.dir, 'tributary-controller-cost-'));
  // Small storage slices (the fuzz campaign's 8): the first slice of a change runs inside the
  // request's turn (sliced-work-queue.ts); this keeps the figure mostly the controller's and the cache's.
  const config = libraryBrokerConfig({ logDirs: logDir, overrides: { 'max.partitions': 1_000_000, 'metadata.apply.max.partitions.per.turn': 8 } });
  const server = new BrokerServer(config, systemEnvironment(), { core: getCore(), logger: createLogger({ level: 'silent' }) });
  await server.startup();
  const controller = server.controller as unknown as Controller;
  // The storage apply of a change runs in later slices; wait for it so it does not overlap the next measurement.
  const publisher = (server as unknown as { publisher: { whenApplied(): Promise<void> } }).publisher;
  const check = (answers: { errorCode: number; errorMessage: string | null }[]): void => {
    if (answers[0]!.errorCode !== 0) throw new Error(`refused: ${answers[0]!.errorCode} ${answers[0]!.errorMessage}`);
  };
  /** Wall ms of the synchronous part of `call` (what the request's turn holds the event loop for). */
  const timed = async (call: () => Promise<{ errorCode: number; errorMessage: string | null }[]>): Promise<Turn> => {
    profiler?.start();
    const cpuBefore = process.cpuUsage();
    const startedAt = performance.now();
    const answer = call();
    const wallMs = performance.now() - startedAt;
    const cpu = process.cpuUsage(cpuBefore);
    profiler?.stop();
    check(await answer);
    await publisher.whenApplied();
    return { wallMs, cpuMs: (cpu.user + cpu.system) / 1000 };
  };
  let topicNo = 0;
  const scenario = async (name: string): Promise<Turn> => {
    const topic = `t${topicNo++}`;
    switch (name) {
      case 'create-1000': return timed(() => controller.createTopics([{ name: topic, numPartitions: 1000, replicationFactor: 1 }]));
      case 'create-9999': return timed(() => controller.createTopics([{ name: topic, numPartitions: 9999, replicationFactor: 1 }]));
      case 'grow-1-to-1000':
        check(await controller.createTopics([{ name: topic, numPartitions: 1, replicationFactor: 1 }]));
        await publisher.whenApplied();
        return timed(() => controller.createPartitions([{ name: topic, count: 1000 }]));
      case 'grow-1-to-9999':
        check(await controller.createTopics([{ name: topic, numPartitions: 1, replicationFactor: 1 }]));
        await publisher.whenApplied();
        return timed(() => controller.createPartitions([{ name: topic, count: 9999 }]));
      default: throw new Error(`unknown scenario ${name}`);
    }
  };
  try {
    // Warm-up: the code paths compiled, the metadata log's segment open.
    for (let i = 0; i < 5; i++) {
      const topic = `warm${i}`;
      check(await controller.createTopics([{ name: topic, numPartitions: 100, replicationFactor: 1 }]));
      check(await controller.createPartitions([{ name: topic, count: 200 }]));
      await publisher.whenApplied();
    }
    // The first repetition is kept apart ("<scenario> first"): the code of a large request runs
    // mostly unoptimized the first time (as a rare request in a live broker does); after it the
    // optimizing compiler has seen every scenario's sizes.
    const warm = profiler;
    profiler = null;
    const timings: Timings = {};
    for (const name of args.scenarios) timings[`${name} first`] = [await scenario(name)];
    profiler = warm;
    for (let rep = 0; rep < args.reps; rep++) {
      for (const name of args.scenarios) (timings[name] ??= []).push(await scenario(name));
    }
    process.stdout.write(`${JSON.stringify(timings)}\n`);
  } finally {
    await server.shutdown();
    rmSync(logDir, { recursive: true, force: true });
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function spawnChild(dist: string, args: Args, profileOut?: string): Timings {
  const script = fileURLToPath(import.meta.url);
  const childArgs = ['--child', dist, '--reps', String(args.reps), '--dir', args.dir, '--scenarios', args.scenarios.join(',')];
  if (profileOut !== undefined) childArgs.push('--profile-out', profileOut);
  const out = execFileSync(process.execPath, [script, ...childArgs], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 24 });
  const lines = out.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]!) as Timings;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (args.child !== null) return runChild(args.child, args);
  if (args.profile) {
    const profileDir = mkdtempSync(path.join(tmpdir(), 'tributary-controller-cost-prof-'));
    try {
      const timings = spawnChild(THIS_DIST, args, profileDir);
      console.log(JSON.stringify(timings));
      const turns = readdirSync(profileDir).filter((name) => name.endsWith('.cpuprofile')).sort();
      args.scenarios.forEach((name, s) => {
        // Turn files come in scenario order per repetition; merge a scenario's turns by summing their summaries' inputs.
        const files = turns.filter((_, i) => i % args.scenarios.length === s).map((file) => path.join(profileDir, file));
        console.log(formatProfileSummary(`${name}: the measured turns (${files.length})`, summarizeCpuProfiles(files, [
          'replication-control-manager.js:createTopics', 'replication-control-manager.js:createPartitions', 'replica-placer.js:place',
          'replication-control-manager.js:partitionRecord', 'quorum-controller.js:append', 'metadata-records.js:encodeMetadataRecord',
          'quorum-controller.js:replay', 'unified-log-metadata-log.js:append', 'batch-builder.js:buildRecordBatch', 'unified-log.js:appendAsLeader',
          'unified-log.js:flush', 'quorum-controller.js:handleCommit', 'metadata-records.js:decodeMetadataRecord', 'metadata-listener.js:note',
          'metadata-image.js:replay', 'brokers-to-isrs.js:update', 'metadata-listener.js:publish', 'metadata-image.js:snapshotOf',
          'metadata-cache.js:putTopic', 'broker-metadata-publisher.js:publishTopicDelta', 'broker-metadata-publisher.js:applyTopic', '(garbage collector)',
        ], 30)));
      });
    } finally {
      rmSync(profileDir, { recursive: true, force: true });
    }
    return;
  }
  const builds = args.baseline === null ? [{ label: 'this', dist: THIS_DIST }] : [{ label: 'baseline', dist: args.baseline }, { label: 'this', dist: THIS_DIST }];
  const perBuild = new Map<string, Timings[]>(builds.map((b) => [b.label, []]));
  for (let run = 0; run < args.runs; run++) {
    const order = run % 2 === 0 ? builds : [...builds].reverse();
    for (const build of order) {
      const timings = spawnChild(build.dist, args);
      perBuild.get(build.label)!.push(timings);
      const cell = (s: string): string => `${s} ${median(timings[s]!.map((t) => t.wallMs)).toFixed(1)}/${median(timings[s]!.map((t) => t.cpuMs)).toFixed(1)} ms`;
      process.stderr.write(`run ${run + 1}/${args.runs} ${build.label} (wall/cpu): ${args.scenarios.map(cell).join(', ')}\n`);
    }
  }
  console.log(`controller-cost: ${args.runs} runs × ${args.reps} reps per build; median of per-run medians of the request's synchronous turn`);
  for (const name of [...args.scenarios, ...args.scenarios.map((s) => `${s} first`)]) {
    for (const measure of ['wallMs', 'cpuMs'] as const) {
      const cells = builds.map((b) => ({ label: b.label, ms: median(perBuild.get(b.label)!.map((t) => median(t[name]!.map((turn) => turn[measure])))) }));
      const ratio = cells.length === 2 ? `  ratio baseline/this ${(cells[0]!.ms / cells[1]!.ms).toFixed(2)}` : '';
      console.log(`  ${name.padEnd(22)} ${measure === 'wallMs' ? 'wall' : 'cpu '} ${cells.map((c) => `${c.label} ${c.ms.toFixed(1)} ms`).join('  ')}${ratio}`);
    }
  }
}

await main();
