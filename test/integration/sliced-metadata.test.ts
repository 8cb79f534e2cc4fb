import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { decodeCreateTopicsResponse, encodeCreateTopicsRequest } from '../../host/protocol/generated/create-topics.js';
import { decodeDeleteTopicsResponse, encodeDeleteTopicsRequest } from '../../host/protocol/generated/delete-topics.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { waitFor } from '../helpers/wait-for.js';
import { startTestBroker, type TestBroker } from './in-process-broker.js';
import { RawKafkaClient } from './raw-kafka-client.js';
import { metadata } from './requests.js';

const PARTITIONS = 640; // ten slices

describe('A large topic is applied to storage in slices that let other clients in (issue 15)', () => {
  let broker: TestBroker;
  let admin: RawKafkaClient;
  let other: RawKafkaClient;

  beforeAll(async () => {
    broker = await startTestBroker();
    admin = await RawKafkaClient.connect(broker.broker.port);
    other = await RawKafkaClient.connect(broker.broker.port);
  });
  afterAll(async () => {
    admin.close();
    other.close();
    await broker.close();
  });

  const partitionDirs = (topic: string): number =>
    readdirSync(broker.logDir).filter((name) => new RegExp(`^${topic}-\\d+$`).test(name)).length;

  it(`answers another client's Metadata while the ${PARTITIONS} partition directories of a new topic are still being created`, async () => {
    const created = await admin.request(ApiKey.CreateTopics, 4, encodeCreateTopicsRequest, decodeCreateTopicsResponse, {
      topics: [{ name: 'wide', numPartitions: PARTITIONS, replicationFactor: 1, assignments: [], configs: [] }],
      timeoutMs: 30_000, validateOnly: false,
    });
    expect(created.topics[0]!.errorCode).toBe(ErrorCode.NONE);
    const answered = await metadata(other, 1, { topics: [{ name: 'wide' }] });
    const dirsWhenAnswered = partitionDirs('wide');
    // The Metadata answer came between two slices: the topic is fully known, its storage not yet.
    expect(answered.topics[0]!.partitions).toHaveLength(PARTITIONS);
    expect(dirsWhenAnswered).toBeGreaterThan(0);
    expect(dirsWhenAnswered).toBeLessThan(PARTITIONS);
    await waitFor('every partition directory', () => (partitionDirs('wide') === PARTITIONS ? true : undefined), 60_000);
  });

  it('deletes the large topic in slices too, answering Metadata meanwhile', async () => {
    const deleted = await admin.request(ApiKey.DeleteTopics, 3, encodeDeleteTopicsRequest, decodeDeleteTopicsResponse,
      { topicNames: ['wide'], timeoutMs: 30_000 });
    expect(deleted.responses[0]!.errorCode).toBe(ErrorCode.NONE);
    const answered = await metadata(other, 1, { topics: [] });
    expect(answered.topics.find((t) => t.name === 'wide')).toBeUndefined();
    await waitFor('the partition directories to go', () => (partitionDirs('wide') === 0 ? true : undefined), 60_000);
  });
});
