/**
 * `npm run bench:metrics [-- --records 5000000 --size 100 --runs 11 --consume-passes 3 --kcat-consume-passes 1 --generators replay,kcat]`:
 * what `/metrics` and an open web console cost the produce and fetch hot path (issue 14).
 *
 * One broker process with an HTTP listener (so the metrics counters, the Prometheus registry and
 * the console are live in both conditions) runs W1 (records of `size` bytes, 1 partition,
 * acks=1, one producer, then one reader from the start, `consume-passes` times) on a fresh topic
 * per run, in two conditions:
 * - A, "idle": nothing but the load talks to the broker;
 * - B, "scraped + console": `GET /metrics` every second (as a Prometheus server does, on a fixed
 *   interval, its body read whole) and what an open console asks for, every page at once (the
 *   union of its polls, host/console/web: the throughput chart every 1 s, the overview every 3 s
 *   and the shell's every 10 s, the topics list every 3 s, the page of the topic under load every
 *   3 s, the groups list every 3 s and one group's lag every 2 s; each poll waits for the last,
 *   as the pages' usePoll does). The group is a real one with a committed offset and lag, so
 *   its lag in seconds is read from the log.
 *
 * The conditions alternate in ABBA order (A B, B A, A B, ...) so that a slow drift of the
 * machine's load cancels, after a warm-up pair that is not counted. The figure that decides is
 * the broker's CPU time per MB moved (utime + stime of its process from /proc, over the phase):
 * unlike a rate it hardly moves when other processes take the cores. Throughput (MB/s) is shown
 * too. Each ratio is B/A: the ratio of the medians with a bootstrap 95% interval, and the
 * median and min–max of the per-pair ratios. Writes every sample to
 * bench/results/metrics-overhead-<date>.json. Not a test: it fails only on errors (a short
 * read, a failed scrape or console request).
 *
 * Before the runs, a direct measure of what watching costs: on the broker with no load, 200 GETs
 * of each polled path back to back, the broker's CPU per request (less its idle rate), times the
 * schedule above = broker CPU ms per second of watching; with each phase's CPU rate it predicts
 * the CPU-per-MB ratio the A/B should find (printed next to it).
 *
 * Generators: `replay` (pre-encoded Produce v3 and raw Fetch v4, load-raw.ts: the broker's own
 * ceiling, where an overhead shows most) and `kcat` (librdkafka, W1's main generator).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { Admin } from '../../host/clients/admin.js';
import { takeBuildSnapshot } from './build-snapshot.js';
import { BenchBroker, BENCH_HOST } from './broker.js';
import { runLoad } from './child-run.js';
import { kcatConsume, kcatProduce, kcatVersion, PayloadFiles } from './kcat.js';
import type { LoadResult } from './load-common.js';
import { ratioSummary, summarize, type RatioSummary, type Summary } from './stats.js';

interface Options {
  records: string;
  size: string;
  runs: string;
  consumePasses: string;
  kcatConsumePasses: string;
  generators: string;
  warmup: boolean;
  pollRequests: string;
}

type Condition = 'idle' | 'scraped + console';
const CONDITIONS: readonly Condition[] = ['idle', 'scraped + console'];
const LOAD_TIMEOUT_MS = 600_000;
/** The consumer group whose lag the console's group page shows (a committed offset behind the log end). */
const WATCHED_GROUP = 'console-watched-group';
const WATCHED_TOPIC = 'console-watched';

/** Scrapes `/metrics` every second until stopped (fixed interval, as Prometheus); counts scrapes and times them. */
class Scraper {
  scrapes = 0;
  lastBytes = 0;
  readonly latenciesMs: number[] = [];
  private timer: NodeJS.Timeout | null = null;
  private failure: Error | null = null;

  constructor(private readonly url: string) {}

  start(): void {
    this.timer = setInterval(() => {
      const startedMs = performance.now();
      fetch(this.url).then(async (response) => {
        if (!response.ok) throw new Error(`${this.url} answered ${response.status}`);
        this.lastBytes = (await response.text()).length;
        this.latenciesMs.push(performance.now() - startedMs);
        this.scrapes++;
      }).catch((error: unknown) => {
        this.failure = error as Error;
      });
    }, 1000);
  }

  /** Stops; @throws the first failed scrape */
  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    if (this.failure !== null) throw this.failure;
  }
}

/**
 * Every console page open at once: each API path polled on its page's schedule, the next poll
 * `intervalMs` after the last answer (host/console/web/api.ts usePoll, overview.tsx's throughput).
 */
class ConsolePoller {
  requests = 0;
  readonly latenciesMs: number[] = [];
  /** Answer times by page poll (its path without the query). */
  readonly latenciesByPath = new Map<string, number[]>();
  private timers = new Set<NodeJS.Timeout>();
  private stopped = false;
  private failure: Error | null = null;
  private since = 0;

  constructor(private readonly base: string, private readonly topic: string) {}

  start(): void {
    const topic = encodeURIComponent(this.topic);
    this.poll(() => `throughput?since=${this.since}`, 1000, (body) => {
      const samples = (body as { samples: { timeMs: number }[] }).samples;
      if (samples.length > 0) this.since = samples[samples.length - 1]!.timeMs;
    });
    this.poll(() => 'overview', 3000); // overview page
    this.poll(() => 'overview', 10_000); // the shell (cluster id, write switch)
    this.poll(() => 'topics?offset=0&limit=50&internal=false&search=', 3000);
    this.poll(() => `topics/${topic}`, 3000);
    this.poll(() => 'groups?offset=0&limit=50&search=', 3000);
    this.poll(() => `groups/${encodeURIComponent(WATCHED_GROUP)}`, 2000);
  }

  private poll(path: () => string, intervalMs: number, use?: (body: unknown) => void): void {
    const run = (): void => {
      const url = `${this.base}/console/api/${path()}`;
      const startedMs = performance.now();
      fetch(url).then(async (response) => {
        if (!response.ok) throw new Error(`${url} answered ${response.status}: ${await response.text()}`);
        use?.(await response.json());
        const ms = performance.now() - startedMs;
        this.latenciesMs.push(ms);
        const key = path().replace(/\?.*$/, '').replace(encodeURIComponent(this.topic), '<topic under load>');
        this.latenciesByPath.set(key, [...(this.latenciesByPath.get(key) ?? []), ms]);
        this.requests++;
      }).catch((error: unknown) => {
        this.failure ??= error as Error;
      }).finally(() => {
        if (this.stopped) return;
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          run();
        }, intervalMs);
        this.timers.add(timer);
      });
    };
    run();
  }

  /** Stops; @throws the first failed request */
  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    if (this.failure !== null) throw this.failure;
  }
}

/** One phase of one run: what moved and what the broker spent on it. */
interface PhaseSample {
  bytes: number;
  seconds: number;
  cpuSeconds: number;
}

interface RunSample {
  run: number;
  generator: string;
  condition: Condition;
  produce: PhaseSample;
  consume: PhaseSample;
  scrapes: number;
  consoleRequests: number;
  /** Requests of the replay producer (batchRecords per request), for CPU per request. */
  produceRequests: number;
}

const mbPerSecond = (s: PhaseSample): number => s.bytes / 1e6 / s.seconds;
/** Broker CPU ms per MB of record values moved. */
const cpuMsPerMb = (s: PhaseSample): number => (s.cpuSeconds * 1000) / (s.bytes / 1e6);

async function phase(broker: BenchBroker, passes: number, load: () => Promise<LoadResult>, records: number): Promise<PhaseSample> {
  const sample: PhaseSample = { bytes: 0, seconds: 0, cpuSeconds: 0 };
  for (let pass = 0; pass < passes; pass++) {
    const before = broker.process.stats().cpuSeconds;
    const result = await load();
    const cpu = broker.process.stats().cpuSeconds - before;
    if (result.records < records) throw new Error(`only ${result.records} of ${records} records`);
    sample.bytes += result.bytes;
    sample.seconds += result.elapsedMs / 1000;
    sample.cpuSeconds += cpu;
  }
  return sample;
}

/** What one poll costs the broker: CPU ms per request of each path, and its rate in a watched run. */
interface PollCost {
  path: string;
  perSecond: number;
  cpuMsPerRequest: number;
}

/** The polls of a watched run: `/metrics` every 1 s and the console pages' schedule (ConsolePoller). */
const WATCH_SCHEDULE: readonly { path: string; perSecond: number }[] = [
  { path: '/metrics', perSecond: 1 },
  { path: '/console/api/throughput?since=0', perSecond: 1 },
  { path: '/console/api/overview', perSecond: 1 / 3 + 1 / 10 },
  { path: '/console/api/topics?offset=0&limit=50&internal=false&search=', perSecond: 1 / 3 },
  { path: `/console/api/topics/${WATCHED_TOPIC}`, perSecond: 1 / 3 },
  { path: '/console/api/groups?offset=0&limit=50&search=', perSecond: 1 / 3 },
  { path: `/console/api/groups/${WATCHED_GROUP}`, perSecond: 1 / 2 },
];

/**
 * The direct measure: on the broker with no load, `requests` GETs of each path back to back;
 * the broker's CPU over them, less its idle CPU rate over the same wall time, per request.
 * (CPU time is counted in 10 ms ticks: 200 requests keep that under a few percent.)
 */
async function measurePollCosts(broker: BenchBroker, base: string, requests: number): Promise<{ idleCpuMsPerSecond: number; polls: PollCost[] }> {
  const get = async (url: string): Promise<void> => {
    const response = await fetch(url);
    const body = await response.text();
    if (!response.ok) throw new Error(`${url} answered ${response.status}: ${body}`);
  };
  for (const { path } of WATCH_SCHEDULE) for (let i = 0; i < 20; i++) await get(base + path); // warm-up
  const idleStart = broker.process.stats().cpuSeconds;
  await new Promise((resolve) => setTimeout(resolve, 5000));
  const idleCpuMsPerSecond = ((broker.process.stats().cpuSeconds - idleStart) * 1000) / 5;
  const polls: PollCost[] = [];
  for (const { path, perSecond } of WATCH_SCHEDULE) {
    const cpuBefore = broker.process.stats().cpuSeconds;
    const startedMs = performance.now();
    for (let i = 0; i < requests; i++) await get(base + path);
    const wallSeconds = (performance.now() - startedMs) / 1000;
    const cpuMs = (broker.process.stats().cpuSeconds - cpuBefore) * 1000 - idleCpuMsPerSecond * wallSeconds;
    polls.push({ path, perSecond, cpuMsPerRequest: cpuMs / requests });
  }
  return { idleCpuMsPerSecond, polls };
}

/** A group with a committed offset behind the log end: what the console's groups and group pages show. */
async function prepareWatchedGroup(admin: Admin, distRoot: string, bootstrap: string): Promise<void> {
  await admin.createTopics({ topics: [{ topic: WATCHED_TOPIC, numPartitions: 1, replicationFactor: 1 }] });
  await runLoad('raw-produce', { distRoot, bootstrap, topic: WATCHED_TOPIC, records: 10_000, size: 100, acks: 1, batchRecords: 1_000, inFlight: 5 }, LOAD_TIMEOUT_MS);
  await admin.setOffsets({ groupId: WATCHED_GROUP, offsets: [{ topic: WATCHED_TOPIC, partition: 0, offset: 5_000 }] });
}

async function main(): Promise<void> {
  const options = new Command('bench:metrics')
    .option('--records <n>', 'records per run (W1: 1,000,000; more makes a phase last long enough for many scrapes)', '5000000')
    .option('--size <bytes>', 'record value size (W1: 100)', '100')
    .option('--runs <n>', 'runs per condition (ABBA order)', '11')
    .option('--consume-passes <n>', 'reads of the whole topic per consume phase (replay)', '3')
    .option('--kcat-consume-passes <n>', 'reads of the whole topic per consume phase (kcat, slower)', '1')
    .option('--generators <list>', 'replay, kcat', 'replay,kcat')
    .option('--no-warmup', 'skip the uncounted warm-up pair')
    .option('--poll-requests <n>', 'requests per path in the direct measure of a poll\'s CPU (0: skip)', '200')
    .parse()
    .opts<Options>();
  const records = Number(options.records);
  const size = Number(options.size);
  const runs = Number(options.runs);
  const passes = { replay: Number(options.consumePasses), kcat: Number(options.kcatConsumePasses) };
  const generators = options.generators.split(',').filter((g) => g === 'replay' || (g === 'kcat' && kcatVersion() !== null));
  const snapshot = takeBuildSnapshot();
  const distRoot = path.join(snapshot.root, 'dist');
  const payloads = new PayloadFiles();
  const broker = await BenchBroker.start(snapshot, { http: true });
  const httpBase = `http://${BENCH_HOST}:${broker.httpPort!}`;
  const admin = new Admin({ bootstrapServers: [broker.bootstrap], clientId: 'bench-metrics-admin' });
  const samples: RunSample[] = [];
  const scrapeMs: number[] = [];
  const consoleMs: number[] = [];
  const consoleMsByPath = new Map<string, number[]>();
  const loadBefore = os.loadavg();
  const startedAt = new Date();
  let scrapeBytes = 0;
  let pollCosts: { idleCpuMsPerSecond: number; polls: PollCost[] } | null = null;
  try {
    await admin.connect();
    await prepareWatchedGroup(admin, distRoot, broker.bootstrap);
    if (Number(options.pollRequests) > 0) pollCosts = await measurePollCosts(broker, httpBase, Number(options.pollRequests));
    const first = options.warmup ? -1 : 0;
    for (let run = first; run < runs; run++) {
      for (const generator of generators) {
        // ABBA: A B in even runs, B A in odd ones (the warm-up pair is A B and not counted).
        const order = run >= 0 && run % 2 === 1 ? [...CONDITIONS].reverse() : CONDITIONS;
        for (const condition of order) {
          const topic = `w1-${generator}-${run < 0 ? 'warmup' : run}-${condition === 'idle' ? 'idle' : 'watched'}`;
          await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }] });
          const scraper = new Scraper(`${httpBase}/metrics`);
          const consolePages = new ConsolePoller(httpBase, topic);
          if (condition !== 'idle') {
            scraper.start();
            consolePages.start();
          }
          const produce = await phase(broker, 1, () => (generator === 'kcat'
            ? kcatProduce({ bootstrap: broker.bootstrap, topic, file: payloads.file(records, size), records, size, acks: 1, partition: 0, lingerMs: 5, batchMessages: 10_000, timeoutMs: LOAD_TIMEOUT_MS })
            : runLoad('raw-produce', { distRoot, bootstrap: broker.bootstrap, topic, records, size, acks: 1, batchRecords: 1_000, inFlight: 5 }, LOAD_TIMEOUT_MS)), records);
          const consume = await phase(broker, generator === 'kcat' ? passes.kcat : passes.replay, () => (generator === 'kcat'
            ? kcatConsume({ bootstrap: broker.bootstrap, topic, records, size, timeoutMs: LOAD_TIMEOUT_MS })
            : runLoad('raw-consume', { bootstrap: broker.bootstrap, topic, records, size, partitionMaxBytes: 8_388_608 }, LOAD_TIMEOUT_MS)), records);
          scraper.stop();
          consolePages.stop();
          await admin.deleteTopics({ topics: [topic] });
          if (scraper.lastBytes > 0) scrapeBytes = scraper.lastBytes;
          process.stderr.write(`[bench:metrics] ${run < 0 ? 'warm-up' : `run ${run + 1}/${runs}`} ${generator} ${condition}: `
            + `produce ${mbPerSecond(produce).toFixed(1)} MB/s ${cpuMsPerMb(produce).toFixed(2)} CPU ms/MB (${produce.seconds.toFixed(1)} s), `
            + `consume ${mbPerSecond(consume).toFixed(1)} MB/s ${cpuMsPerMb(consume).toFixed(2)} CPU ms/MB (${consume.seconds.toFixed(1)} s), `
            + `${scraper.scrapes} scrapes, ${consolePages.requests} console requests, load ${os.loadavg()[0]!.toFixed(1)}\n`);
          if (run < 0) continue;
          scrapeMs.push(...scraper.latenciesMs);
          consoleMs.push(...consolePages.latenciesMs);
          for (const [key, list] of consolePages.latenciesByPath) consoleMsByPath.set(key, [...(consoleMsByPath.get(key) ?? []), ...list]);
          samples.push({
            run, generator, condition, produce, consume, scrapes: scraper.scrapes, consoleRequests: consolePages.requests,
            produceRequests: generator === 'replay' ? Math.ceil(records / 1_000) : Number.NaN,
          });
        }
      }
    }
  } finally {
    await admin.close().catch(() => undefined);
    await broker.close();
    payloads.remove();
    snapshot.remove();
  }
  const meta = {
    commit: snapshot.gitCommit, startedAt: startedAt.toISOString(), records, size, runs, passes, scrapeBytes,
    loadBefore: loadBefore.map((l) => Number(l.toFixed(1))), loadAfter: os.loadavg().map((l) => Number(l.toFixed(1))),
    scrapeMs: summarize(scrapeMs), consoleMs: summarize(consoleMs),
    consoleMsByPath: Object.fromEntries([...consoleMsByPath].map(([key, list]) => [key, summarize(list)])),
    pollCosts,
  };
  const rows = analyse(samples, generators);
  report(rows, meta);
  const file = path.join('bench', 'results', `metrics-overhead-${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify({ meta, rows, samples }, null, 2));
  console.log(`samples: ${file}`);
}

interface Row {
  generator: string;
  phase: 'produce' | 'consume';
  /** Per condition: CPU ms per MB and MB/s over the runs; scrapes and console requests per run. */
  idle: { cpu: Summary; rate: Summary };
  watched: { cpu: Summary; rate: Summary; scrapes: Summary; consoleRequests: Summary; seconds: Summary };
  cpuRatio: RatioSummary;
  rateRatio: RatioSummary;
  /** Broker CPU µs per Produce request (replay produce only), idle condition. */
  cpuMicrosPerRequest?: Summary;
}

function analyse(samples: readonly RunSample[], generators: readonly string[]): Row[] {
  const rows: Row[] = [];
  for (const generator of generators) {
    const byRun = (condition: Condition): RunSample[] => samples.filter((s) => s.generator === generator && s.condition === condition).sort((x, y) => x.run - y.run);
    const idle = byRun('idle');
    const watched = byRun('scraped + console');
    for (const phaseName of ['produce', 'consume'] as const) {
      const cpu = (list: RunSample[]): number[] => list.map((s) => cpuMsPerMb(s[phaseName]));
      const rate = (list: RunSample[]): number[] => list.map((s) => mbPerSecond(s[phaseName]));
      rows.push({
        generator,
        phase: phaseName,
        idle: { cpu: summarize(cpu(idle)), rate: summarize(rate(idle)) },
        watched: {
          cpu: summarize(cpu(watched)),
          rate: summarize(rate(watched)),
          scrapes: summarize(watched.map((s) => s.scrapes)),
          consoleRequests: summarize(watched.map((s) => s.consoleRequests)),
          seconds: summarize(watched.map((s) => s[phaseName].seconds)),
        },
        cpuRatio: ratioSummary(cpu(idle), cpu(watched)),
        rateRatio: ratioSummary(rate(idle), rate(watched)),
        ...(generator === 'replay' && phaseName === 'produce'
          ? { cpuMicrosPerRequest: summarize(idle.map((s) => (s.produce.cpuSeconds * 1e6) / s.produceRequests)) }
          : {}),
      });
    }
  }
  return rows;
}

interface Meta {
  commit: string;
  records: number;
  size: number;
  runs: number;
  passes: { replay: number; kcat: number };
  scrapeBytes: number;
  loadBefore: number[];
  loadAfter: number[];
  scrapeMs: Summary;
  consoleMs: Summary;
  consoleMsByPath: Record<string, Summary>;
  pollCosts: { idleCpuMsPerSecond: number; polls: PollCost[] } | null;
}

function report(rows: readonly Row[], meta: Meta): void {
  const s = (x: Summary, digits: number): string => `${x.median.toFixed(digits)} (${x.min.toFixed(digits)}–${x.max.toFixed(digits)})`;
  const r = (x: RatioSummary): string => `${x.ofMedians.toFixed(3)} [${x.low.toFixed(3)}–${x.high.toFixed(3)}]; paired ${s(x.paired, 3)}`;
  console.log(`\n/metrics + console overhead (${meta.commit}): W1, ${meta.records} records of ${meta.size} B, 1 partition, acks=1, consume ${meta.passes.replay}× (replay) / ${meta.passes.kcat}× (kcat) per run; `
    + `${meta.runs} runs per condition, ABBA; one broker with http.listeners; /metrics body ${meta.scrapeBytes} B; `
    + `load average ${meta.loadBefore.join(' ')} → ${meta.loadAfter.join(' ')}`);
  console.log(`scrape latency ms ${s(meta.scrapeMs, 1)} (${meta.scrapeMs.runs}); console request latency ms ${s(meta.consoleMs, 1)} (${meta.consoleMs.runs})`);
  for (const [key, summary] of Object.entries(meta.consoleMsByPath)) console.log(`  console ${key}: ${s(summary, 1)} ms (${summary.runs})`);
  const watchCpuMsPerSecond = meta.pollCosts?.polls.reduce((sum, p) => sum + p.cpuMsPerRequest * p.perSecond, 0) ?? Number.NaN;
  if (meta.pollCosts !== null) {
    console.log(`direct: broker CPU per request with no load (idle broker ${meta.pollCosts.idleCpuMsPerSecond.toFixed(1)} CPU ms/s):`);
    for (const p of meta.pollCosts.polls) console.log(`  ${p.path}: ${p.cpuMsPerRequest.toFixed(2)} CPU ms × ${p.perSecond.toFixed(2)}/s`);
    console.log(`  watching (scrape + every console page): ${watchCpuMsPerSecond.toFixed(1)} CPU ms per second`);
  }
  for (const row of rows) {
    const phaseCpuMsPerSecond = row.idle.cpu.median * row.idle.rate.median;
    if (Number.isFinite(watchCpuMsPerSecond)) {
      console.log(`  ${row.generator.padEnd(6)} ${row.phase.padEnd(8)} broker CPU while idle-condition phase runs ${phaseCpuMsPerSecond.toFixed(0)} ms/s: `
        + `watching adds ${watchCpuMsPerSecond.toFixed(1)} ms/s = predicted CPU-per-MB ratio ${(1 + watchCpuMsPerSecond / phaseCpuMsPerSecond).toFixed(4)}`);
    }
    console.log(`  ${row.generator.padEnd(6)} ${row.phase.padEnd(8)} CPU ms/MB idle ${s(row.idle.cpu, 2)}, watched ${s(row.watched.cpu, 2)}; `
      + `MB/s idle ${s(row.idle.rate, 1)}, watched ${s(row.watched.rate, 1)}; watched phase ${s(row.watched.seconds, 1)} s, `
      + `${row.watched.scrapes.median} scrapes, ${row.watched.consoleRequests.median} console requests per run`);
    console.log(`  ${row.generator.padEnd(6)} ${row.phase.padEnd(8)} ratio watched/idle: CPU per MB ${r(row.cpuRatio)}`);
    console.log(`  ${row.generator.padEnd(6)} ${row.phase.padEnd(8)} ratio watched/idle: throughput ${r(row.rateRatio)}`);
    if (row.cpuMicrosPerRequest !== undefined) console.log(`  ${row.generator.padEnd(6)} ${row.phase.padEnd(8)} broker CPU per Produce request (1,000 records) ${s(row.cpuMicrosPerRequest, 0)} µs`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
