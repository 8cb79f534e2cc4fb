import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { decodeInitProducerIdResponse, encodeInitProducerIdRequest } from '../../host/protocol/generated/init-producer-id.js';
import { startTestBroker, type TestBroker } from './in-process-broker.js';
import { RawKafkaClient } from './raw-kafka-client.js';
import { batch, createTopic, produce } from './requests.js';

/** The broker's housekeeping tick, shortest (log.retention.check.interval.ms is clamped to >= 100 ms). */
const FAST_TICK = { 'log.retention.check.interval.ms': 100, 'log.initial.task.delay.ms': 0 };
/** Generous bound for "eventually, after a few housekeeping ticks". */
const EVENTUALLY = { timeout: 20_000, interval: 50 };

let broker: TestBroker | undefined;
let client: RawKafkaClient | undefined;

afterEach(async () => {
  client?.close();
  client = undefined;
  await broker?.close();
  broker = undefined;
});

async function initProducerId(raw: RawKafkaClient): Promise<{ producerId: number; producerEpoch: number }> {
  const init = await raw.request(ApiKey.InitProducerId, 4, encodeInitProducerIdRequest, decodeInitProducerIdResponse,
    { transactionalId: null, transactionTimeoutMs: 60000, producerId: -1, producerEpoch: -1 });
  expect(init.errorCode).toBe(ErrorCode.NONE);
  return { producerId: init.producerId, producerEpoch: init.producerEpoch };
}

async function produceError(raw: RawKafkaClient, topic: string, records: Buffer): Promise<number> {
  const response = await produce(raw, 7, [{ topic, partition: 0, records }], { acks: -1 });
  return response.responses[0]!.partitionResponses[0]!.errorCode;
}

describe('producer state housekeeping in a running broker', () => {
  it('forgets a producer id idle for longer than producer.id.expiration.ms', async () => {
    broker = await startTestBroker({ ...FAST_TICK, 'producer.id.expiration.ms': 60_000 });
    client = await RawKafkaClient.connect(broker.broker.port);
    const raw = client;
    expect(await createTopic(raw, 'expiring')).toBe(ErrorCode.NONE);
    const ids = await initProducerId(raw);
    // The last batch is an hour old by its timestamp: expired at the next tick.
    const oneHourAgo = Date.now() - 3_600_000;
    expect(await produceError(raw, 'expiring', batch(['a'], { ...ids, baseSequence: 0, baseTimestamp: oneHourAgo }))).toBe(ErrorCode.NONE);
    // A sequence gap is OUT_OF_ORDER_SEQUENCE_NUMBER while the producer is known (the refused
    // probe changes nothing), and accepted once its state is gone (KIP-360).
    const gap = batch(['gap'], { ...ids, baseSequence: 7 });
    await vi.waitFor(async () => {
      expect(await produceError(raw, 'expiring', gap)).toBe(ErrorCode.NONE);
    }, EVENTUALLY);
  });

  it('forgets a producer whose batches retention deleted (retention.bytes)', async () => {
    broker = await startTestBroker(FAST_TICK);
    client = await RawKafkaClient.connect(broker.broker.port);
    const raw = client;
    expect(await createTopic(raw, 'retained', 1, [
      { name: 'segment.bytes', value: '200' },
      { name: 'retention.bytes', value: '400' },
    ])).toBe(ErrorCode.NONE);
    const ids = await initProducerId(raw);
    expect(await produceError(raw, 'retained', batch(['x'.repeat(60)], { ...ids, baseSequence: 0 }))).toBe(ErrorCode.NONE);
    const gap = batch(['gap'], { ...ids, baseSequence: 7 });
    expect(await produceError(raw, 'retained', gap)).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    for (let i = 0; i < 8; i++) expect(await produceError(raw, 'retained', batch(['y'.repeat(60)]))).toBe(ErrorCode.NONE);
    await vi.waitFor(async () => {
      expect(await produceError(raw, 'retained', gap)).toBe(ErrorCode.NONE);
    }, EVENTUALLY);
  });
});
