/**
 * `npm run bench -- metrics`: what the metrics counters (issue 14) add to one request of W1, in
 * nanoseconds, next to what the request itself takes, both measured in this run.
 *
 * Per request the dispatcher does `requestMetrics.inFlight++` before the handler and, when it
 * answers, `inFlight--` and `recordRequest(apiKey, durationMs)` (request-dispatcher.ts; the
 * duration is computed for the request trace with or without metrics). Per partition of the
 * request the Produce handler calls `topicMetrics.recordProduce` and the Fetch handler
 * `topicMetrics.recordFetch` (produce-api.ts, fetch-api.ts). W1's requests have one partition,
 * so a Produce request costs one of each: the rows below time exactly that sequence
 * (1,000 sequences per call, durations spread over the histogram's buckets) against an empty
 * call of the same shape, and the last row is the whole in-process Produce v7 request of
 * 1,000 × 100 B (produce.bench.ts's path: frame → dispatcher → handler → log, counters on).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BrokerTopicMetrics } from '../host/metrics/broker-topic-metrics.js';
import { RequestMetrics } from '../host/metrics/request-metrics.js';
import { buildPath, loadTree } from './produce.bench.js';
import { runBenchTable } from './run.js';

const SEQUENCES_PER_CALL = 1_000;
const PRODUCE_API_KEY = 0;
const FETCH_API_KEY = 1;

/** An empty function of the counters' shape (not inlined away: its result feeds a sink). */
function noop(apiKey: number, durationMs: number): number {
  return apiKey + durationMs;
}

export async function main(): Promise<void> {
  const topics = new BrokerTopicMetrics({ enabled: true, max: 500 });
  const requests = new RequestMetrics();
  // A few other topics already counted, as on a broker with traffic elsewhere.
  for (let i = 0; i < 50; i++) topics.recordProduce(`other-${i}`, 0, 1, 100);
  const topic = 'w1';
  // Request times spread over the buckets (0.2 ms to 40 ms), as a loaded broker sees them.
  const durations = Float64Array.from({ length: SEQUENCES_PER_CALL }, (_, i) => 0.2 * 1.005 ** i);
  let sink = 0;
  const rows = await runBenchTable(`metrics counters per W1 request (${SEQUENCES_PER_CALL} requests per call)`, [
    {
      name: 'baseline: empty call per request',
      operationsPerCall: SEQUENCES_PER_CALL,
      fn: () => { for (let i = 0; i < SEQUENCES_PER_CALL; i++) sink += noop(PRODUCE_API_KEY, durations[i]!); },
    },
    {
      name: 'Produce: inFlight±1, recordProduce, recordRequest',
      operationsPerCall: SEQUENCES_PER_CALL,
      fn: () => {
        for (let i = 0; i < SEQUENCES_PER_CALL; i++) {
          requests.inFlight++;
          topics.recordProduce(topic, 0, 1_000, 100_000 + 61);
          requests.inFlight--;
          requests.recordRequest(PRODUCE_API_KEY, durations[i]!);
        }
      },
    },
    {
      name: 'Fetch: inFlight±1, recordFetch, recordRequest',
      operationsPerCall: SEQUENCES_PER_CALL,
      fn: () => {
        for (let i = 0; i < SEQUENCES_PER_CALL; i++) {
          requests.inFlight++;
          topics.recordFetch(topic, 0, 1_048_576);
          requests.inFlight--;
          requests.recordRequest(FETCH_API_KEY, durations[i]!);
        }
      },
    },
  ], { rounds: 5 });
  // The whole request, counters on, in this run.
  const here = path.dirname(fileURLToPath(import.meta.url));
  const tree = await loadTree(path.resolve(here, '..'));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tributary-metrics-bench-'));
  try {
    const produce = buildPath(tree, dir, false, true);
    const [request] = await runBenchTable('Produce v7, 1,000 × 100 B, one partition: frame → dispatcher → log (counters on)', [
      { name: 'one Produce request', fn: () => produce.produce() },
    ], { rounds: 5 });
    const requestNs = request!.meanMs * 1e6;
    const baselineNs = rows[0]!.nsPerOperation!;
    for (const row of rows.slice(1)) {
      const addedNs = row.nsPerOperation! - baselineNs;
      console.log(`${row.name}: ${row.nsPerOperation!.toFixed(1)} ns, ${addedNs.toFixed(1)} ns over the empty call = ${((addedNs / requestNs) * 100).toFixed(4)}% of one Produce request (${(requestNs / 1000).toFixed(1)} µs)`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  if (sink === 42) console.log('');
}
