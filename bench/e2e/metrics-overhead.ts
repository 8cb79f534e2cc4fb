/**
 * `npm run bench:metrics [-- --records 1000000 --size 100 --runs 3 --generators replay,kcat]`:
 * what `/metrics` costs the produce and fetch hot path (issue 14). One broker process with an HTTP
 * listener (so the metrics counters and the Prometheus registry are live in both conditions) runs
 * W1 (records of `size` bytes, 1 partition, acks=1, one producer, then one consumer reading all
 * from the start), alternating two conditions on fresh topics: not scraped, and scraped every
 * second (`GET /metrics` from the harness, as a Prometheus server would, its body read whole)
 * with the web console open (what its overview and topics pages ask for: `/console/api/throughput`
 * every second, `/console/api/overview` and a page of `/console/api/topics` every 3 s).
 * Prints MB/s per run and phase, the broker's CPU seconds per phase (utime + stime of its
 * process, which a busy machine disturbs less than the rates), and the ratios scraped / not
 * scraped of the medians, measured in the same run.
 *
 * Generators: `replay` (pre-encoded Produce v3 and raw Fetch v4, load-raw.ts: the broker's own
 * ceiling, where an overhead shows most) and `kcat` (librdkafka, W1's main generator). Not a
 * test: it fails only on errors (a short read, a failed scrape).
 */
import path from 'node:path';
import { Command } from 'commander';
import { takeBuildSnapshot } from './build-snapshot.js';
import { BenchBroker, BENCH_HOST } from './broker.js';
import { runLoad } from './child-run.js';
import { kcatConsume, kcatProduce, kcatVersion, PayloadFiles } from './kcat.js';
import type { LoadResult } from './load-common.js';

interface Options {
  records: string;
  size: string;
  runs: string;
  generators: string;
}

type Condition = 'not scraped' | 'scraped + console';
const CONDITIONS: readonly Condition[] = ['not scraped', 'scraped + console'];
const LOAD_TIMEOUT_MS = 600_000;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Scrapes `/metrics` every second until stopped; counts scrapes and the bytes of the last one. */
class Scraper {
  scrapes = 0;
  lastBytes = 0;
  private timer: NodeJS.Timeout | null = null;
  private failure: Error | null = null;

  constructor(private readonly url: string) {}

  start(): void {
    this.timer = setInterval(() => {
      fetch(this.url).then(async (response) => {
        if (!response.ok) throw new Error(`${this.url} answered ${response.status}`);
        this.lastBytes = (await response.text()).length;
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

/** An open console page: its API requests on the pages' own schedule; counts the answers. */
class ConsolePoller {
  requests = 0;
  private timers: NodeJS.Timeout[] = [];
  private failure: Error | null = null;
  private since = 0;

  constructor(private readonly base: string) {}

  start(): void {
    this.timers.push(setInterval(() => this.get(`throughput?since=${this.since}`, (body) => {
      const samples = (body as { samples: { timeMs: number }[] }).samples;
      if (samples.length > 0) this.since = samples[samples.length - 1]!.timeMs;
    }), 1000));
    this.timers.push(setInterval(() => {
      this.get('overview');
      this.get('topics?limit=50');
    }, 3000));
  }

  private get(path: string, use?: (body: unknown) => void): void {
    fetch(`${this.base}/console/api/${path}`).then(async (response) => {
      if (!response.ok) throw new Error(`/console/api/${path} answered ${response.status}`);
      use?.(await response.json());
      this.requests++;
    }).catch((error: unknown) => {
      this.failure = error as Error;
    });
  }

  /** Stops; @throws the first failed request */
  stop(): void {
    for (const timer of this.timers.splice(0)) clearInterval(timer);
    if (this.failure !== null) throw this.failure;
  }
}

interface PhaseSample {
  mbPerSecond: number;
  cpuSeconds: number;
}

async function phase(broker: BenchBroker, load: () => Promise<LoadResult>, records: number): Promise<PhaseSample> {
  const before = broker.process.stats().cpuSeconds;
  const result = await load();
  if (result.records < records) throw new Error(`only ${result.records} of ${records} records`);
  return { mbPerSecond: result.bytes / 1e6 / (result.elapsedMs / 1000), cpuSeconds: broker.process.stats().cpuSeconds - before };
}

async function main(): Promise<void> {
  const options = new Command('bench:metrics')
    .option('--records <n>', 'records per run (W1: 1,000,000)', '1000000')
    .option('--size <bytes>', 'record value size (W1: 100)', '100')
    .option('--runs <n>', 'runs per condition (alternating)', '3')
    .option('--generators <list>', 'replay, kcat', 'replay,kcat')
    .parse()
    .opts<Options>();
  const records = Number(options.records);
  const size = Number(options.size);
  const runs = Number(options.runs);
  const generators = options.generators.split(',').filter((g) => g === 'replay' || (g === 'kcat' && kcatVersion() !== null));
  const snapshot = takeBuildSnapshot();
  const distRoot = path.join(snapshot.root, 'dist');
  const payloads = new PayloadFiles();
  const broker = await BenchBroker.start(snapshot, { http: true });
  const httpBase = `http://${BENCH_HOST}:${broker.httpPort!}`;
  const scrapeUrl = `${httpBase}/metrics`;
  // samples[generator][condition][phase]
  const samples = new Map<string, Map<Condition, { produce: PhaseSample[]; consume: PhaseSample[]; scrapes: number[] }>>();
  let scrapeBytes = 0;
  try {
    for (let run = 0; run < runs; run++) {
      for (const generator of generators) {
        for (const condition of CONDITIONS) {
          const topic = `w1-${generator}-${run}-${condition === 'not scraped' ? 'plain' : 'scraped'}`;
          const scraper = new Scraper(scrapeUrl);
          const consolePage = new ConsolePoller(httpBase);
          if (condition !== 'not scraped') {
            scraper.start();
            consolePage.start();
          }
          const produce = await phase(broker, () => (generator === 'kcat'
            ? kcatProduce({ bootstrap: broker.bootstrap, topic, file: payloads.file(records, size), records, size, acks: 1, partition: 0, lingerMs: 5, batchMessages: 10_000, timeoutMs: LOAD_TIMEOUT_MS })
            : runLoad('raw-produce', { distRoot, bootstrap: broker.bootstrap, topic, records, size, acks: 1, batchRecords: 1_000, inFlight: 5 }, LOAD_TIMEOUT_MS)), records);
          const consume = await phase(broker, () => (generator === 'kcat'
            ? kcatConsume({ bootstrap: broker.bootstrap, topic, records, size, timeoutMs: LOAD_TIMEOUT_MS })
            : runLoad('raw-consume', { bootstrap: broker.bootstrap, topic, records, size, partitionMaxBytes: 8_388_608 }, LOAD_TIMEOUT_MS)), records);
          scraper.stop();
          consolePage.stop();
          if (scraper.lastBytes > 0) scrapeBytes = scraper.lastBytes;
          const byCondition = samples.get(generator) ?? new Map();
          samples.set(generator, byCondition);
          const entry = byCondition.get(condition) ?? { produce: [], consume: [], scrapes: [] };
          byCondition.set(condition, entry);
          entry.produce.push(produce);
          entry.consume.push(consume);
          entry.scrapes.push(scraper.scrapes);
          process.stderr.write(`[bench:metrics] run ${run + 1}/${runs} ${generator} ${condition}: produce ${produce.mbPerSecond.toFixed(1)} MB/s, consume ${consume.mbPerSecond.toFixed(1)} MB/s, ${scraper.scrapes} scrapes, ${consolePage.requests} console requests\n`);
        }
      }
    }
  } finally {
    await broker.close();
    payloads.remove();
    snapshot.remove();
  }
  report(samples, { records, size, runs, scrapeBytes, commit: snapshot.gitCommit });
}

function report(
  samples: Map<string, Map<Condition, { produce: PhaseSample[]; consume: PhaseSample[]; scrapes: number[] }>>,
  run: { records: number; size: number; runs: number; scrapeBytes: number; commit: string },
): void {
  console.log(`\n/metrics and console overhead (${run.commit}): W1, ${run.records} records of ${run.size} B, 1 partition, acks=1; ${run.runs} runs per condition, alternating; one broker with http.listeners; /metrics body ${run.scrapeBytes} B`);
  for (const [generator, byCondition] of samples) {
    for (const phaseName of ['produce', 'consume'] as const) {
      const medians = CONDITIONS.map((condition) => {
        const list = byCondition.get(condition)![phaseName];
        return { rate: median(list.map((s) => s.mbPerSecond)), cpu: median(list.map((s) => s.cpuSeconds)), min: Math.min(...list.map((s) => s.mbPerSecond)), max: Math.max(...list.map((s) => s.mbPerSecond)) };
      });
      for (const [i, condition] of CONDITIONS.entries()) {
        const m = medians[i]!;
        console.log(`  ${generator.padEnd(6)} ${phaseName.padEnd(8)} ${condition.padEnd(18)} ${m.rate.toFixed(1).padStart(7)} MB/s (${m.min.toFixed(1)}-${m.max.toFixed(1)}), broker CPU ${m.cpu.toFixed(2)} s`);
      }
      console.log(`  ${generator.padEnd(6)} ${phaseName.padEnd(8)} ratio scraped + console / not scraped (medians): throughput ${(medians[1]!.rate / medians[0]!.rate).toFixed(3)}, broker CPU ${(medians[1]!.cpu / medians[0]!.cpu).toFixed(3)}`);
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
