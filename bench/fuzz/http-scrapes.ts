/**
 * `npm run bench:http-scrapes -- [--baseline <root>] [--partitions 49500] [--gets 6] [--runs 1]
 * [--routes none,/metrics,/console/api/topics] [--pause-ms 0] [--stall-ms 0] [--show <regex>] [--node-flags <flags>]`:
 * issue 15's stalls of the HTTP console and the Prometheus endpoint on a broker holding many
 * partitions. For each build (a project root given by `--baseline`, e.g. a worktree of the commit
 * to compare, built; then this one), a broker process with default configs except
 * `controller.mutation.rate` 0 (the creates are not throttled) and `max.partitions` above
 * `--partitions`, with an HTTP listener, gets `--partitions` empty partitions (topics of 500,
 * CreateTopics v4, and one topic of one partition for the probe); once every partition directory
 * exists, for each route (`--routes`, default `GET /metrics` and `GET /console/api/topics`) it is
 * fetched `--gets` times in a row while a probe client sends a Metadata of its one topic over TCP
 * every 20 ms: printed are the probe's longest round trip, its 99th percentile and median, and
 * the longest GET and the body's size. `--pause-ms` waits between two GETs (a scraper's
 * interval); the route `none` runs the probe alone as long (the broker's own stalls, for
 * comparison). With `--runs n` the builds alternate run by run and medians are printed, then the
 * ratios baseline / this build. `--stall-ms n` sets `event.loop.stall.threshold.ms` and prints
 * the broker's output lines matching `--show` (default its event_loop.stall lines) printed while
 * each route was fetched; `--node-flags` go to the broker's node (e.g. `--cpu-prof
 * --cpu-prof-dir=DIR`: the profile is written when the broker exits).
 */
import { readdirSync } from 'node:fs';
import { Command } from 'commander';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { decodeCreateTopicsResponse, encodeCreateTopicsRequest } from '../../host/protocol/generated/create-topics.js';
import { decodeMetadataResponse, encodeMetadataRequest } from '../../host/protocol/generated/metadata.js';
import { BenchBroker, BENCH_HOST } from '../e2e/broker.js';
import { type BuildSnapshot, takeBuildSnapshot } from '../e2e/build-snapshot.js';
import { median, ratioLines, runBench } from './build-comparison.js';
import { Connection } from './well-behaved.js';

const PREFIX = 'scraped-';
const PER_TOPIC = 500;
const PROBE_INTERVAL_MS = 20;
const PROBE_TOPIC = `${PREFIX}probe`;

interface Outcome {
  /** The probe's longest Metadata round trip while the route was fetched, ms. */
  readonly probeMaxMs: number;
  /** Its 99th percentile, ms. */
  readonly probeP99Ms: number;
  readonly probeMedianMs: number;
  /** The longest of the GETs, ms. */
  readonly getMaxMs: number;
  /** The last GET's body, bytes. */
  readonly bodyBytes: number;
}

interface RunOptions {
  readonly partitions: number;
  readonly gets: number;
  readonly pauseMs: number;
  /** Routes to fetch; `none`: the probe alone, as long as a route's GETs with their pauses. */
  readonly routes: readonly string[];
  readonly stallMs: number;
  readonly show: RegExp;
  readonly nodeFlags: readonly string[];
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Fetches `url` `gets` times, `pauseMs` apart, while the probe runs on `probe`; `url` null: no GET, the probe alone as long. */
async function probedGets(probe: Connection, url: string | null, gets: number, pauseMs: number): Promise<Outcome> {
  let probing = true;
  const roundTrips: number[] = [];
  const probeLoop = (async () => {
    while (probing) {
      const sentMs = performance.now();
      await probe.request(ApiKey.Metadata, 8, encodeMetadataRequest, decodeMetadataResponse,
        { topics: [{ name: PROBE_TOPIC }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
      roundTrips.push(performance.now() - sentMs);
      await sleep(PROBE_INTERVAL_MS);
    }
  })();
  let getMaxMs = 0;
  let bodyBytes = 0;
  for (let i = 0; i < gets; i++) {
    if (i > 0 || url === null) await sleep(pauseMs);
    if (url === null) continue;
    const startedMs = performance.now();
    const response = await fetch(url);
    bodyBytes = (await response.arrayBuffer()).byteLength;
    if (response.status !== 200) throw new Error(`GET ${url}: HTTP ${response.status}`);
    getMaxMs = Math.max(getMaxMs, performance.now() - startedMs);
  }
  await sleep(300);
  probing = false;
  await probeLoop;
  const sorted = [...roundTrips].sort((a, b) => a - b);
  const p99 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0;
  return { probeMaxMs: Math.max(0, ...roundTrips), probeP99Ms: p99, probeMedianMs: median(roundTrips), getMaxMs, bodyBytes };
}

async function runBuild(snapshot: BuildSnapshot, options: RunOptions): Promise<Map<string, Outcome>> {
  const partitions = options.partitions;
  let shown: string[] | null = null;
  const broker = await BenchBroker.start(snapshot, {
    http: true,
    overrides: {
      'controller.mutation.rate': 0, 'max.partitions': partitions + 1000,
      ...(options.stallMs > 0 ? { 'event.loop.stall.threshold.ms': options.stallMs } : {}),
    },
    nodeFlags: [...options.nodeFlags],
    startTimeoutMs: 120_000,
    onLine: (line) => {
      if (shown !== null && options.show.test(line)) shown.push(line);
    },
  });
  const out = new Map<string, Outcome>();
  try {
    const admin = await Connection.open(BENCH_HOST, broker.port);
    for (let t = -1, created = 0; created < partitions + 1; t++) {
      const count = t < 0 ? 1 : Math.min(PER_TOPIC, partitions + 1 - created);
      const response = await admin.request(ApiKey.CreateTopics, 4, encodeCreateTopicsRequest, decodeCreateTopicsResponse, {
        topics: [{ name: t < 0 ? PROBE_TOPIC : `${PREFIX}${t}`, numPartitions: count, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 120_000, validateOnly: false,
      });
      if (response.topics[0]!.errorCode !== 0) throw new Error(`CreateTopics ${t}: error ${response.topics[0]!.errorCode}`);
      created += count;
    }
    admin.close();
    while (readdirSync(broker.logDir).filter((name) => name.startsWith(PREFIX)).length < partitions + 1) {
      if (!broker.process.running) throw new Error(`the broker exited while creating partitions:\n${broker.process.outputTail()}`);
      await sleep(500);
    }
    await sleep(6_000); // the first housekeeping ticks after the creates
    const probe = await Connection.open(BENCH_HOST, broker.port);
    try {
      for (const route of options.routes) {
        const url = route === 'none' ? null : `http://${BENCH_HOST}:${broker.httpPort}${route}`;
        const name = url === null ? 'no GET' : `GET ${route}`;
        if (options.stallMs > 0) shown = [];
        out.set(name, await probedGets(probe, url, options.gets, options.pauseMs));
        if (shown !== null) process.stderr.write(`  broker lines during ${name}:\n${(shown as string[]).map((line) => `    ${line}\n`).join('')}`);
        shown = null;
      }
    } finally {
      probe.close();
    }
  } finally {
    await broker.close();
  }
  return out;
}

async function main(): Promise<void> {
  const options = new Command('http-scrapes')
    .option('--baseline <root>', 'also measure the build in this project root (a worktree of another commit, built)')
    .option('--partitions <n>', 'partitions the broker holds', '49500')
    .option('--gets <n>', 'GETs of each route in a row', '6')
    .option('--runs <n>', 'runs per build', '1')
    .option('--routes <paths>', 'the routes fetched, comma-separated (none: the probe alone)', '/metrics,/console/api/topics')
    .option('--pause-ms <n>', 'pause between two GETs', '0')
    .option('--stall-ms <n>', 'event.loop.stall.threshold.ms of the broker (0: its default); prints its lines matching --show', '0')
    .option('--show <regex>', 'with --stall-ms: the broker output lines printed', 'event_loop\\.stall')
    .option('--node-flags <flags>', 'space-separated flags for the broker\'s node (e.g. --cpu-prof --cpu-prof-dir=DIR)', '')
    .parse()
    .opts<{ baseline?: string; partitions: string; gets: string; runs: string; routes: string; pauseMs: string; stallMs: string; show: string; nodeFlags: string }>();
  const runOptions: RunOptions = {
    partitions: Number(options.partitions), gets: Number(options.gets), pauseMs: Number(options.pauseMs), routes: options.routes.split(','),
    stallMs: Number(options.stallMs), show: new RegExp(options.show), nodeFlags: options.nodeFlags.split(' ').filter((flag) => flag !== ''),
  };
  const partitions = Number(options.partitions);
  const builds: { label: string; snapshot: BuildSnapshot }[] = [];
  try {
    if (options.baseline !== undefined) {
      const snapshot = takeBuildSnapshot(options.baseline);
      builds.push({ label: `baseline ${snapshot.gitCommit}`, snapshot });
    }
    const current = takeBuildSnapshot();
    builds.push({ label: `this build ${current.gitCommit}`, snapshot: current });
    const results = new Map<string, Map<string, Outcome[]>>(builds.map((b) => [b.label, new Map()]));
    for (let run = 0; run < Number(options.runs); run++) {
      for (const build of run % 2 === 0 ? builds : [...builds].reverse()) {
        process.stderr.write(`run ${run + 1}: ${build.label}\n`);
        for (const [name, outcome] of await runBuild(build.snapshot, runOptions)) {
          const list = results.get(build.label)!.get(name) ?? [];
          list.push(outcome);
          results.get(build.label)!.set(name, list);
        }
      }
    }
    const lines = [`http scrapes bench (issue 15): ${partitions} partitions, ${options.gets} GETs per route ${options.pauseMs} ms apart, one-topic Metadata probe every ${PROBE_INTERVAL_MS} ms, ${options.runs} run(s) per build, medians`];
    for (const build of builds) {
      lines.push(`  ${build.label}:`);
      for (const [name, outcomes] of results.get(build.label)!) {
        lines.push(`    ${name}: probe waited up to ${median(outcomes.map((o) => o.probeMaxMs)).toFixed(0)} ms (p99 ${median(outcomes.map((o) => o.probeP99Ms)).toFixed(1)} ms, ` +
          `median ${median(outcomes.map((o) => o.probeMedianMs)).toFixed(1)} ms), longest GET ${median(outcomes.map((o) => o.getMaxMs)).toFixed(0)} ms, body ${(median(outcomes.map((o) => o.bodyBytes)) / 1e6).toFixed(2)} MB; ` +
          `per run, probe max / p99: ${outcomes.map((o) => `${o.probeMaxMs.toFixed(0)} / ${o.probeP99Ms.toFixed(0)}`).join(', ')} ms`);
      }
    }
    if (builds.length === 2) {
      const [base, current] = builds.map((b) => results.get(b.label)!);
      lines.push('  ratios baseline / this build (probe\'s longest wait, its p99, longest GET; this build\'s figure floored at 1 ms):');
      lines.push(...ratioLines(base!, current!, [(o: Outcome) => o.probeMaxMs, (o) => o.probeP99Ms, (o) => o.getMaxMs], 1));
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    for (const build of builds) build.snapshot.remove();
  }
}

runBench(main);
