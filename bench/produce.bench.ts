/**
 * The in-process produce path of W1 (bench/README.md) without sockets: one Produce v7 request of
 * 1,000 records × 100 B (one uncompressed batch, no keys, one partition, acks=1) handed as frame
 * bytes to the RequestDispatcher → Produce handler → ReplicaManager → Partition (with its
 * ProducerStateManager, as the broker wires it) → UnifiedLog.appendAsLeader → page cache.
 *
 * Two shapes of batch: non-idempotent (producerId -1, what kcat sends by default) and idempotent
 * (producerId 7, sequences advancing by 1,000 per request, as our Producer and Java's send).
 * The frames lie in the core's frame arena, where the socket layer gathers Produce frames, so
 * the core validates and stamps them in place as in the broker.
 *
 * A/B in one run: with PRODUCE_BENCH_BASELINE=<dist directory of another build> (e.g. a
 * `git worktree` of the previous commit, built with `npx tsc -p tsconfig.json`, its build/ holding
 * the wasm), the same path is built from both trees in this process and measured in interleaved
 * rounds, then in paired blocks (pairedRatio); the ratio is baseline time ÷ this build's time
 * (> 1 = this build is faster). Without it,
 * the floor (the core's prepareAppend of the same batch) is the baseline row.
 *
 * The metrics counters (issue 14: BrokerTopicMetrics, RequestMetrics) are on, as in the broker;
 * a paired A/B of the same build without them prints what they cost.
 *
 * Logs live in os.tmpdir() and wrap (truncate to 0, producer state reset) every WRAP_REQUESTS
 * requests so disk use stays bounded; the wrap is the same for both trees.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ApiRegistry as ApiRegistryType } from '../host/api/api-registry.js';
import type { BrokerServices } from '../host/api/broker-services.js';
import type { ConnectionContext } from '../host/network/network-types.js';
import { runBenchTable, type BenchTask } from './run.js';

const RECORDS_PER_REQUEST = 1000;
const VALUE_BYTES = 100;
const PRODUCE_VERSION = 7;
const PRODUCER_ID = 7;
/** Idempotent frames prepared per tree (sequence k × 1,000); the cycle restarts at sequence 0. */
const WRAP_REQUESTS = 64;
const TOPIC = 'w1';
/** Paired A/B: block pairs, and requests per block. */
const PAIRS = 60;
const CALLS_PER_BLOCK = 64;

/** One tree's modules, loaded from its dist directory. */
export interface Tree {
  api: { ApiRegistry: typeof ApiRegistryType };
  produce: typeof import('../host/api/produce-api.js');
  dispatcher: typeof import('../host/api/request-dispatcher.js');
  logger: typeof import('../host/observability/logger.js');
  replica: typeof import('../host/replication/replica-manager.js');
  unifiedLog: typeof import('../host/log/unified-log.js');
  logConfig: typeof import('../host/log/log-config.js');
  storage: typeof import('../host/log/storage-context.js');
  producerState: typeof import('../host/log/producer-state-manager.js');
  disk: typeof import('../host/io/disk.js');
  builder: typeof import('../host/record/batch-builder.js');
  produceCodec: typeof import('../host/protocol/generated/produce.js');
  headers: typeof import('../host/protocol/headers.js');
  writer: typeof import('../host/protocol/writer.js');
  /** The request path's metrics counters (issue 14); absent in builds before them. */
  metrics: {
    topic: typeof import('../host/metrics/broker-topic-metrics.js');
    request: typeof import('../host/metrics/request-metrics.js');
  } | null;
}

export async function loadTree(distRoot: string): Promise<Tree> {
  const load = <T>(relative: string): Promise<T> => import(pathToFileURL(path.join(distRoot, relative)).href) as Promise<T>;
  return {
    api: await load('host/api/api-registry.js'),
    produce: await load('host/api/produce-api.js'),
    dispatcher: await load('host/api/request-dispatcher.js'),
    logger: await load('host/observability/logger.js'),
    replica: await load('host/replication/replica-manager.js'),
    unifiedLog: await load('host/log/unified-log.js'),
    logConfig: await load('host/log/log-config.js'),
    storage: await load('host/log/storage-context.js'),
    producerState: await load('host/log/producer-state-manager.js'),
    disk: await load('host/io/disk.js'),
    builder: await load('host/record/batch-builder.js'),
    produceCodec: await load('host/protocol/generated/produce.js'),
    headers: await load('host/protocol/headers.js'),
    writer: await load('host/protocol/writer.js'),
    metrics: await Promise.all([load('host/metrics/broker-topic-metrics.js'), load('host/metrics/request-metrics.js')]).then(
      ([topic, request]) => ({ topic, request }) as NonNullable<Tree['metrics']>,
      () => null,
    ),
  };
}

const connection: ConnectionContext = {
  id: 1, peer: '127.0.0.1:1', listenerName: 'PLAINTEXT', closed: false,
  close() { throw new Error('the benchmark request was refused'); },
} as ConnectionContext;

/** A Produce v7 frame (request header + body, no size prefix) and where its records start. */
function produceFrame(tree: Tree, baseSequence: number): { frame: Buffer; recordsAt: number } {
  const value = Buffer.alloc(VALUE_BYTES, 'x');
  const records = tree.builder.buildRecordBatch({
    records: Array.from({ length: RECORDS_PER_REQUEST }, (_, i) => ({ value, timestamp: 1_700_000_000_000 + i })),
    ...(baseSequence >= 0 ? { producerId: PRODUCER_ID, producerEpoch: 0, baseSequence } : {}),
  });
  const w = new tree.writer.Writer();
  tree.headers.encodeRequestHeader(w, { apiKey: 0, apiVersion: PRODUCE_VERSION, correlationId: 1, clientId: 'bench' });
  tree.produceCodec.encodeProduceRequest(w, PRODUCE_VERSION, {
    transactionalId: null, acks: 1, timeoutMs: 30_000,
    topicData: [{ name: TOPIC, partitionData: [{ index: 0, records }] }],
  });
  const frame = Buffer.from(w.toBuffer());
  // The records are the request's last field (one topic, one partition).
  return { frame, recordsAt: frame.length - records.length };
}

export interface ProducePath {
  /** Sends the next request through the dispatcher; throws unless it was appended and answered. */
  produce(): Promise<void>;
}

/**
 * Builds the broker's produce path from `tree` over a fresh log in `dir`, counting into the
 * metrics counters as the broker does (when the tree has them and `withMetrics`).
 */
export function buildPath(tree: Tree, dir: string, idempotent: boolean, withMetrics = true): ProducePath {
  const context = tree.storage.createStorageContext();
  const config = { ...tree.logConfig.defaultLogConfig, segmentBytes: 256 * 1024 * 1024, retentionMs: -1 };
  const logDir = path.join(dir, `${TOPIC}-0`);
  const log = tree.unifiedLog.UnifiedLog.open({ dir: logDir, topic: TOPIC, partition: 0, config, context });
  const producerState = new tree.producerState.ProducerStateManager({ dir: logDir, disk: new tree.disk.NodeDisk() });
  const replicaManager = new tree.replica.ReplicaManager({ localBrokerId: 0 });
  replicaManager.becomeLeader({ topic: TOPIC, partition: 0, log, leaderEpoch: 0, producerState });
  const registry = new tree.api.ApiRegistry();
  registry.register(tree.produce.produceApi);
  const metrics = withMetrics && tree.metrics !== null
    ? { topicMetrics: new tree.metrics.topic.BrokerTopicMetrics({ enabled: true, max: 500 }), requestMetrics: new tree.metrics.request.RequestMetrics() }
    : {};
  const broker = { metadata: { topic: () => ({}) }, replicaManager, ...metrics } as unknown as BrokerServices;
  const logger = tree.logger.createLogger({ level: 'silent' });
  const dispatcher = new tree.dispatcher.RequestDispatcher({ registry, broker, logger, ...metrics });
  // Frames copied once into the core's frame arena and kept there (never released).
  const frames = Array.from({ length: idempotent ? WRAP_REQUESTS : 1 }, (_, k) => {
    const { frame } = produceFrame(tree, idempotent ? k * RECORDS_PER_REQUEST : -1);
    const block = context.core.frameArena.allocate(frame.length);
    if (block === null) throw new Error('frame arena full');
    frame.copy(block);
    return block;
  });
  let next = 0;
  return {
    async produce() {
      if (next === frames.length) {
        next = 0;
        if (idempotent) producerState.truncateFullyAndStartAt(log.logEndOffset);
      }
      if (next === 0 && log.size > 128 * 1024 * 1024) {
        log.truncateTo(0);
        producerState.truncateFullyAndStartAt(0);
      }
      const logEndOffset = log.logEndOffset;
      const response = await dispatcher.handle(frames[next++]!, connection);
      if (response === null) throw new Error('no response');
      if (log.logEndOffset !== logEndOffset + RECORDS_PER_REQUEST) throw new Error('the request was not appended');
    },
  };
}

/**
 * Paired A/B on a shared, busy machine: blocks of `callsPerBlock` requests alternate between the
 * two paths (ABBA order, so neither always runs first); each adjacent pair gives the ratio
 * baseline ÷ this build of their median request times, and the median of those ratios is kept
 * with its quartiles. Load that drifts over seconds hits both halves of a pair alike.
 */
async function pairedRatio(baseline: ProducePath, current: ProducePath, pairs: number, callsPerBlock: number): Promise<{ median: number; q1: number; q3: number }> {
  const times = new Float64Array(callsPerBlock);
  /** Median time of one request in a block: a preempted request moves it little. */
  const block = async (path: ProducePath): Promise<number> => {
    for (let i = 0; i < callsPerBlock; i++) {
      const started = performance.now();
      await path.produce();
      times[i] = performance.now() - started;
    }
    return times.sort()[callsPerBlock >> 1]!;
  };
  for (let i = 0; i < 3; i++) { await block(baseline); await block(current); } // warm-up
  const ratios: number[] = [];
  for (let pair = 0; pair < pairs; pair++) {
    const baselineFirst = pair % 2 === 0;
    const first = await block(baselineFirst ? baseline : current);
    const second = await block(baselineFirst ? current : baseline);
    ratios.push(baselineFirst ? first / second : second / first);
  }
  ratios.sort((x, y) => x - y);
  const at = (q: number): number => ratios[Math.min(ratios.length - 1, Math.floor(q * ratios.length))]!;
  return { median: at(0.5), q1: at(0.25), q3: at(0.75) };
}

export async function main(): Promise<void> {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const current = await loadTree(path.resolve(here, '..'));
  const baselineRoot = process.env.PRODUCE_BENCH_BASELINE;
  const baseline = baselineRoot ? await loadTree(path.resolve(baselineRoot)) : null;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tributary-produce-bench-'));
  try {
    const requestBytes = produceFrame(current, -1).frame.length;
    for (const idempotent of [false, true]) {
      const shape = idempotent ? 'idempotent' : 'non-idempotent';
      const tasks: BenchTask[] = [];
      if (baseline !== null) {
        const before = buildPath(baseline, path.join(dir, `base-${shape}`), idempotent);
        tasks.push({ name: `baseline (${baselineRoot})`, bytesPerCall: requestBytes, fn: () => before.produce() });
      } else {
        const core = current.storage.createStorageContext().core;
        const { frame, recordsAt } = produceFrame(current, idempotent ? 0 : -1);
        const records = frame.subarray(recordsAt);
        tasks.push({ name: 'floor: core.prepareAppend', bytesPerCall: requestBytes, fn: () => { core.prepareAppend(records, 0, 0, -1); } });
      }
      const after = buildPath(current, path.join(dir, `this-${shape}`), idempotent);
      tasks.push({ name: 'this build', bytesPerCall: requestBytes, fn: () => after.produce() });
      await runBenchTable(`Produce v7, ${RECORDS_PER_REQUEST} × ${VALUE_BYTES} B, ${shape}: frame → dispatcher → log`, tasks, { rounds: 7 });
      if (baseline !== null) {
        const before = buildPath(baseline, path.join(dir, `paired-base-${shape}`), idempotent);
        const now = buildPath(current, path.join(dir, `paired-this-${shape}`), idempotent);
        const { median, q1, q3 } = await pairedRatio(before, now, PAIRS, CALLS_PER_BLOCK);
        console.log(`paired A/B (${PAIRS} pairs of ${CALLS_PER_BLOCK}-request blocks, ABBA): baseline ÷ this build = ${median.toFixed(3)} (quartiles ${q1.toFixed(3)}–${q3.toFixed(3)})`);
      }
      if (current.metrics !== null) {
        // What the metrics counters cost this path: the same build without them, paired.
        const without = buildPath(current, path.join(dir, `paired-nometrics-${shape}`), idempotent, false);
        const withCounters = buildPath(current, path.join(dir, `paired-metrics-${shape}`), idempotent, true);
        const { median, q1, q3 } = await pairedRatio(without, withCounters, PAIRS, CALLS_PER_BLOCK);
        console.log(`metrics counters (${PAIRS} ABBA pairs of ${CALLS_PER_BLOCK}-request blocks): time without ÷ time with = ${median.toFixed(3)} (quartiles ${q1.toFixed(3)}–${q3.toFixed(3)}; 1 = no cost)`);
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
