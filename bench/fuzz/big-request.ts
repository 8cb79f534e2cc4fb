/**
 * `npm run bench:big-request`: issue 15's partition-count request, measured. A broker process
 * (default configs) and the well-behaved client of the fuzz campaign (Produce acks=all + Fetch
 * read-back every 5 ms); a second client then sends
 *   1. CreateTopics of 2^15 and 2^16 partitions and CreatePartitions to 2^16 (the issue's stall:
 *      refused before any work with POLICY_VIOLATION, naming controller.max.records.per.user.op);
 *   2. CreateTopics of `--partitions` partitions (default 9999: the most one request may create
 *      under the default controller.max.records.per.user.op of 10000 records), accepted and
 *      applied to storage in slices, timed until its last partition directory exists.
 * Printed: each answer (code and message), the well-behaved p50/p99/max before, during the refused
 * requests and while the large topic is created, the p99 ratios, and the broker's RSS before,
 * at its peak and after (sampled every 200 ms from /proc).
 */
import { readdirSync } from 'node:fs';
import { Command } from 'commander';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { decodeCreatePartitionsResponse, encodeCreatePartitionsRequest } from '../../host/protocol/generated/create-partitions.js';
import { decodeCreateTopicsResponse, encodeCreateTopicsRequest } from '../../host/protocol/generated/create-topics.js';
import { BenchBroker, BENCH_HOST } from '../e2e/broker.js';
import { takeBuildSnapshot } from '../e2e/build-snapshot.js';
import { summarizeLatencies, type LatencySummary } from './campaign.js';
import { Connection, WellBehavedClient } from './well-behaved.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
const line = (name: string, s: LatencySummary): string =>
  `  ${name}: p50 ${s.p50.toFixed(2)} ms, p99 ${s.p99.toFixed(2)} ms, max ${s.max.toFixed(2)} ms (${s.count} requests)`;

async function createTopic(connection: Connection, name: string, numPartitions: number): Promise<string> {
  const startedAtMs = performance.now();
  const response = await connection.request(ApiKey.CreateTopics, 4, encodeCreateTopicsRequest, decodeCreateTopicsResponse, {
    topics: [{ name, numPartitions, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 60_000, validateOnly: false,
  });
  const topic = response.topics[0]!;
  return `CreateTopics ${name} x${numPartitions}: error ${topic.errorCode} "${topic.errorMessage ?? ''}" in ${(performance.now() - startedAtMs).toFixed(1)} ms`;
}

async function main(): Promise<void> {
  const options = new Command('big-request')
    .option('--partitions <n>', 'partitions of the accepted large topic', '9999')
    .option('--window <ms>', 'length of the baseline window', '10000')
    .parse()
    .opts<{ partitions: string; window: string }>();
  const snapshot = takeBuildSnapshot();
  const broker = await BenchBroker.start(snapshot);
  let peakRss = 0;
  const rssTimer = setInterval(() => {
    peakRss = Math.max(peakRss, broker.process.stats().rssBytes || 0);
  }, 200);
  try {
    const client = await WellBehavedClient.start(BENCH_HOST, broker.port, 'well-behaved-client-topic', 5);
    await sleep(2000);
    const rssBefore = broker.process.stats().rssBytes;
    client.phase = 'base';
    await sleep(Number(options.window));
    const admin = await Connection.open(BENCH_HOST, broker.port);
    client.phase = 'refused';
    const answers: string[] = [];
    answers.push(await createTopic(admin, 'huge-15', 2 ** 15));
    answers.push(await createTopic(admin, 'huge-16', 2 ** 16));
    answers.push(await createTopic(admin, 'grow', 1));
    const grown = await admin.request(ApiKey.CreatePartitions, 1, encodeCreatePartitionsRequest, decodeCreatePartitionsResponse, {
      topics: [{ name: 'grow', count: 2 ** 16, assignments: null }], timeoutMs: 60_000, validateOnly: false,
    });
    answers.push(`CreatePartitions grow to ${2 ** 16}: error ${grown.results[0]!.errorCode} "${grown.results[0]!.errorMessage ?? ''}"`);
    await sleep(2000);
    client.phase = 'sliced';
    const partitions = Number(options.partitions);
    const createdAtMs = performance.now();
    answers.push(await createTopic(admin, 'large', partitions));
    let directories = 0;
    while (directories < partitions && performance.now() - createdAtMs < 600_000) {
      await sleep(200);
      directories = readdirSync(broker.logDir).filter((name) => name.startsWith('large-')).length;
    }
    const appliedMs = performance.now() - createdAtMs;
    client.phase = 'idle';
    await client.stop();
    const rssAfter = broker.process.stats().rssBytes;
    const readBack = await client.readBack();
    client.close();
    admin.close();
    const [base, refused, sliced] = ['base', 'refused', 'sliced'].map((phase) => summarizeLatencies(client.latencies[phase] ?? []));
    process.stdout.write([
      'big request bench (issue 15), default broker configs',
      ...answers.map((answer) => `  ${answer}`),
      `  ${directories} of ${partitions} partition directories created ${(appliedMs / 1000).toFixed(1)} s after the request`,
      line('well-behaved before', base!),
      line('well-behaved during the refused requests', refused!),
      line('well-behaved while the large topic is created', sliced!),
      `  p99 ratio refused / before: ${(refused!.p99 / base!.p99).toFixed(2)}; sliced / before: ${(sliced!.p99 / base!.p99).toFixed(2)}`,
      `  well-behaved failures: ${client.failures.length}; acknowledged ${readBack.acknowledged}, lost ${readBack.lost}, changed ${readBack.changed}`,
      `  broker RSS: ${mib(rssBefore)} before, peak ${mib(peakRss)}, ${mib(rssAfter)} after`,
    ].join('\n') + '\n');
  } finally {
    clearInterval(rssTimer);
    await broker.close();
    snapshot.remove();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exit(1);
});
