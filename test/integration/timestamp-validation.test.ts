/**
 * message.timestamp.before.max.ms / after.max.ms / difference.max.ms (KIP-937, issue 13): a
 * CreateTime record too far from the broker's clock fails the produce with INVALID_TIMESTAMP (32),
 * as Kafka's LogValidator; within the window, and on LogAppendTime topics, it is appended.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRecordBatch } from '../../host/record/batch-builder.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { startTestBroker, type TestBroker } from './in-process-broker.js';
import { RawKafkaClient } from './raw-kafka-client.js';
import { createTopic, produce } from './requests.js';

const HOUR_MS = 3_600_000;

describe('timestamp validation', () => {
  let broker: TestBroker;
  let client: RawKafkaClient;

  beforeAll(async () => {
    broker = await startTestBroker({});
    client = await RawKafkaClient.connect(broker.broker.port);
    expect(await createTopic(client, 'ts-window', 1, [
      { name: 'message.timestamp.before.max.ms', value: String(HOUR_MS) }, { name: 'message.timestamp.after.max.ms', value: '60000' },
    ])).toBe(ErrorCode.NONE);
    expect(await createTopic(client, 'ts-difference', 1, [{ name: 'message.timestamp.difference.max.ms', value: String(HOUR_MS) }])).toBe(ErrorCode.NONE);
    expect(await createTopic(client, 'ts-append-time', 1, [
      { name: 'message.timestamp.type', value: 'LogAppendTime' }, { name: 'message.timestamp.before.max.ms', value: '1' },
    ])).toBe(ErrorCode.NONE);
  });
  afterAll(async () => {
    client.close();
    await broker.close();
  });

  const produceAt = async (topic: string, timestamp: number): Promise<number> => {
    const records = buildRecordBatch({ records: [{ key: 'k', value: 'v', timestamp }], baseTimestamp: timestamp });
    const response = await produce(client, 7, [{ topic, partition: 0, records }]);
    return response.responses[0]!.partitionResponses[0]!.errorCode;
  };

  it('refuses a record older than message.timestamp.before.max.ms and one newer than after.max.ms with INVALID_TIMESTAMP', async () => {
    const now = Date.now();
    expect(await produceAt('ts-window', now - 2 * HOUR_MS)).toBe(ErrorCode.INVALID_TIMESTAMP);
    expect(await produceAt('ts-window', now + 10 * 60_000)).toBe(ErrorCode.INVALID_TIMESTAMP);
    expect(await produceAt('ts-window', now - HOUR_MS / 2)).toBe(ErrorCode.NONE);
    expect(await produceAt('ts-window', now + 1_000)).toBe(ErrorCode.NONE);
  });

  it('uses the deprecated message.timestamp.difference.max.ms for both bounds left at their defaults', async () => {
    const now = Date.now();
    expect(await produceAt('ts-difference', now - 2 * HOUR_MS)).toBe(ErrorCode.INVALID_TIMESTAMP);
    expect(await produceAt('ts-difference', now + 2 * HOUR_MS)).toBe(ErrorCode.INVALID_TIMESTAMP);
    expect(await produceAt('ts-difference', now)).toBe(ErrorCode.NONE);
  });

  it('does not check timestamps on a LogAppendTime topic (the broker stamps them)', async () => {
    expect(await produceAt('ts-append-time', 0)).toBe(ErrorCode.NONE);
  });
});
