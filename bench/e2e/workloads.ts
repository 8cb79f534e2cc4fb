/**
 * Workloads W1–W6 (issue 5), in the style of the OpenMessaging Benchmark: one topic, stated
 * partitions, producers, consumers, record size, acks and durability. Every run starts a fresh
 * server with an empty data directory, so each run's CPU seconds and peak RSS are its own.
 *
 * | id | what                                                                    |
 * | W1 | 1,000,000 × 100 B, 1 partition, acks=1, batching on; produce, then read all from the start |
 * | W2 | 100,000 × 1 KiB, otherwise as W1                                        |
 * | W3 | 1,000,000 × 100 B over 8 partitions, 2 producers, a consumer group of 2 consuming live |
 * | W4 | 5,000 records/s of 100 B for 20 s with a live consumer: end-to-end latency |
 * | W5 | W1 with acks=all and fsync before ack (flush.messages=1)                |
 * | W6 | start-up: process start → first Metadata answer, idle RSS; again with 10,000 partitions on disk |
 * `--quick` divides record counts by 10, runs W4 for 5 s and W6 with 1,000 partitions.
 */
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BenchBroker } from './broker.js';
import type { BuildSnapshot } from './build-snapshot.js';
import { runChild, runLoad, startLoadServer } from './child-run.js';
import { kcatConsume, kcatProduce, type PayloadFiles } from './kcat.js';
import { payload, type LoadResult } from './load-common.js';
import { hasTsConsumer } from './load-ts-client.js';
import type { Results, Sample, SystemName } from './measurement.js';
import { PeerServer } from './peers.js';
import { readProcStats } from './proc-stats.js';
import type { ServerProcess } from './server-process.js';

export const WORKLOAD_IDS = ['W1', 'W2', 'W3', 'W4', 'W5', 'W6'] as const;
export type WorkloadId = typeof WORKLOAD_IDS[number];

export interface SuiteContext {
  snapshot: BuildSnapshot;
  results: Results;
  payloads: PayloadFiles;
  runs: number;
  quick: boolean;
  /** Which generators/peers are available and wanted. */
  kcat: boolean;
  tsClient: boolean;
  /** Our client through the WebSocket gateway. */
  tsWebSocket: boolean;
  /** The pre-encoded replay generator (load-raw.ts): the broker's ceiling without a client's cost. */
  replay: boolean;
  nats: boolean;
  redis: boolean;
  progress(message: string): void;
}

export const DURABILITY = {
  tributaryAcks1: 'acks=1; page cache (no fsync before ack)',
  tributaryFsync: 'acks=all; fsync before ack (flush.messages=1)',
  nats: 'JetStream file store; page cache (2.9: no fsync before ack)',
  redisEverysec: 'AOF appendfsync everysec (fsync once a second)',
  redisAlways: 'AOF appendfsync always (fsync before reply)',
  memory: 'none (memory only)',
  pageCache: 'page cache (no fsync)',
  fsyncPerMiB: 'fdatasync after every 1 MiB',
} as const;

/** librdkafka's batching, made explicit: linger.ms=5, up to 10,000 records per batch. */
const KCAT_BATCHING = { lingerMs: 5, batchMessages: 10_000 };
/** Our client's batching for throughput runs: linger.ms=5, batch.size 256 KiB. */
const TS_BATCHING = { lingerMs: 5, batchSize: 262_144 };
const LOAD_TIMEOUT_MS = 300_000;
/** XADDs per pipeline for both Redis generators. */
const REDIS_PIPELINE = 1000;

interface ThroughputShape {
  workload: WorkloadId;
  records: number;
  size: number;
  acks: 1 | -1;
  fsync: boolean;
}

function shape(context: SuiteContext, workload: WorkloadId): ThroughputShape {
  const scale = context.quick ? 0.1 : 1;
  switch (workload) {
    case 'W2': return { workload, records: 100_000 * scale, size: 1024, acks: 1, fsync: false };
    case 'W5': return { workload, records: 1_000_000 * scale, size: 100, acks: -1, fsync: true };
    default: return { workload, records: 1_000_000 * scale, size: 100, acks: 1, fsync: false };
  }
}

function rates(result: LoadResult): Sample {
  const seconds = result.elapsedMs / 1000;
  return { recordsPerSecond: result.records / seconds, megabytesPerSecond: result.bytes / seconds / 1e6 };
}

/** CPU seconds of `server` spent while `phase` runs. */
async function measured<T>(server: ServerProcess, phase: () => Promise<T>): Promise<{ value: T; cpuSeconds: number }> {
  const before = server.stats().cpuSeconds;
  const value = await phase();
  return { value, cpuSeconds: server.stats().cpuSeconds - before };
}

function brokerOverrides(shapeOf: { fsync: boolean }, extra: Record<string, string | number> = {}): Record<string, string | number> {
  return shapeOf.fsync ? { 'log.flush.interval.messages': 1, ...extra } : { ...extra };
}

/** Asks for the topic's metadata with kcat, which makes the broker auto-create it (num.partitions). */
async function createTopicWithKcat(bootstrap: string, topic: string): Promise<void> {
  const outcome = await runChild('kcat', ['-L', '-b', bootstrap, '-t', topic], { timeoutMs: 30_000 });
  if (outcome.code !== 0) throw new Error(`kcat -L -t ${topic} failed:\n${outcome.stderr}`);
}

function expectAll(result: LoadResult, expected: number, what: string): void {
  if (result.records !== expected) throw new Error(`${what}: ${result.records} records instead of ${expected}`);
}

// ---------------------------------------------------------------------------------------------
// W1, W2, W5: produce everything, then read everything from the start.

type TributaryGenerator = 'kcat' | 'ts-client' | 'ts-client over WebSocket' | typeof REPLAY_GENERATOR;

/**
 * The broker's ceiling without a client's cost (bench/e2e/load-raw.ts): one pre-encoded Produce
 * request replayed with 5 in flight, and raw Fetch requests that only walk batch headers.
 */
const REPLAY_GENERATOR = 'pre-encoded replay (broker ceiling, not a client)';
/** Replay: records per Produce request (~1 MB for 1 KiB records, ~100 KB for 100 B) and in flight. */
const REPLAY_BATCHING = { batchRecords: 1_000, inFlight: 5 };
/** Replay reader: bytes per partition per Fetch (max.partition.fetch.bytes raised to 8 MiB, as a throughput-tuned consumer would; one fetch in flight leaves the wire idle during each round trip). */
const REPLAY_FETCH_BYTES = 8_388_608;

async function tributaryThroughput(context: SuiteContext, s: ThroughputShape, generator: TributaryGenerator, run: number): Promise<void> {
  const durability = s.fsync ? DURABILITY.tributaryFsync : DURABILITY.tributaryAcks1;
  const overWebSocket = generator === 'ts-client over WebSocket';
  const broker = await BenchBroker.start(context.snapshot, { overrides: brokerOverrides(s), http: overWebSocket });
  const gateway = overWebSocket ? { gatewayUrl: broker.gatewayUrl } : {};
  try {
    const topic = `${s.workload.toLowerCase()}-${generator.replace(/\W+/g, '-')}-${run}`;
    const distRoot = path.join(context.snapshot.root, 'dist');
    const replay = generator === REPLAY_GENERATOR;
    if (context.kcat) await createTopicWithKcat(broker.bootstrap, topic);
    else if (replay) await runLoad('ts-create-topic', { distRoot, bootstrap: broker.bootstrap, topic, partitions: 1, timeoutMs: 60_000 }, 60_000);
    context.progress(`${s.workload} run ${run}: tributary ${generator} produce ${s.records} × ${s.size} B`);
    const produced = await measured(broker.process, () => generator === 'kcat'
      ? kcatProduce({ bootstrap: broker.bootstrap, topic, file: context.payloads.file(s.records, s.size), records: s.records, size: s.size, acks: s.acks, partition: 0, ...KCAT_BATCHING, timeoutMs: LOAD_TIMEOUT_MS })
      : replay
        ? runLoad('raw-produce', { distRoot, bootstrap: broker.bootstrap, topic, records: s.records, size: s.size, acks: s.acks, ...REPLAY_BATCHING }, LOAD_TIMEOUT_MS)
        : runLoad('ts-produce', { distRoot, bootstrap: broker.bootstrap, ...gateway, topic, records: s.records, size: s.size, acks: s.acks, partition: 0, ...TS_BATCHING }, LOAD_TIMEOUT_MS));
    const produceSample: Sample = { ...rates(produced.value), serverCpuSeconds: produced.cpuSeconds };
    let consumeSample: Sample | undefined;
    const tsConsumer = generator !== 'kcat' && !replay && hasTsConsumer(distRoot);
    if (tsConsumer || replay || context.kcat) {
      const reader = tsConsumer || replay ? generator : 'kcat';
      context.progress(`${s.workload} run ${run}: tributary ${reader} consume ${s.records} records from the start`);
      const consumed = await measured(broker.process, () => (tsConsumer
        ? runLoad('ts-consume', { distRoot, bootstrap: broker.bootstrap, ...gateway, topic, records: s.records }, LOAD_TIMEOUT_MS)
        : replay
          ? runLoad('raw-consume', { bootstrap: broker.bootstrap, topic, records: s.records, size: s.size, partitionMaxBytes: REPLAY_FETCH_BYTES }, LOAD_TIMEOUT_MS)
          : kcatConsume({ bootstrap: broker.bootstrap, topic, records: s.records, size: s.size, timeoutMs: LOAD_TIMEOUT_MS })));
      expectAll(consumed.value, s.records, `${s.workload} ${reader} consume after ${generator} produce`);
      consumeSample = { ...rates(consumed.value), serverCpuSeconds: consumed.cpuSeconds };
    }
    const peak = broker.process.stats().peakRssBytes;
    produceSample.serverPeakRssBytes = peak;
    const bytes = s.records * s.size;
    context.results.row({ workload: s.workload, system: 'tributary', generator, phase: 'produce', durability, bytes }).samples.push(produceSample);
    if (consumeSample && (generator === 'kcat' || replay || tsConsumer)) {
      consumeSample.serverPeakRssBytes = peak;
      context.results.row({ workload: s.workload, system: 'tributary', generator, phase: 'consume', durability, bytes }).samples.push(consumeSample);
    }
  } finally {
    await broker.close();
  }
}

async function natsThroughput(context: SuiteContext, s: ThroughputShape, run: number): Promise<void> {
  const server = await PeerServer.startNats();
  try {
    const spec = { port: server.port, stream: `${s.workload}R${run}`, records: s.records, size: s.size };
    context.progress(`${s.workload} run ${run}: NATS JetStream produce`);
    const produced = await measured(server.process, () => runLoad('nats-produce', spec, LOAD_TIMEOUT_MS));
    context.progress(`${s.workload} run ${run}: NATS JetStream consume`);
    const consumed = await measured(server.process, () => runLoad('nats-consume', spec, LOAD_TIMEOUT_MS));
    expectAll(consumed.value, s.records, `${s.workload} NATS consume`);
    const peak = server.process.stats().peakRssBytes;
    const key = { workload: s.workload, system: 'nats-jetstream' as SystemName, generator: 'nats.js pipelined publish + PubAcks', durability: DURABILITY.nats, bytes: s.records * s.size };
    context.results.row({ ...key, phase: 'produce' }).samples.push({ ...rates(produced.value), serverCpuSeconds: produced.cpuSeconds, serverPeakRssBytes: peak });
    context.results.row({ ...key, generator: 'nats.js pull consumer', phase: 'consume' }).samples.push({ ...rates(consumed.value), serverCpuSeconds: consumed.cpuSeconds, serverPeakRssBytes: peak });
  } finally {
    await server.close();
  }
}

/**
 * Redis Streams: redis-benchmark (Redis's own C load generator, pipelined XADD, one connection)
 * and ioredis (pipelined XADD from Node) each produce into a fresh server; ioredis reads the
 * redis-benchmark stream back with XREAD COUNT 10000.
 */
async function redisThroughput(context: SuiteContext, s: ThroughputShape, run: number): Promise<void> {
  const appendfsync = s.fsync ? 'always' : 'everysec';
  const key = { workload: s.workload, system: 'redis-streams' as SystemName, durability: s.fsync ? DURABILITY.redisAlways : DURABILITY.redisEverysec, bytes: s.records * s.size };
  let server = await PeerServer.startRedis(appendfsync);
  try {
    const streamKey = `${s.workload}-${run}`;
    context.progress(`${s.workload} run ${run}: Redis Streams produce (redis-benchmark)`);
    const value = payload(s.size).toString('latin1');
    const produced = await measured(server.process, () => runChild('redis-benchmark', [
      '-h', '127.0.0.1', '-p', String(server.port), '-c', '1', '-P', String(REDIS_PIPELINE), '-n', String(s.records), '-q',
      'XADD', streamKey, '*', 'v', value,
    ], { timeoutMs: LOAD_TIMEOUT_MS }));
    if (produced.value.code !== 0) throw new Error(`redis-benchmark failed:\n${produced.value.stderr}`);
    context.progress(`${s.workload} run ${run}: Redis Streams consume`);
    const consumed = await measured(server.process, () => runLoad('redis-consume', { port: server.port, key: streamKey, records: s.records, size: s.size }, LOAD_TIMEOUT_MS));
    expectAll(consumed.value, s.records, `${s.workload} Redis consume`);
    const peak = server.process.stats().peakRssBytes;
    context.results.row({ ...key, generator: `redis-benchmark -c 1 -P ${REDIS_PIPELINE} XADD`, phase: 'produce' }).samples.push({
      ...rates({ records: s.records, bytes: s.records * s.size, elapsedMs: produced.value.elapsedMs }), serverCpuSeconds: produced.cpuSeconds, serverPeakRssBytes: peak,
    });
    context.results.row({ ...key, generator: 'ioredis XREAD COUNT 10000', phase: 'consume' }).samples.push({ ...rates(consumed.value), serverCpuSeconds: consumed.cpuSeconds, serverPeakRssBytes: peak });
    await server.close();
    server = await PeerServer.startRedis(appendfsync);
    context.progress(`${s.workload} run ${run}: Redis Streams produce (ioredis)`);
    const fromNode = await measured(server.process, () => runLoad('redis-produce', { port: server.port, key: streamKey, records: s.records, size: s.size, pipeline: REDIS_PIPELINE }, LOAD_TIMEOUT_MS));
    context.results.row({ ...key, generator: `ioredis pipelined XADD (${REDIS_PIPELINE} per pipeline)`, phase: 'produce' }).samples.push({
      ...rates(fromNode.value), serverCpuSeconds: fromNode.cpuSeconds, serverPeakRssBytes: server.process.stats().peakRssBytes,
    });
  } finally {
    await server.close();
  }
}

/** Loopback TCP: the same byte count through one socket pair between two Node processes. */
async function tcpBaseline(context: SuiteContext, workload: WorkloadId, bytes: number): Promise<void> {
  const sink = await startLoadServer('tcp-sink', { bytes });
  try {
    const result = await runLoad('tcp-send', { port: sink.info['port'], bytes, chunkBytes: 65_536 }, LOAD_TIMEOUT_MS);
    context.results.row({ workload, system: 'baseline', generator: 'loopback TCP (node:net, 1 socket pair, 64 KiB writes)', phase: 'transfer', durability: DURABILITY.memory, bytes })
      .samples.push({ megabytesPerSecond: result.bytes / (result.elapsedMs / 1000) / 1e6 });
  } finally {
    sink.kill();
    await sink.done;
  }
}

/** Raw sequential writes of the same bytes to a file on the broker's file system (tmpdir). */
function fsBaseline(context: SuiteContext, workload: WorkloadId, bytes: number, fsync: boolean): void {
  const directory = mkdtempSync(path.join(tmpdir(), 'tributary-bench-fs-'));
  const chunk = Buffer.alloc(1 << 20, 0x62);
  try {
    const fd = openSync(path.join(directory, 'baseline.log'), 'w');
    const startedAtMs = performance.now();
    for (let written = 0; written < bytes; written += chunk.length) {
      writeSync(fd, chunk, 0, Math.min(chunk.length, bytes - written));
      if (fsync) fdatasyncSync(fd);
    }
    const elapsedMs = performance.now() - startedAtMs;
    closeSync(fd);
    context.results.row({ workload, system: 'baseline', generator: 'fs.writeSync 1 MiB sequential', phase: 'write', durability: fsync ? DURABILITY.fsyncPerMiB : DURABILITY.pageCache, bytes })
      .samples.push({ megabytesPerSecond: bytes / (elapsedMs / 1000) / 1e6 });
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

async function throughputWorkload(context: SuiteContext, workload: WorkloadId): Promise<void> {
  const s = shape(context, workload);
  if (workload === 'W5' && context.nats) context.results.notes.push('W5: NATS JetStream skipped: nats-server 2.9 cannot fsync before the ack (sync_interval: always arrived in 2.10), so no equivalent row exists.');
  for (let run = 1; run <= context.runs; run++) {
    context.progress(`${workload} run ${run}/${context.runs}: baselines`);
    await tcpBaseline(context, workload, s.records * s.size);
    fsBaseline(context, workload, s.records * s.size, s.fsync);
    if (context.kcat) await tributaryThroughput(context, s, 'kcat', run);
    if (context.tsClient) await tributaryThroughput(context, s, 'ts-client', run);
    if (context.tsWebSocket) await tributaryThroughput(context, s, 'ts-client over WebSocket', run);
    if (context.replay) await tributaryThroughput(context, s, REPLAY_GENERATOR, run);
    if (context.nats && workload !== 'W5') await natsThroughput(context, s, run);
    if (context.redis) await redisThroughput(context, s, run);
  }
}

// ---------------------------------------------------------------------------------------------
// W3: 8 partitions, 2 producers, a consumer group of 2 consuming while the producers run.

function latestAssignment(stderr: string): number {
  const lines = stderr.split('\n').filter((line) => /assigned:/.test(line));
  const last = lines[lines.length - 1];
  return last === undefined ? -1 : (last.match(/\[\d+\]/g) ?? []).length;
}

async function w3(context: SuiteContext): Promise<void> {
  if (!context.kcat) {
    context.results.notes.push('W3: skipped: it needs kcat (2 producers and a consumer group of 2).');
    return;
  }
  const records = context.quick ? 100_000 : 1_000_000;
  const size = 100;
  const perProducer = records / 2;
  for (let run = 1; run <= context.runs; run++) {
    const broker = await BenchBroker.start(context.snapshot, { overrides: { 'num.partitions': 8 } });
    const stopConsumers = new AbortController();
    try {
      const topic = `w3-${run}`;
      await createTopicWithKcat(broker.bootstrap, topic);
      context.progress(`W3 run ${run}/${context.runs}: a group of 2 kcat consumers joins`);
      let consumedRecords = 0;
      let consumedAtMs = Number.NaN;
      const stderrOf = ['', ''];
      const consumers = [0, 1].map((index) => runChild('kcat', ['-b', broker.bootstrap, '-G', `w3-group-${run}`, '-u', '-X', 'auto.offset.reset=earliest', topic], {
        timeoutMs: LOAD_TIMEOUT_MS,
        abort: stopConsumers.signal,
        onStderr: (text) => { stderrOf[index] += text; },
        onStdout: (chunk) => {
          for (let at = chunk.indexOf(0x0a); at >= 0; at = chunk.indexOf(0x0a, at + 1)) consumedRecords++;
          if (consumedRecords >= records && Number.isNaN(consumedAtMs)) consumedAtMs = performance.now();
        },
      }));
      const joinDeadline = performance.now() + 60_000;
      while (!(latestAssignment(stderrOf[0]!) > 0 && latestAssignment(stderrOf[1]!) > 0 && latestAssignment(stderrOf[0]!) + latestAssignment(stderrOf[1]!) === 8)) {
        if (performance.now() > joinDeadline) throw new Error(`W3: the consumer group did not settle on 8 partitions:\n${stderrOf.join('\n---\n')}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      context.progress(`W3 run ${run}/${context.runs}: 2 kcat producers × ${perProducer} records, group consuming live`);
      const file = context.payloads.file(perProducer, size, 'half');
      const cpuBefore = broker.process.stats().cpuSeconds;
      const startedAtMs = performance.now();
      await Promise.all([0, 1].map(() => kcatProduce({ bootstrap: broker.bootstrap, topic, file, records: perProducer, size, acks: 1, ...KCAT_BATCHING, timeoutMs: LOAD_TIMEOUT_MS })));
      const producedAtMs = performance.now();
      const cpuProduced = broker.process.stats().cpuSeconds;
      const deadline = performance.now() + 120_000;
      while (consumedRecords < records) {
        if (performance.now() > deadline) throw new Error(`W3: the group consumed ${consumedRecords} of ${records} records`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const cpuConsumed = broker.process.stats().cpuSeconds;
      const peak = broker.process.stats().peakRssBytes;
      const key = { workload: 'W3', system: 'tributary' as SystemName, durability: DURABILITY.tributaryAcks1, bytes: records * size };
      const produceSeconds = (producedAtMs - startedAtMs) / 1000;
      const consumeSeconds = (consumedAtMs - startedAtMs) / 1000;
      context.results.row({ ...key, generator: '2 × kcat -P (librdkafka partitioner)', phase: 'produce' }).samples.push({
        recordsPerSecond: records / produceSeconds, megabytesPerSecond: (records * size) / produceSeconds / 1e6, serverCpuSeconds: cpuProduced - cpuBefore, serverPeakRssBytes: peak,
      });
      context.results.row({ ...key, generator: 'kcat -G group of 2, live', phase: 'end-to-end' }).samples.push({
        recordsPerSecond: records / consumeSeconds, megabytesPerSecond: (records * size) / consumeSeconds / 1e6, serverCpuSeconds: cpuConsumed - cpuBefore, serverPeakRssBytes: peak,
      });
      if (consumedRecords > records) context.results.row({ ...key, generator: 'kcat -G group of 2, live', phase: 'end-to-end' }).notes.push(`run ${run}: ${consumedRecords - records} records delivered twice (rebalance)`);
    } finally {
      stopConsumers.abort();
      await broker.close();
    }
  }
}

// ---------------------------------------------------------------------------------------------
// W4: latency at a fixed rate with a live consumer.

async function w4(context: SuiteContext): Promise<void> {
  const seconds = context.quick ? 5 : 20;
  const spec = { ratePerSecond: 5_000, seconds, size: 100, warmupMs: 1_000 };
  const latencySample = (result: LoadResult, cpuSeconds: number, peak: number): Sample => {
    const latency = result.latencyMicros!;
    return {
      recordsPerSecond: result.records / (result.elapsedMs / 1000),
      latencyMs: { p50: latency.p50 / 1000, p99: latency.p99 / 1000, p999: latency.p999 / 1000, max: latency.max / 1000 },
      serverCpuSeconds: cpuSeconds, serverPeakRssBytes: peak,
    };
  };
  for (let run = 1; run <= context.runs; run++) {
    if (context.tsClient) {
      const broker = await BenchBroker.start(context.snapshot);
      try {
        const topic = `w4-${run}`;
        context.progress(`W4 run ${run}/${context.runs}: tributary, 5,000 records/s for ${seconds} s`);
        await createTopicWithKcat(broker.bootstrap, topic);
        const ours = hasTsConsumer(path.join(context.snapshot.root, 'dist'));
        const result = await measured(broker.process, () => (ours
          ? runLoad('ts-latency', { distRoot: path.join(context.snapshot.root, 'dist'), bootstrap: broker.bootstrap, topic, acks: 1, ...spec }, LOAD_TIMEOUT_MS)
          : runLoad('kafkajs-latency', { bootstrap: broker.bootstrap, topic, acks: 1, ...spec }, LOAD_TIMEOUT_MS)));
        const generator = ours ? 'ts-client producer (linger.ms 0) + consumer (assign)' : 'kafkajs producer + group consumer';
        const row = context.results.row({ workload: 'W4', system: 'tributary', generator, phase: 'end-to-end', durability: DURABILITY.tributaryAcks1 });
        row.samples.push(latencySample(result.value, result.cpuSeconds, broker.process.stats().peakRssBytes));
        if (result.value.note && !row.notes.includes(result.value.note)) row.notes.push(result.value.note);
      } finally {
        await broker.close();
      }
    }
    if (context.nats) {
      const server = await PeerServer.startNats();
      try {
        context.progress(`W4 run ${run}/${context.runs}: NATS JetStream latency`);
        const result = await measured(server.process, () => runLoad('nats-latency', { port: server.port, stream: `W4R${run}`, records: 0, ...spec }, LOAD_TIMEOUT_MS));
        context.results.row({ workload: 'W4', system: 'nats-jetstream', generator: 'nats.js publish + pull consumer', phase: 'end-to-end', durability: DURABILITY.nats })
          .samples.push(latencySample(result.value, result.cpuSeconds, server.process.stats().peakRssBytes));
      } finally {
        await server.close();
      }
    }
    if (context.redis) {
      const server = await PeerServer.startRedis('everysec');
      try {
        context.progress(`W4 run ${run}/${context.runs}: Redis Streams latency`);
        const result = await measured(server.process, () => runLoad('redis-latency', { port: server.port, key: `w4-${run}`, records: 0, ...spec }, LOAD_TIMEOUT_MS));
        context.results.row({ workload: 'W4', system: 'redis-streams', generator: 'ioredis XADD + XREAD BLOCK', phase: 'end-to-end', durability: DURABILITY.redisEverysec })
          .samples.push(latencySample(result.value, result.cpuSeconds, server.process.stats().peakRssBytes));
      } finally {
        await server.close();
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// W6: start-up time and idle memory, empty and with many partitions on disk.

const IDLE_SETTLE_MS = 1_000;

/** Clean stops of a broker with many partitions take long; a forced stop would make the next start a recovery. */
const W6_STOP_GRACE_MS = 600_000;

async function startAndIdle(context: SuiteContext, logDir: string | undefined, stops?: string[]): Promise<Sample> {
  const broker = await BenchBroker.start(context.snapshot, logDir === undefined ? {} : { logDir, startTimeoutMs: 300_000 });
  try {
    await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_MS));
    const stats = broker.process.stats();
    return { readyMs: broker.readyMs, idleRssBytes: stats.rssBytes, serverCpuSeconds: stats.cpuSeconds, serverPeakRssBytes: stats.peakRssBytes };
  } finally {
    if (logDir === undefined) {
      await broker.close();
    } else {
      const stopped = await broker.stop(W6_STOP_GRACE_MS);
      stops?.push(`${Math.round(stopped.elapsedMs)} ms${stopped.forced ? ' (killed)' : ''}`);
    }
  }
}

async function w6(context: SuiteContext): Promise<void> {
  const partitions = context.quick ? 1_000 : 10_000;
  for (let run = 1; run <= context.runs; run++) {
    context.progress(`W6 run ${run}/${context.runs}: start-up, empty`);
    const outcome = await runChild(process.execPath, ['-e', '0'], { timeoutMs: 30_000 });
    context.results.row({ workload: 'W6', system: 'baseline', generator: 'node -e 0 (process start → exit)', phase: 'start-up', durability: DURABILITY.memory })
      .samples.push({ readyMs: outcome.elapsedMs, idleRssBytes: Number.NaN });
    context.results.row({ workload: 'W6', system: 'tributary', generator: 'Metadata v1 probe', phase: 'start-up, empty', durability: DURABILITY.tributaryAcks1 })
      .samples.push(await startAndIdle(context, undefined));
  }
  const logDir = mkdtempSync(path.join(tmpdir(), 'tributary-bench-w6-'));
  try {
    context.progress(`W6: creating ${partitions} partitions through our Admin`);
    const broker = await BenchBroker.start(context.snapshot, { logDir });
    let createdMs: number;
    try {
      createdMs = (await runLoad('ts-create-topic', { distRoot: path.join(context.snapshot.root, 'dist'), bootstrap: broker.bootstrap, topic: 'w6-many', partitions, timeoutMs: 900_000 }, 900_000)).elapsedMs;
    } finally {
      const stopped = await broker.stop(W6_STOP_GRACE_MS);
      if (stopped.forced) throw new Error(`W6: the broker with ${partitions} partitions did not stop cleanly within ${W6_STOP_GRACE_MS} ms`);
    }
    const row = context.results.row({ workload: 'W6', system: 'tributary', generator: 'Metadata v1 probe', phase: `start-up, ${partitions} partitions`, durability: DURABILITY.tributaryAcks1 });
    row.notes.push(`CreateTopics of ${partitions} partitions took ${Math.round(createdMs)} ms`);
    const stops: string[] = [];
    for (let run = 1; run <= context.runs; run++) {
      context.progress(`W6 run ${run}/${context.runs}: start-up with ${partitions} partitions on disk`);
      row.samples.push(await startAndIdle(context, logDir, stops));
    }
    row.notes.push(`clean stops (SIGTERM → exit) took ${stops.join(', ')}`);
  } finally {
    rmSync(logDir, { recursive: true, force: true });
  }
}

/** Runs one workload, appending its rows to `context.results`. */
export async function runWorkload(context: SuiteContext, workload: WorkloadId): Promise<void> {
  switch (workload) {
    case 'W3': return w3(context);
    case 'W4': return w4(context);
    case 'W6': return w6(context);
    default: return throughputWorkload(context, workload);
  }
}

/** The CPU seconds of this harness process, for the report's footer. */
export function harnessCpuSeconds(): number {
  return readProcStats(process.pid).cpuSeconds;
}
