import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admin } from '../../host/clients/admin.js';
import { Producer, type ProducerOptions } from '../../host/clients/producer.js';
import { ClientClosedError } from '../../host/clients/errors.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { startTestBroker, type TestBroker } from './broker-harness.js';
import { readPartition } from './read-partition.js';
import { FaultInjector } from './fault-transport.js';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';

let broker: TestBroker;
let admin: Admin;
const producers: Producer[] = [];

beforeAll(async () => {
  broker = await startTestBroker();
  admin = new Admin({ bootstrapServers: [broker.bootstrap] });
});

afterAll(async () => {
  for (const producer of producers) await producer.close().catch(() => undefined);
  await admin?.close();
  await broker?.stop();
});

function producer(options: Partial<ProducerOptions> = {}): Producer {
  const p = new Producer({ bootstrapServers: [broker.bootstrap], ...options });
  producers.push(p);
  return p;
}

describe('Producer against an in-process broker', () => {
  it('sends records and reports their topic, partition, offset and timestamp', async () => {
    await admin.createTopics({ topics: [{ topic: 'p-basic', numPartitions: 1 }] });
    const p = producer();
    const metadata = await p.send({ topic: 'p-basic', messages: [
      { key: 'k1', value: 'v1', timestamp: 1_700_000_000_000 },
      { key: 'k2', value: 'v2', headers: { h: 'x' }, timestamp: 1_700_000_000_001 },
    ] });
    expect(metadata).toEqual([
      { topic: 'p-basic', partition: 0, offset: 0, timestamp: 1_700_000_000_000 },
      { topic: 'p-basic', partition: 0, offset: 1, timestamp: 1_700_000_000_001 },
    ]);
    const batches = await readPartition(broker.bootstrap, 'p-basic', 0);
    const records = batches.flatMap((b) => b.records);
    expect(records.map((r) => [r.key?.toString(), r.value?.toString()])).toEqual([['k1', 'v1'], ['k2', 'v2']]);
    expect(records[1]!.headers).toEqual([{ key: 'h', value: Buffer.from('x') }]);
    expect(batches[0]!.header.producerId).toBe(p.producerIdAndEpoch.producerId);
    expect(batches[0]!.header.producerId).toBeGreaterThanOrEqual(0);
  });

  it('batches records sent together into one batch per partition', async () => {
    await admin.createTopics({ topics: [{ topic: 'p-batching', numPartitions: 1 }] });
    const p = producer({ lingerMs: 50 });
    await p.send({ topic: 'p-batching', messages: Array.from({ length: 100 }, (_, i) => ({ value: `m${i}` })) });
    const batches = await readPartition(broker.bootstrap, 'p-batching', 0);
    expect(batches).toHaveLength(1);
    expect(batches[0]!.records).toHaveLength(100);
  });

  it('partitions keyed records with murmur2 and explicit partitions win', async () => {
    await admin.createTopics({ topics: [{ topic: 'p-keys', numPartitions: 3 }] });
    const p = producer();
    const metadata = await p.send({ topic: 'p-keys', messages: [
      { key: '21', value: 'a' }, { key: 'a-little-bit-long-string', value: 'b' }, { key: '21', value: 'c', partition: 1 },
    ] });
    expect(metadata.map((m) => m.partition)).toEqual([0, 2, 1]);
  });

  it.each(['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const)('compresses batches with %s', async (codec) => {
    const topic = `p-codec-${codec}`;
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] });
    const p = producer({ compression: codec });
    await p.send({ topic, messages: Array.from({ length: 20 }, (_, i) => ({ key: `k${i}`, value: 'x'.repeat(100) + i })) });
    const batches = await readPartition(broker.bootstrap, topic, 0);
    expect(batches.every((b) => b.header.compression === ['none', 'gzip', 'snappy', 'lz4', 'zstd'].indexOf(codec))).toBe(true);
    expect(batches.flatMap((b) => b.records).map((r) => r.value!.toString())).toEqual(Array.from({ length: 20 }, (_, i) => 'x'.repeat(100) + i));
  });

  it('produces with acks=0 and acks=1 without idempotence', async () => {
    await admin.createTopics({ topics: [{ topic: 'p-acks', numPartitions: 1 }] });
    const fireAndForget = producer({ acks: 0 });
    const [zero] = await fireAndForget.send({ topic: 'p-acks', messages: [{ value: 'zero' }] });
    expect(zero!.offset).toBe(-1);
    await fireAndForget.flush();
    const leaderOnly = producer({ acks: 1 });
    const [one] = await leaderOnly.send({ topic: 'p-acks', messages: [{ value: 'one' }] });
    expect(one!.offset).toBe(1);
    const batches = await readPartition(broker.bootstrap, 'p-acks', 0);
    expect(batches.map((b) => b.header.producerId)).toEqual([-1, -1]);
  });

  it('auto-creates a topic on first send', async () => {
    const p = producer();
    const [meta] = await p.send({ topic: 'p-auto-created', messages: [{ value: 'hello' }] });
    expect(meta!.offset).toBe(0);
  });

  it('rejects a record larger than max.request.size with MESSAGE_TOO_LARGE', async () => {
    const p = producer({ maxRequestSize: 1000 });
    await expect(p.send({ topic: 'p-basic', messages: [{ value: 'x'.repeat(2000) }] })).rejects.toMatchObject({ errorCode: ErrorCode.MESSAGE_TOO_LARGE });
  });

  it('rejects an explicit partition that does not exist', async () => {
    const p = producer();
    await expect(p.send({ topic: 'p-basic', messages: [{ value: 'x', partition: 7 }] })).rejects.toMatchObject({ errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION });
  });

  it('delivers everything accepted before close() and refuses sends after it', async () => {
    await admin.createTopics({ topics: [{ topic: 'p-close', numPartitions: 2 }] });
    const p = producer({ lingerMs: 10_000 });
    const pending = Array.from({ length: 50 }, (_, i) => p.sendRecord({ topic: 'p-close', value: `v${i}` }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await p.close();
    const results = await Promise.all(pending);
    expect(results.every((r) => r.offset >= 0)).toBe(true);
    await expect(p.send({ topic: 'p-close', messages: [{ value: 'late' }] })).rejects.toBeInstanceOf(ClientClosedError);
  });

  it('calls the callback and interceptors on acknowledgement', async () => {
    const seen: string[] = [];
    const p = producer({ interceptors: [{ onSend: (r) => ({ ...r, value: `${String(r.value)}!` }), onAcknowledgement: (m) => seen.push(`ack ${m?.offset}`) }] });
    const result = await new Promise<number>((resolve, reject) => {
      void p.sendRecord({ topic: 'p-basic', value: 'cb' }, (error, metadata) => (error ? reject(error) : resolve(metadata!.offset))).catch(() => undefined);
    });
    expect(seen).toEqual([`ack ${result}`]);
    const records = (await readPartition(broker.bootstrap, 'p-basic', 0)).flatMap((b) => b.records);
    expect(records.at(-1)!.value!.toString()).toBe('cb!');
  });

  it('retries a produce whose response was lost without writing duplicates (idempotence)', async () => {
    await admin.createTopics({ topics: [{ topic: 'p-idempotent', numPartitions: 1 }] });
    const faults = new FaultInjector();
    const p = producer({ transportFactory: faults.factory, retryBackoffMs: 10 });
    await p.send({ topic: 'p-idempotent', messages: [{ value: 'warm-up' }] });
    faults.dropResponses(ApiKey.Produce, 2);
    const metadata = await p.send({ topic: 'p-idempotent', messages: Array.from({ length: 10 }, (_, i) => ({ value: `v${i}` })) });
    expect(faults.sent.get(ApiKey.Produce)).toBeGreaterThanOrEqual(4);
    expect(metadata.map((m) => m.offset)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    const records = (await readPartition(broker.bootstrap, 'p-idempotent', 0)).flatMap((b) => b.records);
    expect(records.map((r) => r.value!.toString())).toEqual(['warm-up', ...Array.from({ length: 10 }, (_, i) => `v${i}`)]);
  });

  it('writes a duplicate on a lost response when idempotence is off (the contrast case)', async () => {
    await admin.createTopics({ topics: [{ topic: 'p-not-idempotent', numPartitions: 1 }] });
    const faults = new FaultInjector();
    const p = producer({ transportFactory: faults.factory, retryBackoffMs: 10, enableIdempotence: false });
    await p.send({ topic: 'p-not-idempotent', messages: [{ value: 'warm-up' }] });
    faults.dropResponses(ApiKey.Produce, 1);
    await p.send({ topic: 'p-not-idempotent', messages: [{ value: 'once' }] });
    const records = (await readPartition(broker.bootstrap, 'p-not-idempotent', 0)).flatMap((b) => b.records);
    expect(records.map((r) => r.value!.toString())).toEqual(['warm-up', 'once', 'once']);
  });

  it('fails what is still unacknowledged when close() times out', async () => {
    await admin.createTopics({ topics: [{ topic: 'p-close-timeout', numPartitions: 1 }] });
    const faults = new FaultInjector();
    const p = producer({ transportFactory: faults.factory, retryBackoffMs: 20 });
    await p.send({ topic: 'p-close-timeout', messages: [{ value: 'warm-up' }] });
    faults.dropResponses(ApiKey.Produce, 1_000_000);
    const pending = p.sendRecord({ topic: 'p-close-timeout', value: 'never acknowledged' });
    pending.catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await p.close({ timeoutMs: 200 });
    await expect(pending).rejects.toThrow(/closed/);
  });
});

describe('Producer batches (property)', () => {
  it('stores exactly the records sent, in order, across batch boundaries and concurrent send() calls', async () => {
    const { default: fc } = await import('fast-check');
    const message = fc.record({
      key: fc.option(fc.uint8Array({ maxLength: 20 }), { nil: null }),
      value: fc.option(fc.uint8Array({ maxLength: 600 }), { nil: null }),
      headers: fc.array(fc.record({ key: fc.string({ maxLength: 8 }), value: fc.option(fc.uint8Array({ maxLength: 10 }), { nil: null }) }), { maxLength: 2 }),
      timestamp: fc.integer({ min: 1_600_000_000_000, max: 1_800_000_000_000 }),
    });
    let run = 0;
    await fc.assert(fc.asyncProperty(fc.array(fc.array(message, { maxLength: 30 }), { minLength: 1, maxLength: 4 }), fc.boolean(), async (calls, idempotent) => {
      const topic = `p-property-${run++}`;
      await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] });
      // Without idempotence only one batch per partition in flight keeps order even across retries.
      const p = producer({ batchSize: 2048, lingerMs: 1, enableIdempotence: idempotent, acks: idempotent ? 'all' : 1, maxInFlightRequestsPerConnection: idempotent ? 5 : 1 });
      // With metadata cached every send() appends synchronously, so concurrent calls keep call order.
      await p.partitionsFor(topic);
      const results = await Promise.all(calls.map((messages) => p.send({ topic, messages: messages.map((m) => ({ ...m, partition: 0 })) })));
      const sent = calls.flat();
      expect(results.flat().map((m) => m.offset)).toEqual(sent.map((_, i) => i));
      expect(results.flat().map((m) => m.timestamp)).toEqual(sent.map((m) => m.timestamp));
      const stored = (await readPartition(broker.bootstrap, topic, 0)).flatMap((b) => b.records);
      const bytes = (v: Uint8Array | null): Buffer | null => (v === null ? null : Buffer.from(v));
      expect(stored.map((r) => r.offset)).toEqual(sent.map((_, i) => i));
      expect(stored.map((r) => r.timestamp)).toEqual(sent.map((m) => m.timestamp));
      expect(stored.map((r) => r.key)).toEqual(sent.map((m) => bytes(m.key)));
      expect(stored.map((r) => r.value)).toEqual(sent.map((m) => bytes(m.value)));
      expect(stored.map((r) => r.headers)).toEqual(sent.map((m) => m.headers.map((h) => ({ key: h.key, value: bytes(h.value) }))));
      await p.close();
    }), { numRuns: 12 });
  }, 120_000);

  it('pipelines batches of one partition without idempotence and, without failures, stores them in order', async () => {
    await admin.createTopics({ topics: [{ topic: 'p-pipelined', numPartitions: 1 }] });
    const p = producer({ batchSize: 4096, lingerMs: 0, acks: 1, enableIdempotence: false });
    await p.partitionsFor('p-pipelined');
    const value = new Uint8Array(100);
    const sends = Array.from({ length: 20 }, (_, call) => p.send({ topic: 'p-pipelined', messages: Array.from({ length: 200 }, (_, i) => ({ key: `${call}-${i}`, value, partition: 0 })) }));
    let peak = 0;
    const sender = (p as unknown as { sender: { inFlightBatches: number } }).sender;
    const watching = setInterval(() => { peak = Math.max(peak, sender.inFlightBatches); }, 0);
    const results = (await Promise.all(sends)).flat();
    clearInterval(watching);
    expect(results.map((m) => m.offset)).toEqual(results.map((_, i) => i));
    const stored = (await readPartition(broker.bootstrap, 'p-pipelined', 0)).flatMap((b) => b.records);
    expect(stored.map((r) => r.key!.toString())).toEqual(Array.from({ length: 20 }, (_, call) => Array.from({ length: 200 }, (_, i) => `${call}-${i}`)).flat());
    expect(peak).toBeGreaterThan(1);
  });
});
