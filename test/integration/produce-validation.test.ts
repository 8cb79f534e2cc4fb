/**
 * Produce validation as Kafka 3.9 (issue 13; the table in docs/produce-errors.md): a partition
 * without a record batch is INVALID_RECORD (87), as Kafka's ProduceRequest.validateRecords.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { startTestBroker, type TestBroker } from './in-process-broker.js';
import { RawKafkaClient } from './raw-kafka-client.js';
import { createTopic, produce } from './requests.js';

describe('produce validation', () => {
  let broker: TestBroker;
  let client: RawKafkaClient;

  beforeAll(async () => {
    broker = await startTestBroker({});
    client = await RawKafkaClient.connect(broker.broker.port);
    expect(await createTopic(client, 'pv', 1)).toBe(ErrorCode.NONE);
  });
  afterAll(async () => {
    client.close();
    await broker.close();
  });

  it('answers a partition without a record batch (null or empty records) with INVALID_RECORD', async () => {
    for (const records of [null, new Uint8Array(0)]) {
      for (const version of [3, 7]) {
        const response = await produce(client, version, [{ topic: 'pv', partition: 0, records }]);
        expect(response.responses[0]!.partitionResponses[0]!.errorCode, `v${version} ${records === null ? 'null' : 'empty'}`).toBe(ErrorCode.INVALID_RECORD);
      }
    }
  });
});
