/**
 * Redis Streams load with ioredis: pipelined XADD (a window of pipelines of `pipeline` commands
 * each), XREAD COUNT in a loop from the start, and a latency mode with a blocking XREAD on a
 * second connection.
 */
import { Redis } from 'ioredis';
import { LatencyRecorder, payload, paced, Window, waitUntil, type LoadResult } from './load-common.js';

export interface RedisSpec {
  port: number;
  key: string;
  records: number;
  size: number;
  /** XADDs per pipeline. */
  pipeline?: number;
  /** Pipelines in flight. */
  window?: number;
}

function open(spec: { port: number }): Redis {
  return new Redis({ host: '127.0.0.1', port: spec.port, maxRetriesPerRequest: 0, lazyConnect: false });
}

export async function runRedisProduce(spec: RedisSpec): Promise<LoadResult> {
  const redis = open(spec);
  await redis.ping();
  const value = payload(spec.size);
  const perPipeline = spec.pipeline ?? 1000;
  const window = new Window(spec.window ?? 8);
  const startedAtMs = performance.now();
  for (let sent = 0; sent < spec.records; sent += perPipeline) {
    await window.acquire();
    const pipeline = redis.pipeline();
    for (let i = sent; i < Math.min(spec.records, sent + perPipeline); i++) pipeline.xadd(spec.key, '*', 'v', value);
    window.track(pipeline.exec().then((results) => {
      const failed = results?.find(([error]) => error !== null);
      if (failed) throw failed[0];
    }));
  }
  await window.drain();
  const elapsedMs = performance.now() - startedAtMs;
  redis.disconnect();
  return { records: spec.records, bytes: spec.records * spec.size, elapsedMs };
}

type StreamReply = [Buffer, [Buffer, Buffer[]][]][] | null;

export async function runRedisConsume(spec: RedisSpec): Promise<LoadResult> {
  const redis = open(spec);
  await redis.ping();
  let lastId = '0-0';
  let records = 0;
  let bytes = 0;
  const startedAtMs = performance.now();
  while (records < spec.records) {
    const reply = (await redis.xreadBuffer('COUNT', 10_000, 'STREAMS', spec.key, lastId)) as StreamReply;
    const entries = reply?.[0]?.[1] ?? [];
    if (entries.length === 0) throw new Error(`stream ${spec.key} ended after ${records} of ${spec.records} records`);
    for (const [, fields] of entries) {
      records++;
      bytes += fields[1]!.length;
    }
    lastId = entries[entries.length - 1]![0].toString();
  }
  const elapsedMs = performance.now() - startedAtMs;
  redis.disconnect();
  return { records, bytes, elapsedMs };
}

export async function runRedisLatency(spec: RedisSpec & { ratePerSecond: number; seconds: number; warmupMs: number }): Promise<LoadResult> {
  const producer = open(spec);
  const consumer = open(spec);
  await Promise.all([producer.ping(), consumer.ping()]);
  const recorder = new LatencyRecorder(spec.warmupMs);
  let stopping = false;
  const reading = (async () => {
    let lastId = '$';
    while (!stopping) {
      const reply = (await consumer.xreadBuffer('COUNT', 10_000, 'BLOCK', 100, 'STREAMS', spec.key, lastId)) as StreamReply;
      const entries = reply?.[0]?.[1] ?? [];
      for (const [, fields] of entries) recorder.record(fields[1]!);
      if (entries.length > 0) lastId = entries[entries.length - 1]![0].toString();
    }
  })();
  // Let the blocking XREAD with '$' start before the first XADD.
  await new Promise((resolve) => setTimeout(resolve, 50));
  const window = new Window(spec.window ?? 4096);
  const startedAtMs = performance.now();
  const sent = await paced(spec.ratePerSecond, spec.seconds, () => {
    window.track(producer.xadd(spec.key, '*', 'v', LatencyRecorder.stamp(payload(spec.size))));
  });
  await window.drain();
  await waitUntil(() => recorder.received >= sent, 30_000, 'the consumer to see every record');
  const elapsedMs = performance.now() - startedAtMs;
  stopping = true;
  await reading;
  producer.disconnect();
  consumer.disconnect();
  return { records: sent, bytes: sent * spec.size, elapsedMs, latencyMicros: recorder.percentiles() };
}
