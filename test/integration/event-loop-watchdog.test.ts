import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { decodeCreateTopicsResponse, encodeCreateTopicsRequest } from '../../host/protocol/generated/create-topics.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { startTestBroker, type TestBroker } from './in-process-broker.js';
import { RawKafkaClient } from './raw-kafka-client.js';

describe('A stall is explained, not guessed (issue 15)', () => {
  let broker: TestBroker;
  let client: RawKafkaClient;

  beforeAll(async () => {
    // A threshold of 1 ms: creating 64 partition directories in one turn is certainly past it.
    broker = await startTestBroker({ 'event.loop.stall.threshold.ms': 1 }, { captureLogs: true });
    client = await RawKafkaClient.connect(broker.broker.port);
  });
  afterAll(async () => {
    client.close();
    await broker.close();
  });

  it('logs the CreateTopics that blocked the event loop with its client id and partition count', async () => {
    const created = await client.request(ApiKey.CreateTopics, 4, encodeCreateTopicsRequest, decodeCreateTopicsResponse, {
      topics: [{ name: 'blocking', numPartitions: 64, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false,
    });
    expect(created.topics[0]!.errorCode).toBe(ErrorCode.NONE);
    const stall = broker.logLines.find((line) => line.event === 'event_loop.stall' && line.api === 'CreateTopics');
    expect(stall).toMatchObject({ cause: 'request', apiKey: ApiKey.CreateTopics, clientId: 'raw-test', partitions: 64 });
    expect(typeof stall!.durationMs).toBe('number');
  });
});
