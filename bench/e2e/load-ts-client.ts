/**
 * Load from Tributary's own TypeScript client (host/clients), loaded from the build snapshot the
 * broker runs from (so both sides are the same build). The client is typed here by the few
 * members the harness uses, because it is imported at run time from the snapshot's path.
 *
 * Also a kafkajs latency mode, the fallback for W4 while our Consumer does not exist.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Kafka, logLevel } from 'kafkajs';
import { LatencyRecorder, payload, paced, Window, waitUntil, type LoadResult } from './load-common.js';

export interface TsClientSpec {
  /** The snapshot's dist/ directory. */
  distRoot: string;
  bootstrap: string;
  topic: string;
  records: number;
  size: number;
  acks: -1 | 1;
  lingerMs: number;
  batchSize: number;
  /** A fixed partition; default: the client's partitioner (sticky for null keys). */
  partition?: number;
  /** Reach the broker through its WebSocket gateway at this URL instead of TCP. */
  gatewayUrl?: string;
}

/** `bootstrapServers` (and for the gateway a `transportFactory`) for a client's options. */
async function connectionOptions(spec: { distRoot: string; bootstrap: string; gatewayUrl?: string }): Promise<Record<string, unknown>> {
  if (spec.gatewayUrl === undefined) return { bootstrapServers: [spec.bootstrap] };
  const module = (await import(pathToFileURL(path.join(spec.distRoot, 'host/clients/transport/websocket-node-transport.js')).href)) as {
    viaNodeWebSocketGateway(url: string): Record<string, unknown>;
  };
  return module.viaNodeWebSocketGateway(spec.gatewayUrl);
}

interface ProducerLike {
  connect(): Promise<void>;
  partitionsFor(topic: string): Promise<unknown[]>;
  send(request: { topic: string; messages: { value: Uint8Array; partition?: number }[] }): Promise<unknown[]>;
  close(): Promise<void>;
}

type ProducerClass = new (options: Record<string, unknown>) => ProducerLike;

async function loadProducer(distRoot: string): Promise<ProducerClass> {
  const module = (await import(pathToFileURL(path.join(distRoot, 'host/clients/producer.js')).href)) as { Producer: ProducerClass };
  return module.Producer;
}

/** True when the snapshot has our Consumer. */
export function hasTsConsumer(distRoot: string): boolean {
  return existsSync(path.join(distRoot, 'host/clients/consumer.js'));
}

interface TopicPartition { topic: string; partition: number }

interface ConsumerLike {
  connect(): Promise<void>;
  assign(partitions: TopicPartition[]): void;
  seekToBeginning(partitions?: TopicPartition[]): Promise<void>;
  seekToEnd(partitions?: TopicPartition[]): Promise<void>;
  poll(timeoutMs?: number): Promise<{ value: Buffer | null }[]>;
  close(): Promise<void>;
}

type ConsumerClass = new (options: Record<string, unknown>) => ConsumerLike;

async function loadConsumer(distRoot: string): Promise<ConsumerClass> {
  const module = (await import(pathToFileURL(path.join(distRoot, 'host/clients/consumer.js')).href)) as { Consumer: ConsumerClass };
  return module.Consumer;
}

/**
 * Reads `records` records of partition 0 from the beginning with our Consumer (manual assign, no
 * group; max.poll.records 10,000, fetch.max.wait.ms 100). Timed from the first poll.
 */
export async function runTsConsume(spec: Pick<TsClientSpec, 'distRoot' | 'bootstrap' | 'topic' | 'records' | 'gatewayUrl'>): Promise<LoadResult> {
  const Consumer = await loadConsumer(spec.distRoot);
  const consumer = new Consumer({ ...(await connectionOptions(spec)), clientId: 'tributary-bench', maxPollRecords: 10_000, fetchMaxWaitMs: 100 });
  await consumer.connect();
  const partitions = [{ topic: spec.topic, partition: 0 }];
  consumer.assign(partitions);
  await consumer.seekToBeginning(partitions);
  let records = 0;
  let bytes = 0;
  const startedAtMs = performance.now();
  let idleSinceMs = performance.now();
  while (records < spec.records) {
    const polled = await consumer.poll(500);
    for (const record of polled) bytes += record.value?.length ?? 0;
    records += polled.length;
    if (polled.length > 0) idleSinceMs = performance.now();
    else if (performance.now() - idleSinceMs > 30_000) throw new Error(`no records for 30 s after ${records} of ${spec.records}`);
  }
  const elapsedMs = performance.now() - startedAtMs;
  await consumer.close();
  return { records, bytes, elapsedMs };
}

/**
 * W4 with our client: a Producer (acks as given, linger.ms 0, no idempotence) sending one record
 * per send() at the rate, and a Consumer assigned to partition 0 from its end (fetch.min.bytes 1,
 * fetch.max.wait.ms 100) in the same process.
 */
export async function runTsLatency(spec: Pick<TsClientSpec, 'distRoot' | 'bootstrap' | 'topic' | 'size' | 'acks'> & { ratePerSecond: number; seconds: number; warmupMs: number }): Promise<LoadResult> {
  const Producer = await loadProducer(spec.distRoot);
  const Consumer = await loadConsumer(spec.distRoot);
  const producer = new Producer({ bootstrapServers: [spec.bootstrap], acks: spec.acks, enableIdempotence: false, lingerMs: 0, clientId: 'tributary-bench' });
  await producer.connect();
  await producer.partitionsFor(spec.topic);
  const consumer = new Consumer({ bootstrapServers: [spec.bootstrap], clientId: 'tributary-bench', fetchMinBytes: 1, fetchMaxWaitMs: 100, maxPollRecords: 10_000 });
  await consumer.connect();
  const partitions = [{ topic: spec.topic, partition: 0 }];
  consumer.assign(partitions);
  await consumer.seekToEnd(partitions);
  const recorder = new LatencyRecorder(spec.warmupMs);
  let stopping = false;
  const reading = (async () => {
    while (!stopping) {
      for (const record of await consumer.poll(100)) if (record.value !== null) recorder.record(record.value);
    }
  })();
  // The consumer's first fetch positions it at the end before records flow.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const window = new Window(16_384);
  const startedAtMs = performance.now();
  const sent = await paced(spec.ratePerSecond, spec.seconds, () => {
    window.track(producer.send({ topic: spec.topic, messages: [{ value: LatencyRecorder.stamp(payload(spec.size)), partition: 0 }] }));
  });
  await window.drain();
  await waitUntil(() => recorder.received >= sent, 30_000, 'the consumer to see every record');
  const elapsedMs = performance.now() - startedAtMs;
  stopping = true;
  await reading;
  await consumer.close();
  await producer.close();
  return { records: sent, bytes: sent * spec.size, elapsedMs, latencyMicros: recorder.percentiles() };
}

/** Sends `records` values with a window of in-flight send() calls of 1,000 records each. */
export async function runTsProduce(spec: TsClientSpec): Promise<LoadResult> {
  const Producer = await loadProducer(spec.distRoot);
  const producer = new Producer({
    ...(await connectionOptions(spec)), acks: spec.acks, enableIdempotence: false,
    lingerMs: spec.lingerMs, batchSize: spec.batchSize, clientId: 'tributary-bench',
  });
  await producer.connect();
  await producer.partitionsFor(spec.topic);
  const value = payload(spec.size);
  const chunk = 1000;
  const window = new Window(32);
  const startedAtMs = performance.now();
  for (let sent = 0; sent < spec.records; sent += chunk) {
    const count = Math.min(chunk, spec.records - sent);
    const messages = Array.from({ length: count }, () => (spec.partition === undefined ? { value } : { value, partition: spec.partition }));
    await window.acquire();
    window.track(producer.send({ topic: spec.topic, messages }));
  }
  await window.drain();
  const elapsedMs = performance.now() - startedAtMs;
  await producer.close();
  return { records: spec.records, bytes: spec.records * spec.size, elapsedMs };
}

/**
 * W4 with kafkajs 2.2.4 (producer acks=1, no batching beyond what one send() holds; consumer
 * in a group, minBytes 1, maxWait 100 ms): records are sent one per send() at the rate.
 */
export async function runKafkajsLatency(spec: Omit<TsClientSpec, 'distRoot' | 'records' | 'lingerMs' | 'batchSize'> & { ratePerSecond: number; seconds: number; warmupMs: number }): Promise<LoadResult> {
  const kafka = new Kafka({ clientId: 'tributary-bench', brokers: [spec.bootstrap], logLevel: logLevel.NOTHING });
  const producer = kafka.producer({ allowAutoTopicCreation: true });
  const consumer = kafka.consumer({ groupId: `bench-${spec.topic}`, minBytes: 1, maxWaitTimeInMs: 100, sessionTimeout: 30_000 });
  await producer.connect();
  await producer.send({ topic: spec.topic, acks: spec.acks, messages: [{ value: Buffer.alloc(spec.size) }] });
  await consumer.connect();
  await consumer.subscribe({ topics: [spec.topic], fromBeginning: false });
  const recorder = new LatencyRecorder(spec.warmupMs);
  let assigned = false;
  consumer.on(consumer.events.GROUP_JOIN, () => { assigned = true; });
  await consumer.run({
    eachBatch: async ({ batch }) => {
      for (const message of batch.messages) if (message.value && message.value.length === spec.size) recorder.record(message.value);
    },
  });
  await waitUntil(() => assigned, 60_000, 'the kafkajs consumer to join its group');
  await new Promise((resolve) => setTimeout(resolve, 500));
  const window = new Window(4096);
  const startedAtMs = performance.now();
  const sent = await paced(spec.ratePerSecond, spec.seconds, () => {
    window.track(producer.send({ topic: spec.topic, acks: spec.acks, messages: [{ value: LatencyRecorder.stamp(payload(spec.size)) }] }));
  });
  await window.drain();
  await waitUntil(() => recorder.received >= sent, 30_000, 'the consumer to see every record');
  const elapsedMs = performance.now() - startedAtMs;
  await consumer.disconnect();
  await producer.disconnect();
  return { records: sent, bytes: sent * spec.size, elapsedMs, latencyMicros: recorder.percentiles(), note: 'kafkajs 2.2.4 producer and consumer (our Consumer not in this build)' };
}

/** Creates `topic` with `partitions` partitions through our Admin (W6's 10,000 partitions on disk). */
export async function runTsCreateTopic(spec: { distRoot: string; bootstrap: string; topic: string; partitions: number; timeoutMs: number }): Promise<LoadResult> {
  const module = (await import(pathToFileURL(path.join(spec.distRoot, 'host/clients/admin.js')).href)) as {
    Admin: new (options: Record<string, unknown>) => {
      connect(): Promise<void>;
      createTopics(options: { topics: { topic: string; numPartitions: number; replicationFactor: number }[]; timeoutMs?: number }): Promise<void>;
      close(): Promise<void>;
    };
  };
  const admin = new module.Admin({ bootstrapServers: [spec.bootstrap], clientId: 'tributary-bench', requestTimeoutMs: spec.timeoutMs });
  await admin.connect();
  const startedAtMs = performance.now();
  await admin.createTopics({ topics: [{ topic: spec.topic, numPartitions: spec.partitions, replicationFactor: 1 }], timeoutMs: spec.timeoutMs });
  const elapsedMs = performance.now() - startedAtMs;
  await admin.close();
  return { records: 0, bytes: 0, elapsedMs };
}
