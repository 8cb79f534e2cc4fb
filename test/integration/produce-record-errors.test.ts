/**
 * Produce v8 record_errors and error_message (KIP-467, issue 13), as Kafka's LogValidator answers:
 * keyless records on a compacted topic are refused with INVALID_RECORD (87) naming each keyless
 * record's index in its batch, compressed or not; records with timestamps out of range with
 * INVALID_TIMESTAMP (32) and their indexes; v7 gets the same error code without the lists;
 * nothing of a refused batch is stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRecordBatch, type RecordInput } from '../../host/record/batch-builder.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { startTestBroker, type TestBroker } from './in-process-broker.js';
import { RawKafkaClient } from './raw-kafka-client.js';
import { createTopic, fetchRequest, produce, fetch, values } from './requests.js';

const HOUR_MS = 3_600_000;

describe('Produce v8 record_errors (KIP-467)', () => {
  let broker: TestBroker;
  let client: RawKafkaClient;

  beforeAll(async () => {
    broker = await startTestBroker({});
    client = await RawKafkaClient.connect(broker.broker.port);
    expect(await createTopic(client, 'compacted', 1, [{ name: 'cleanup.policy', value: 'compact' }])).toBe(ErrorCode.NONE);
    expect(await createTopic(client, 'compacted-window', 1, [
      { name: 'cleanup.policy', value: 'compact,delete' }, { name: 'message.timestamp.before.max.ms', value: String(HOUR_MS) },
    ])).toBe(ErrorCode.NONE);
    expect(await createTopic(client, 'plain', 1)).toBe(ErrorCode.NONE);
  });
  afterAll(async () => {
    client.close();
    await broker.close();
  });

  const partitionAnswer = async (version: number, topic: string, records: RecordInput[], compression = 0) => {
    const blob = buildRecordBatch({ records, compression });
    const response = await produce(client, version, [{ topic, partition: 0, records: blob }]);
    return response.responses[0]!.partitionResponses[0]!;
  };

  const stored = async (topic: string): Promise<string[]> => {
    const response = await fetch(client, 4, fetchRequest([{ topic, partition: 0, fetchOffset: 0 }]));
    return values(response.responses[0]!.partitions[0]!.records);
  };

  it.each([0, 1, 4])('refuses keyless records on a compacted topic (codec %i) with INVALID_RECORD and each one\'s index', async (codec) => {
    const answer = await partitionAnswer(8, 'compacted', [
      { key: 'a', value: 'keyed-0' }, { key: null, value: 'keyless-1' }, { key: 'b', value: 'keyed-2' }, { value: 'keyless-3' },
    ], codec);
    const message = 'Compacted topic cannot accept message without key in topic partition compacted-0.';
    expect(answer).toMatchObject({
      errorCode: ErrorCode.INVALID_RECORD,
      baseOffset: -1,
      recordErrors: [{ batchIndex: 1, batchIndexErrorMessage: message }, { batchIndex: 3, batchIndexErrorMessage: message }],
    });
    expect(answer.errorMessage).toBe(
      `One or more records have been rejected due to 2 record errors in total, and only showing the first three errors at most: [RecordError(batchIndex=1, message='${message}'), RecordError(batchIndex=3, message='${message}')]`,
    );
    expect(await stored('compacted')).toEqual([]);
  });

  it('appends keyed records to a compacted topic and keyless ones to a topic without compaction', async () => {
    expect((await partitionAnswer(8, 'compacted', [{ key: 'k', value: 'kept' }])).errorCode).toBe(ErrorCode.NONE);
    expect(await stored('compacted')).toEqual(['kept']);
    const plain = await partitionAnswer(8, 'plain', [{ value: 'no key' }]);
    expect(plain).toMatchObject({ errorCode: ErrorCode.NONE, recordErrors: [], errorMessage: null });
  });

  it('answers v7 with the error code alone (the lists are v8+)', async () => {
    const answer = await partitionAnswer(7, 'compacted', [{ value: 'keyless' }]);
    expect(answer).toMatchObject({ errorCode: ErrorCode.INVALID_RECORD, recordErrors: [], errorMessage: null });
  });

  it('lists the records with timestamps out of range as INVALID_TIMESTAMP, which wins over key errors', async () => {
    const now = Date.now();
    const answer = await partitionAnswer(8, 'compacted-window', [
      { key: 'a', value: 'ok', timestamp: now }, { key: 'b', value: 'old', timestamp: now - 2 * HOUR_MS },
      { value: 'keyless', timestamp: now }, { key: 'c', value: 'ok', timestamp: now },
    ]);
    expect(answer.errorCode).toBe(ErrorCode.INVALID_TIMESTAMP);
    expect(answer.errorMessage).toBe('One or more records have been rejected due to invalid timestamp');
    expect(answer.recordErrors.map((e) => e.batchIndex)).toEqual([1, 2]);
    expect(answer.recordErrors[0]!.batchIndexErrorMessage).toMatch(/^Timestamp \d+ of message with offset \d+ is out of range\. The timestamp should be within \[\d+, \d+\]$/);
    expect(answer.recordErrors[1]!.batchIndexErrorMessage).toContain('without key');
  });

  it('puts error_message on other v8 errors too (UNKNOWN_TOPIC_OR_PARTITION)', async () => {
    const blob = buildRecordBatch({ records: [{ key: 'k', value: 'v' }] });
    const response = await produce(client, 8, [{ topic: 'plain', partition: 9, records: blob }]);
    expect(response.responses[0]!.partitionResponses[0]!.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  });
});
