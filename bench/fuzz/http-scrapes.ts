/**
 * `npm run bench:http-scrapes -- [--baseline <root>] [--partitions 49500] [--gets 6] [--runs 1]`:
 * issue 15's stalls of the HTTP console and the Prometheus endpoint on a broker holding many
 * partitions. For each build (a project root given by `--baseline`, e.g. a worktree of the commit
 * to compare, built; then this one), a broker process with default configs except
 * `controller.mutation.rate` 0 (the creates are not throttled) and `max.partitions` above
 * `--partitions`, with an HTTP listener, gets `--partitions` empty partitions (topics of 500,
 * CreateTopics v4); once every partition directory exists, for each route
 * (`GET /metrics`, `GET /console/api/topics`) it is fetched `--gets` times in a row while a
 * probe client sends a Metadata (no topics) over TCP every 20 ms: printed are the probe's
 * longest round trip, its median, and the longest GET. With `--runs n` the builds alternate run
 * by run and medians are printed, then the ratios baseline / this build.
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
const ROUTES = ['/metrics', '/console/api/topics'] as const;

interface Outcome {
  /** The probe's longest Metadata round trip while the route was fetched, ms. */
  readonly probeMaxMs: number;
  readonly probeMedianMs: number;
  /** The longest of the GETs, ms. */
  readonly getMaxMs: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Fetches `url` `gets` times in a row while the probe runs on `probe`. */
async function probedGets(probe: Connection, url: string, gets: number): Promise<Outcome> {
  let probing = true;
  const roundTrips: number[] = [];
  const probeLoop = (async () => {
    while (probing) {
      const sentMs = performance.now();
      await probe.request(ApiKey.Metadata, 8, encodeMetadataRequest, decodeMetadataResponse,
        { topics: [], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
      roundTrips.push(performance.now() - sentMs);
      await sleep(PROBE_INTERVAL_MS);
    }
  })();
  let getMaxMs = 0;
  for (let i = 0; i < gets; i++) {
    const startedMs = performance.now();
    const response = await fetch(url);
    await response.text();
    if (response.status !== 200) throw new Error(`GET ${url}: HTTP ${response.status}`);
    getMaxMs = Math.max(getMaxMs, performance.now() - startedMs);
  }
  await sleep(300);
  probing = false;
  await probeLoop;
  return { probeMaxMs: Math.max(0, ...roundTrips), probeMedianMs: median(roundTrips), getMaxMs };
}

async function runBuild(snapshot: BuildSnapshot, partitions: number, gets: number): Promise<Map<string, Outcome>> {
  const broker = await BenchBroker.start(snapshot, {
    http: true,
    overrides: { 'controller.mutation.rate': 0, 'max.partitions': partitions + 1000 },
    startTimeoutMs: 120_000,
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
    await sleep(6_000); // the first housekeeping ticks after the creates
    const probe = await Connection.open(BENCH_HOST, broker.port);
    try {
      for (const route of ROUTES) out.set(`GET ${route}`, await probedGets(probe, `http://${BENCH_HOST}:${broker.httpPort}${route}`, gets));
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
    .parse()
    .opts<{ baseline?: string; partitions: string; gets: string; runs: string }>();
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
        for (const [name, outcome] of await runBuild(build.snapshot, partitions, Number(options.gets))) {
          const list = results.get(build.label)!.get(name) ?? [];
          list.push(outcome);
          results.get(build.label)!.set(name, list);
        }
      }
    }
    const lines = [`http scrapes bench (issue 15): ${partitions} partitions, ${options.gets} GETs per route, Metadata probe every ${PROBE_INTERVAL_MS} ms, ${options.runs} run(s) per build, medians`];
    for (const build of builds) {
      lines.push(`  ${build.label}:`);
      for (const [name, outcomes] of results.get(build.label)!) {
        lines.push(`    ${name}: probe waited up to ${median(outcomes.map((o) => o.probeMaxMs)).toFixed(0)} ms (median ${median(outcomes.map((o) => o.probeMedianMs)).toFixed(1)} ms), ` +
          `longest GET ${median(outcomes.map((o) => o.getMaxMs)).toFixed(0)} ms; per run, probe max: ${outcomes.map((o) => o.probeMaxMs.toFixed(0)).join(', ')} ms`);
      }
    }
    if (builds.length === 2) {
      const [base, current] = builds.map((b) => results.get(b.label)!);
      lines.push('  ratios baseline / this build (probe\'s longest wait, longest GET; this build\'s figure floored at 1 ms):');
      lines.push(...ratioLines(base!, current!, [(o: Outcome) => o.probeMaxMs, (o) => o.getMaxMs], 1));
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    for (const build of builds) build.snapshot.remove();
  }
}

runBench(main);
