import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { decodeCreateTopicsResponse, encodeCreateTopicsRequest } from '../../host/protocol/generated/create-topics.js';
import { decodeDeleteTopicsResponse, encodeDeleteTopicsRequest } from '../../host/protocol/generated/delete-topics.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { waitFor } from '../helpers/wait-for.js';
import { startTestBroker, type TestBroker } from './in-process-broker.js';
import { RawKafkaClient } from './raw-kafka-client.js';
import { batch, createTopic, metadata, produce } from './requests.js';

const PARTITIONS = 640; // 10 slices of metadata.apply.max.partitions.per.turn (64)

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

describe('metadata.apply.max.partitions.per.turn bounds what one event-loop turn applies, and a lost partition directory comes back', () => {
  const PER_TURN = 5;
  const logDir = mkdtempSync(join(tmpdir(), 'tributary-it-'));
  let broker: TestBroker | undefined;
  afterAll(async () => {
    await broker?.close();
    rmSync(logDir, { recursive: true, force: true });
  });
  const partitionDirs = (topic: string): number => readdirSync(logDir).filter((name) => new RegExp(`^${topic}-\\d+$`).test(name)).length;
  const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

  it(`creates the directories of a 60-partition topic at most ${PER_TURN} per event-loop turn`, async () => {
    broker = await startTestBroker({ 'metadata.apply.max.partitions.per.turn': PER_TURN }, { logDir });
    const admin = await RawKafkaClient.connect(broker.broker.port);
    try {
      expect(await createTopic(admin, 'sliced', 60)).toBe(ErrorCode.NONE);
      let seen = partitionDirs('sliced');
      expect(seen).toBeLessThan(60); // the answer came before the last slices (turns passed while it travelled)
      for (let turns = 0; seen < 60; turns++) {
        expect(turns).toBeLessThan(10_000);
        await nextTurn();
        const now = partitionDirs('sliced');
        expect(now - seen).toBeLessThanOrEqual(PER_TURN);
        seen = now;
      }
    } finally {
      admin.close();
    }
  });

  it('recreates at start-up, from the committed metadata, a partition directory lost while stopped (what a power loss before its first flush may take)', async () => {
    await broker!.close();
    rmSync(join(logDir, 'sliced-7'), { recursive: true });
    broker = await startTestBroker({ 'metadata.apply.max.partitions.per.turn': PER_TURN }, { logDir });
    // The directory comes back empty: its segment files are made by the first append (lazily).
    await waitFor('sliced-7 recreated', () => (existsSync(join(logDir, 'sliced-7')) ? true : undefined), 30_000);
    const client = await RawKafkaClient.connect(broker.broker.port);
    try {
      const answer = await produce(client, 7, [{ topic: 'sliced', partition: 7, records: batch(['back']) }], { acks: -1 });
      expect(answer.responses[0]!.partitionResponses[0]!.errorCode).toBe(ErrorCode.NONE);
      expect(existsSync(join(logDir, 'sliced-7', '00000000000000000000.log'))).toBe(true);
    } finally {
      client.close();
    }
  });
});
