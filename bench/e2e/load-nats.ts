/**
 * NATS JetStream load with the `nats` client (nats.js 2.x), its fastest way from Node:
 * - produce: core publishes to the stream's subject with one reply inbox, so JetStream answers
 *   each with a PubAck on it; a window of unacknowledged publishes (what Go's PublishAsync and
 *   `nats bench --js` do). `js.publish()` (one request, promise and timer per message) is about
 *   10× slower on this client, which would flatter us. Every PubAck is checked for an error.
 * - consume: a pull consumer (ack policy none, deliver all) with `consume()` batches of 10,000.
 * - latency: the same publish path at a fixed rate, a pull consumer delivering new messages.
 */
import { AckPolicy, connect, createInbox, DeliverPolicy, StorageType, type NatsConnection } from 'nats';
import { LatencyRecorder, payload, paced, waitUntil, type LoadResult } from './load-common.js';

export interface NatsSpec {
  port: number;
  /** Every server of a cluster (the client may use any); default just `port`. */
  ports?: number[];
  /** The stream's num_replicas (R3 on a 3-server cluster); default 1. */
  replicas?: number;
  stream: string;
  records: number;
  size: number;
  /** Unacknowledged publishes in flight. */
  window?: number;
}

const ERROR_MARKER = Buffer.from('"error"');

async function open(spec: { port: number; ports?: number[] }): Promise<NatsConnection> {
  return connect({ servers: (spec.ports ?? [spec.port]).map((port) => `127.0.0.1:${port}`), maxReconnectAttempts: 0 });
}

/** Creates the stream; a cluster still electing its meta leader refuses for a while, so retry up to 30 s. */
async function ensureStream(connection: NatsConnection, stream: string, replicas = 1): Promise<void> {
  const deadline = performance.now() + 30_000;
  for (;;) {
    try {
      const manager = await connection.jetstreamManager();
      await manager.streams.add({ name: stream, subjects: [stream], storage: StorageType.File, num_replicas: replicas });
      return;
    } catch (error) {
      if (replicas === 1 || performance.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/** Publishes with PubAcks on one inbox; `acked()` counts them, `waitForAcks(n)` waits for n. */
function ackedPublisher(connection: NatsConnection, subject: string): {
  publish(value: Uint8Array): void;
  acked(): number;
  waitForAcks(count: number): Promise<void>;
} {
  const inbox = createInbox();
  let acked = 0;
  let failure: Error | undefined;
  let waiters: (() => void)[] = [];
  connection.subscribe(inbox, {
    callback: (error, message) => {
      acked++;
      if (error) failure ??= error;
      else if (Buffer.from(message.data.buffer, message.data.byteOffset, message.data.byteLength).includes(ERROR_MARKER)) failure ??= new Error(`JetStream refused a publish: ${message.string()}`);
      const wake = waiters;
      waiters = [];
      for (const resolve of wake) resolve();
    },
  });
  return {
    publish: (value) => connection.publish(subject, value, { reply: inbox }),
    acked: () => acked,
    waitForAcks: async (count) => {
      while (acked < count && failure === undefined) await new Promise<void>((resolve) => waiters.push(resolve));
      if (failure) throw failure;
    },
  };
}

export async function runNatsProduce(spec: NatsSpec): Promise<LoadResult> {
  const connection = await open(spec);
  await ensureStream(connection, spec.stream, spec.replicas);
  const publisher = ackedPublisher(connection, spec.stream);
  const value = payload(spec.size);
  const window = spec.window ?? 4096;
  const startedAtMs = performance.now();
  for (let i = 0; i < spec.records; i++) {
    if (i - publisher.acked() >= window) await publisher.waitForAcks(i - window + 1);
    publisher.publish(value);
  }
  await publisher.waitForAcks(spec.records);
  const elapsedMs = performance.now() - startedAtMs;
  await connection.close();
  return { records: spec.records, bytes: spec.records * spec.size, elapsedMs };
}

async function pullConsumer(connection: NatsConnection, stream: string, deliverPolicy: DeliverPolicy): ReturnType<ReturnType<NatsConnection['jetstream']>['consumers']['get']> {
  const manager = await connection.jetstreamManager();
  const name = `bench-${deliverPolicy}`;
  await manager.consumers.add(stream, { durable_name: name, ack_policy: AckPolicy.None, deliver_policy: deliverPolicy });
  return connection.jetstream().consumers.get(stream, name);
}

export async function runNatsConsume(spec: NatsSpec): Promise<LoadResult> {
  const connection = await open(spec);
  const consumer = await pullConsumer(connection, spec.stream, DeliverPolicy.All);
  const startedAtMs = performance.now();
  const messages = await consumer.consume({ max_messages: 10_000 });
  let records = 0;
  let bytes = 0;
  for await (const message of messages) {
    records++;
    bytes += message.data.length;
    if (records >= spec.records) break;
  }
  const elapsedMs = performance.now() - startedAtMs;
  await connection.close();
  return { records, bytes, elapsedMs };
}

export async function runNatsLatency(spec: NatsSpec & { ratePerSecond: number; seconds: number; warmupMs: number }): Promise<LoadResult> {
  const connection = await open(spec);
  await ensureStream(connection, spec.stream);
  const recorder = new LatencyRecorder(spec.warmupMs);
  const consumer = await pullConsumer(connection, spec.stream, DeliverPolicy.New);
  const messages = await consumer.consume({ max_messages: 1000 });
  const reading = (async () => {
    for await (const message of messages) recorder.record(message.data);
  })();
  const publisher = ackedPublisher(connection, spec.stream);
  const startedAtMs = performance.now();
  const sent = await paced(spec.ratePerSecond, spec.seconds, () => publisher.publish(LatencyRecorder.stamp(payload(spec.size))));
  await publisher.waitForAcks(sent);
  await waitUntil(() => recorder.received >= sent, 30_000, 'the consumer to see every record');
  const elapsedMs = performance.now() - startedAtMs;
  await messages.close();
  await reading;
  await connection.close();
  return { records: sent, bytes: sent * spec.size, elapsedMs, latencyMicros: recorder.percentiles() };
}
