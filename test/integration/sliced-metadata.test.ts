import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { decodeCreatePartitionsResponse, encodeCreatePartitionsRequest } from '../../host/protocol/generated/create-partitions.js';
import { decodeCreateTopicsResponse, encodeCreateTopicsRequest } from '../../host/protocol/generated/create-topics.js';
import { decodeDeleteTopicsResponse, encodeDeleteTopicsRequest } from '../../host/protocol/generated/delete-topics.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { waitFor } from '../helpers/wait-for.js';
import { startTestBroker, type TestBroker } from './in-process-broker.js';
import { RawKafkaClient } from './raw-kafka-client.js';
import { batch, createTopic, fetch, fetchRequest, metadata, produce, values } from './requests.js';

const PARTITIONS = 640; // 80 slices of metadata.apply.max.partitions.per.turn (8)

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

  it(`answers another client's Metadata while the ${PARTITIONS} partition directories of a new topic are still being created, and CreateTopics once they all are`, async () => {
    let createdAnswered = false;
    const creating = admin.request(ApiKey.CreateTopics, 4, encodeCreateTopicsRequest, decodeCreateTopicsResponse, {
      topics: [{ name: 'wide', numPartitions: PARTITIONS, replicationFactor: 1, assignments: [], configs: [] }],
      timeoutMs: 30_000, validateOnly: false,
    }).then((answer) => {
      createdAnswered = true;
      return answer;
    });
    // Another client asks until the topic is known: its answer comes between two slices.
    const ask = () => metadata(other, 4, { topics: [{ name: 'wide' }], allowAutoTopicCreation: false });
    let answered = await ask();
    for (let asked = 1; answered.topics[0]!.errorCode !== ErrorCode.NONE; asked++) {
      expect(asked).toBeLessThan(10_000);
      answered = await ask();
    }
    const dirsWhenAnswered = partitionDirs('wide');
    expect(answered.topics[0]!.partitions).toHaveLength(PARTITIONS);
    expect(dirsWhenAnswered).toBeLessThan(PARTITIONS);
    expect(createdAnswered).toBe(false);
    // CreateTopics answers once this broker has applied every partition (a FIFO barrier on the slices).
    expect((await creating).topics[0]!.errorCode).toBe(ErrorCode.NONE);
    expect(partitionDirs('wide')).toBe(PARTITIONS);
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

  // Directories are made on the thread pool 8 runs ahead of the runs applied (one per turn), so at
  // most 8 x PER_TURN of them appear between two turns; the per-turn bound on what is applied is
  // checked by the slice timings (test/server/metadata-apply-wait.test.ts).
  it(`creates the directories of a 60-partition topic at most ${8 * PER_TURN} per event-loop turn, and answers CreateTopics after the last`, async () => {
    broker = await startTestBroker({ 'metadata.apply.max.partitions.per.turn': PER_TURN }, { logDir });
    const admin = await RawKafkaClient.connect(broker.broker.port);
    try {
      let dirsWhenAnswered = -1;
      const creating = createTopic(admin, 'sliced', 60).then((errorCode) => {
        dirsWhenAnswered = partitionDirs('sliced');
        return errorCode;
      });
      let seen = partitionDirs('sliced');
      for (let turns = 0; seen < 60; turns++) {
        expect(turns).toBeLessThan(10_000);
        await nextTurn();
        const now = partitionDirs('sliced');
        expect(now - seen).toBeLessThanOrEqual(8 * PER_TURN);
        seen = now;
      }
      expect(await creating).toBe(ErrorCode.NONE);
      expect(dirsWhenAnswered).toBe(60);
      // Every partition leads here as soon as the answer came: the last one takes a record at once.
      const answer = await produce(admin, 7, [{ topic: 'sliced', partition: 59, records: batch(['at once']) }], { acks: -1 });
      expect(answer.responses[0]!.partitionResponses[0]!.errorCode).toBe(ErrorCode.NONE);
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

describe('CreateTopics and CreatePartitions answer once this broker leads every new partition, one partition per turn (issue 15)', () => {
  let broker: TestBroker;
  let client: RawKafkaClient;
  beforeAll(async () => {
    broker = await startTestBroker({ 'metadata.apply.max.partitions.per.turn': 1 });
    client = await RawKafkaClient.connect(broker.broker.port);
  });
  afterAll(async () => {
    client.close();
    await broker.close();
  });
  const produceTo = async (topic: string, partition: number): Promise<number> =>
    (await produce(client, 7, [{ topic, partition, records: batch([`p${partition}`]) }], { acks: -1 })).responses[0]!.partitionResponses[0]!.errorCode;

  it('takes a record on the last of 50 new partitions right after CreateTopics answers', async () => {
    expect(await createTopic(client, 'fifty', 50)).toBe(ErrorCode.NONE);
    expect(await produceTo('fifty', 49)).toBe(ErrorCode.NONE);
    expect(await produceTo('fifty', 0)).toBe(ErrorCode.NONE);
  });

  it('takes a record on the last of 50 added partitions right after CreatePartitions answers', async () => {
    const grown = await client.request(ApiKey.CreatePartitions, 1, encodeCreatePartitionsRequest, decodeCreatePartitionsResponse,
      { topics: [{ name: 'fifty', count: 100, assignments: null }], timeoutMs: 30_000, validateOnly: false });
    expect(grown.results[0]!.errorCode).toBe(ErrorCode.NONE);
    expect(await produceTo('fifty', 99)).toBe(ErrorCode.NONE);
  });

  it('a topic deleted and at once created again under the same name starts empty: the deletion\'s renames (thread pool) come first', async () => {
    expect(await createTopic(client, 'again', 12)).toBe(ErrorCode.NONE);
    for (let partition = 0; partition < 12; partition++) expect(await produceTo('again', partition)).toBe(ErrorCode.NONE);
    const deleting = client.request(ApiKey.DeleteTopics, 3, encodeDeleteTopicsRequest, decodeDeleteTopicsResponse, { topicNames: ['again'], timeoutMs: 30_000 });
    const creating = createTopic(client, 'again', 4);
    expect((await deleting).responses[0]!.errorCode).toBe(ErrorCode.NONE);
    expect(await creating).toBe(ErrorCode.NONE);
    for (let partition = 0; partition < 4; partition++) {
      const answer = await produce(client, 7, [{ topic: 'again', partition, records: batch(['new']) }], { acks: -1 });
      expect(answer.responses[0]!.partitionResponses[0]!.errorCode).toBe(ErrorCode.NONE);
      expect(answer.responses[0]!.partitionResponses[0]!.baseOffset).toBe(0);
    }
    const read = await fetch(client, 4, fetchRequest([{ topic: 'again', partition: 3, fetchOffset: 0 }]));
    expect(values(read.responses[0]!.partitions[0]!.records)).toEqual(['new']);
    await waitFor('no partition directory of the old topic left', () =>
      (readdirSync(broker.logDir).filter((name) => name.startsWith('again-')).sort().join(',') === 'again-0,again-1,again-2,again-3' ? true : undefined), 30_000);
  });
});
