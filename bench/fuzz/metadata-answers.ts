/**
 * `npm run bench:metadata-answers -- [--partitions 50000] [--per-topic 500] [--answers 20] [--broker] [--runs 1]`:
 * issue 15's all-topics Metadata, with and without the reused answers (metadata-response-cache.ts),
 * in one run.
 *
 * In process (always): a dispatcher over `--partitions` partitions in topics of `--per-topic`
 * (3 brokers, replication factor 3) answers `--answers` all-topics Metadata v8 requests in each
 * of four ways, interleaved: without the cache; with it, nothing changed (reused); with it, after
 * one topic was replaced (a leader change: that topic encoded, the others' bytes copied); with a
 * cold cache (every topic encoded on its own). Printed are the medians of the synchronous time
 * per answer (decode, build, encode) and the ratios without / with.
 *
 * `--broker`: then, for `--runs` rounds alternating the two settings, a broker process
 * (`metadata.response.cache.max.bytes` 0, then the default) gets the partitions (CreateTopics v4,
 * `--per-topic` per topic), and while a probe client sends a Metadata of no topics every 20 ms,
 * `--pipeliners` clients each pipeline `--pipelined` all-topics Metadata v8 and read the answers;
 * printed per setting: the probe's longest round trip, the time until every pipelined answer
 * arrived and the broker's peak RSS (sampled every 200 ms), and their medians' ratios off / on.
 * With `--slow-readers` the pipelining clients never read (issue 15's trial: memory is bounded by
 * queued.max.response.bytes); they are watched for `--hold` ms.
 */
import { readdirSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { Command } from 'commander';
import { createApiRegistry } from '../../host/api/api-handlers.js';
import type { BrokerServices } from '../../host/api/broker-services.js';
import type { TopicState } from '../../host/api/cluster-metadata.js';
import { MetadataResponseCache } from '../../host/api/metadata-response-cache.js';
import { RequestDispatcher } from '../../host/api/request-dispatcher.js';
import { createLogger } from '../../host/observability/logger.js';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { decodeCreateTopicsResponse, encodeCreateTopicsRequest } from '../../host/protocol/generated/create-topics.js';
import { decodeMetadataResponse, encodeMetadataRequest } from '../../host/protocol/generated/metadata.js';
import { encodeRequestHeader } from '../../host/protocol/headers.js';
import { Writer } from '../../host/protocol/writer.js';
import { BenchBroker, BENCH_HOST } from '../e2e/broker.js';
import { type BuildSnapshot, takeBuildSnapshot } from '../e2e/build-snapshot.js';
import { median, runBench } from './build-comparison.js';
import { Connection } from './well-behaved.js';

const PREFIX = 'meta-';
const PROBE_INTERVAL_MS = 20;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** An all-topics Metadata v8 request frame; with `sizePrefix` as sent on the wire. */
function allTopicsFrame(correlationId: number, sizePrefix: boolean): Buffer {
  const w = new Writer();
  const start = sizePrefix ? w.reserveInt32() : -1;
  encodeRequestHeader(w, { apiKey: ApiKey.Metadata, apiVersion: 8, correlationId, clientId: 'metadata-answers' });
  encodeMetadataRequest(w, 8, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
  if (sizePrefix) w.patchInt32(start, w.length - start - 4);
  return Buffer.from(w.toBuffer());
}

/** Synthetic topics: `partitions` in topics of `perTopic`, replicas [1,2,3] rotated, all in sync. */
function syntheticTopics(partitions: number, perTopic: number): TopicState[] {
  const topics: TopicState[] = [];
  for (let t = 0, made = 0; made < partitions; t++) {
    const count = Math.min(perTopic, partitions - made);
    const parts = Array.from({ length: count }, (_, p) => {
      const replicas = [1, 2, 3].map((_, i) => ((p + i) % 3) + 1);
      return { partition: p, leaderId: replicas[0]!, leaderEpoch: 1, partitionEpoch: 1, replicas, isr: replicas };
    });
    topics.push({ name: `${PREFIX}${String(t).padStart(5, '0')}`, topicId: t.toString(16).padStart(32, '0'), isInternal: false, partitions: parts, configs: new Map() });
    made += count;
  }
  return topics;
}

/** Medians of the synchronous ms per all-topics answer, ms. */
interface InProcessOutcome {
  /** Without the cache: built and encoded each time. */
  freshMs: number;
  /** With the cache, nothing changed: reused. */
  reusedMs: number;
  /** With the cache, cold (a new cache each time): every topic encoded on its own. */
  coldMs: number;
  /** With the cache, after one topic was replaced (a leader change): that topic encoded, the others copied. */
  oneChangedMs: number;
  bytes: number;
}

function inProcess(partitions: number, perTopic: number, answers: number): InProcessOutcome {
  let topics = syntheticTopics(partitions, perTopic);
  let generation = 1;
  const services = (cache: MetadataResponseCache | undefined): BrokerServices => ({
    config: { autoCreateTopicsEnable: false },
    metadata: { clusterId: 'AAAAAAAAAAAAAAAAAAAAAA', controllerId: 1, topics: () => topics, topic: (name: string) => topics.find((t) => t.name === name) },
    brokers: () => [1, 2, 3].map((nodeId) => ({ nodeId, host: '127.0.0.1', port: 9092 + nodeId, rack: null })),
    ...(cache === undefined ? {} : { metadataResponseCache: cache }),
  }) as unknown as BrokerServices;
  const logger = createLogger({ level: 'silent' });
  const newCache = (): MetadataResponseCache => new MetadataResponseCache({ maxBytes: 64 << 20, generation: () => generation });
  const dispatcher = (cache: MetadataResponseCache | undefined): RequestDispatcher => new RequestDispatcher({ registry: createApiRegistry(), broker: services(cache), logger });
  const cached = dispatcher(newCache());
  const fresh = dispatcher(undefined);
  const connection = { id: 1, peer: 'bench', listenerName: 'PLAINTEXT', closed: false, close: () => {} };
  let bytes = 0;
  const time = (target: RequestDispatcher, correlationId: number): number => {
    const startedMs = performance.now();
    const response = target.handle(allTopicsFrame(correlationId, false), connection);
    const elapsedMs = performance.now() - startedMs;
    if (response === null || response instanceof Promise) throw new Error('an all-topics Metadata is answered synchronously');
    bytes = Buffer.isBuffer(response) ? response.length : response.reduce((sum, part) => sum + part.length, 0);
    return elapsedMs;
  };
  /** One topic replaced by a copy with a new leader epoch, as the metadata cache does on a leader change. */
  const changeOneTopic = (i: number): void => {
    const index = i % topics.length;
    const old = topics[index]!;
    const changed = { ...old, partitions: old.partitions.map((p, n) => (n === 0 ? { ...p, leaderEpoch: p.leaderEpoch + 1 } : p)) };
    topics = topics.map((t, n) => (n === index ? changed : t));
    generation++;
  };
  time(cached, 0); // builds the reused answer; warms every path's code
  time(fresh, 0);
  time(dispatcher(newCache()), 0);
  const freshMs: number[] = [];
  const reusedMs: number[] = [];
  const coldMs: number[] = [];
  const oneChangedMs: number[] = [];
  for (let i = 1; i <= answers; i++) {
    freshMs.push(time(fresh, i));
    reusedMs.push(time(cached, i));
    coldMs.push(time(dispatcher(newCache()), i));
    changeOneTopic(i);
    oneChangedMs.push(time(cached, i));
  }
  return { freshMs: median(freshMs), reusedMs: median(reusedMs), coldMs: median(coldMs), oneChangedMs: median(oneChangedMs), bytes };
}

/** Reads `count` size-prefixed frames from `socket`, without keeping them; resolves when all arrived. */
function readFrames(socket: Socket, count: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let need = 4;
    let header = Buffer.alloc(0);
    let inFrame = false;
    let left = count;
    socket.on('data', (chunk: Buffer) => {
      let at = 0;
      while (at < chunk.length) {
        if (!inFrame) {
          const take = Math.min(need, chunk.length - at);
          header = Buffer.concat([header, chunk.subarray(at, at + take)]);
          at += take;
          need -= take;
          if (need === 0) {
            need = header.readInt32BE(0);
            header = Buffer.alloc(0);
            inFrame = true;
          }
        } else {
          const take = Math.min(need, chunk.length - at);
          at += take;
          need -= take;
          if (need === 0) {
            inFrame = false;
            need = 4;
            if (--left === 0) resolve();
          }
        }
      }
    });
    socket.once('error', reject);
    socket.once('close', () => (left > 0 ? reject(new Error(`the broker closed with ${left} answers missing`)) : undefined));
  });
}

interface BrokerOptions {
  partitions: number;
  perTopic: number;
  pipeliners: number;
  pipelined: number;
  /** The pipelining clients never read their sockets; their answers are not awaited. */
  slowReaders: boolean;
  /** How long the slow readers are watched, ms. */
  holdMs: number;
}

interface BrokerOutcome {
  probeMaxMs: number;
  /** Until every pipelined answer arrived (readers), or the hold time (slow readers). */
  allAnsweredMs: number;
  /** The broker's RSS before the pipelining and its peak meanwhile (sampled every 200 ms), bytes. */
  rssBefore: number;
  rssPeak: number;
}

/** CreateTopics of `partitions` in topics of `perTopic`, tolerating a slow answer (a loaded machine): asked again, TOPIC_ALREADY_EXISTS is success. */
async function createPartitions(port: number, partitions: number, perTopic: number): Promise<void> {
  let admin = await Connection.open(BENCH_HOST, port);
  for (let t = 0, created = 0; created < partitions; t++) {
    const count = Math.min(perTopic, partitions - created);
    for (;;) {
      try {
        const response = await admin.request(ApiKey.CreateTopics, 4, encodeCreateTopicsRequest, decodeCreateTopicsResponse, {
          topics: [{ name: `${PREFIX}${t}`, numPartitions: count, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 120_000, validateOnly: false,
        });
        const code = response.topics[0]!.errorCode;
        if (code !== 0 && code !== 36) throw new Error(`CreateTopics ${PREFIX}${t}: error ${code}`);
        break;
      } catch (error) {
        if (!String(error).includes('no answer')) throw error;
        admin.close();
        admin = await Connection.open(BENCH_HOST, port);
      }
    }
    created += count;
  }
  admin.close();
}

function openSocket(port: number): Promise<Socket> {
  return new Promise<Socket>((resolve, reject) => {
    const socket = connect({ host: BENCH_HOST, port });
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

async function brokerRun(snapshot: BuildSnapshot, label: string, overrides: Record<string, string | number>, options: BrokerOptions): Promise<BrokerOutcome> {
  const broker = await BenchBroker.start(snapshot, { overrides: { 'controller.mutation.rate': 0, ...overrides }, startTimeoutMs: 120_000 });
  try {
    await createPartitions(broker.port, options.partitions, options.perTopic);
    while (readdirSync(broker.logDir).filter((name) => name.startsWith(PREFIX)).length < options.partitions) {
      if (!broker.process.running) throw new Error(`the broker exited while creating partitions:\n${broker.process.outputTail()}`);
      await sleep(500);
    }
    await sleep(6_000); // the first housekeeping ticks after the creates
    const admin = await Connection.open(BENCH_HOST, broker.port);
    let probing = true;
    let probeMaxMs = 0;
    const probeLoop = (async () => {
      while (probing) {
        const sentMs = performance.now();
        await admin.request(ApiKey.Metadata, 8, encodeMetadataRequest, decodeMetadataResponse,
          { topics: [], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
        probeMaxMs = Math.max(probeMaxMs, performance.now() - sentMs);
        await sleep(PROBE_INTERVAL_MS);
      }
    })();
    await sleep(500);
    const rssBefore = broker.process.stats().rssBytes;
    let rssPeak = rssBefore;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        rssPeak = Math.max(rssPeak, broker.process.stats().rssBytes || 0);
        await sleep(200);
      }
    })();
    const startedMs = performance.now();
    const sockets = await Promise.all(Array.from({ length: options.pipeliners }, () => openSocket(broker.port)));
    const frames = Buffer.concat(Array.from({ length: options.pipelined }, (_, i) => allTopicsFrame(i + 1, true)));
    if (options.slowReaders) {
      for (const socket of sockets) {
        socket.pause();
        socket.on('error', () => {});
        socket.write(frames);
      }
      await sleep(options.holdMs);
    } else {
      await Promise.all(sockets.map((socket) => {
        const read = readFrames(socket, options.pipelined);
        socket.write(frames);
        return read;
      }));
    }
    const allAnsweredMs = performance.now() - startedMs;
    await sleep(500);
    probing = false;
    sampling = false;
    await probeLoop;
    await sampler;
    for (const socket of sockets) socket.destroy();
    admin.close();
    const what = options.slowReaders ? `${options.pipeliners} x ${options.pipelined} all-topics pipelined, never read, for ${options.holdMs} ms` :
      `${options.pipeliners} x ${options.pipelined} all-topics answers in ${allAnsweredMs.toFixed(0)} ms`;
    console.log(`  ${label}: probe max ${probeMaxMs.toFixed(0)} ms, ${what}, RSS ${mib(rssBefore)} -> peak ${mib(rssPeak)}`);
    return { probeMaxMs, allAnsweredMs, rssBefore, rssPeak };
  } finally {
    await broker.close();
  }
}

const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

async function main(): Promise<void> {
  const opts = new Command('metadata-answers')
    .option('--partitions <n>', 'partitions', '50000')
    .option('--per-topic <n>', 'partitions per topic', '500')
    .option('--answers <n>', 'in-process answers per setting', '20')
    .option('--broker', 'also measure broker processes (cache off, then on)')
    .option('--runs <n>', 'broker runs per setting, alternating', '1')
    .option('--pipeliners <n>', 'clients pipelining all-topics Metadata', '2')
    .option('--pipelined <n>', 'all-topics Metadata each of them pipelines', '20')
    .option('--slow-readers', 'the pipelining clients never read their sockets')
    .option('--hold <ms>', 'how long the slow readers are watched', '10000')
    .parse()
    .opts<{ partitions: string; perTopic: string; answers: string; broker?: boolean; runs: string; pipeliners: string; pipelined: string; slowReaders?: boolean; hold: string }>();
  const partitions = Number(opts.partitions);
  const perTopic = Number(opts.perTopic);
  const local = inProcess(partitions, perTopic, Number(opts.answers));
  console.log(`in process, ${partitions} partitions in topics of ${perTopic}, all-topics Metadata v8 (${(local.bytes / 2 ** 20).toFixed(1)} MiB), median of ${opts.answers}:`);
  const ratio = (ms: number): string => `${(local.freshMs / ms).toFixed(1)}x`;
  console.log(`  without the cache ${local.freshMs.toFixed(2)} ms; with it: reused ${local.reusedMs.toFixed(3)} ms (${ratio(local.reusedMs)}), ` +
    `after one topic changed ${local.oneChangedMs.toFixed(2)} ms (${ratio(local.oneChangedMs)}), cold ${local.coldMs.toFixed(2)} ms (${ratio(local.coldMs)})`);
  if (opts.broker !== true) return;
  const options: BrokerOptions = {
    partitions, perTopic, pipeliners: Number(opts.pipeliners), pipelined: Number(opts.pipelined), slowReaders: opts.slowReaders === true, holdMs: Number(opts.hold),
  };
  const snapshot = takeBuildSnapshot();
  const off: BrokerOutcome[] = [];
  const on: BrokerOutcome[] = [];
  try {
    for (let run = 0; run < Number(opts.runs); run++) {
      off.push(await brokerRun(snapshot, 'metadata.response.cache.max.bytes 0', { 'metadata.response.cache.max.bytes': 0 }, options));
      on.push(await brokerRun(snapshot, 'metadata.response.cache.max.bytes default', {}, options));
    }
  } finally {
    snapshot.remove();
  }
  const m = (outcomes: BrokerOutcome[], f: (o: BrokerOutcome) => number): number => median(outcomes.map(f));
  const line = (name: string, f: (o: BrokerOutcome) => number, unit: (v: number) => string): string =>
    `${name} ${unit(m(off, f))} -> ${unit(m(on, f))} (${(m(off, f) / Math.max(1, m(on, f))).toFixed(1)}x)`;
  const ms = (v: number): string => `${v.toFixed(0)} ms`;
  console.log(`broker, cache off -> on, median of ${opts.runs}: ${line('probe max', (o) => o.probeMaxMs, ms)}, ` +
    `${options.slowReaders ? '' : `${line('all answered', (o) => o.allAnsweredMs, ms)}, `}${line('peak RSS', (o) => o.rssPeak, mib)}`);
}

runBench(main);
