/**
 * Issue 15, auto-creation: one Metadata request naming 99,999 unknown topics used to create topics
 * until max.partitions was reached (minutes of controller work, hundreds of MB), and a Produce
 * naming unknown topics created them too. Now Metadata creates at most
 * auto.create.topics.max.per.request topics per request (the rest LEADER_NOT_AVAILABLE, created by
 * a later request) and Produce creates none (UNKNOWN_TOPIC_OR_PARTITION), as Kafka.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { decodeMetadataResponse, encodeMetadataRequest, type MetadataResponse } from '../../host/protocol/generated/metadata.js';
import { startTestBroker, type TestBroker } from './in-process-broker.js';
import { RawKafkaClient } from './raw-kafka-client.js';
import { batch, fetch, fetchRequest, metadata, produce } from './requests.js';

const BOUND = 100;

describe('Auto-creation is bounded per request, and Produce never creates topics (issue 15)', () => {
  let broker: TestBroker;
  let client: RawKafkaClient;

  beforeAll(async () => {
    // The default bound (100) and quota (1000 partitions per second, burst 11,000): only the bound bites here.
    broker = await startTestBroker({}, { captureLogs: true });
    client = await RawKafkaClient.connect(broker.broker.port);
  });
  afterAll(async () => {
    client.close();
    await broker.close();
  });

  const existing = async (): Promise<string[]> =>
    (await metadata(client, 1, { topics: null })).topics.map((topic) => topic.name).filter((name) => !name.startsWith('__'));
  const refusalLines = (): Record<string, unknown>[] => broker.logLines.filter((line) => line.event === 'auto_create.refused');

  it('has a default bound of 100 topics per request', () => {
    expect(broker.broker.config.autoCreateTopicsMaxPerRequest).toBe(BOUND);
  });

  it('creates at most the bound of a Metadata v1 naming 500 unknown topics and answers the others LEADER_NOT_AVAILABLE, creating nothing for them', async () => {
    const names = Array.from({ length: 500 }, (_, i) => `wave-${i}`);
    const response = await metadata(client, 1, { topics: names.map((name) => ({ name })) });
    expect(response.topics.map((topic) => topic.name)).toEqual(names);
    const created = response.topics.slice(0, BOUND);
    const deferred = response.topics.slice(BOUND);
    for (const topic of created) expect([ErrorCode.NONE, ErrorCode.LEADER_NOT_AVAILABLE], topic.name).toContain(topic.errorCode);
    for (const topic of deferred) expect(topic, topic.name).toMatchObject({ errorCode: ErrorCode.LEADER_NOT_AVAILABLE, partitions: [] });
    expect((await existing()).sort()).toEqual(names.slice(0, BOUND).sort());

    const lines = refusalLines();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'warn', api: 'Metadata', apiVersion: 1, clientId: 'raw-test',
      refusedTopics: 400, attemptedTopics: BOUND, firstRefusedTopic: `wave-${BOUND}`, config: 'auto.create.topics.max.per.request', suppressed: 0,
    });
  });

  it('creates the deferred topics when the client asks again, the bound per request at a time', async () => {
    const names = Array.from({ length: 500 }, (_, i) => `wave-${i}`);
    const again = await metadata(client, 1, { topics: names.map((name) => ({ name })) });
    expect(again.topics.filter((topic) => topic.errorCode === ErrorCode.NONE).length).toBeGreaterThanOrEqual(BOUND);
    expect(await existing()).toHaveLength(2 * BOUND);
    // At most one line per request (a second one within 10 s is counted, not written).
    expect(refusalLines().length).toBeLessThanOrEqual(2);
  });

  it('does not count existing topics, illegal names or duplicates against the bound', async () => {
    const fresh = Array.from({ length: BOUND }, (_, i) => `fresh-${i}`);
    const names = ['wave-0', 'bad name', ...fresh, 'fresh-0'];
    const response = await metadata(client, 1, { topics: names.map((name) => ({ name })) });
    const byName = new Map(response.topics.map((topic) => [topic.name, topic.errorCode]));
    expect(byName.get('wave-0')).toBe(ErrorCode.NONE);
    expect(byName.get('bad name')).toBe(ErrorCode.INVALID_TOPIC_EXCEPTION);
    const names2 = await existing();
    for (const name of fresh) expect(names2, name).toContain(name);
  });

  it('answers a Metadata v4 that does not allow auto-creation UNKNOWN_TOPIC_OR_PARTITION and creates nothing', async () => {
    const response = await metadata(client, 4, { topics: [{ name: 'not-asked-for' }], allowAutoTopicCreation: false });
    expect(response.topics[0]!.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    expect(await existing()).not.toContain('not-asked-for');
  });

  it('answers a Produce to an unknown topic UNKNOWN_TOPIC_OR_PARTITION and creates nothing, as Kafka', async () => {
    const response = await produce(client, 7, [{ topic: 'born-on-produce', partition: 0, records: batch(['first']) }]);
    expect(response.responses[0]!.partitionResponses[0]).toMatchObject({ index: 0, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, baseOffset: -1 });
    expect(await existing()).not.toContain('born-on-produce');
    // An illegal name is just as unknown (Kafka checks the metadata cache, not the name).
    const illegal = await produce(client, 7, [{ topic: 'bad name', partition: 0, records: batch(['x']) }]);
    expect(illegal.responses[0]!.partitionResponses[0]!.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  });

  it('logs a Produce naming 1,000 unknown topics as one request.refused line, not one per partition', async () => {
    const before = broker.logLines.length;
    const partitions = Array.from({ length: 1000 }, (_, i) => ({ topic: `ghost-${i}`, partition: 0, records: batch(['x']) }));
    const response = await produce(client, 7, partitions);
    expect(response.responses).toHaveLength(1000);
    for (const topic of response.responses) expect(topic.partitionResponses[0]!.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    const lines = broker.logLines.slice(before).filter((line) => line.event === 'request.refused' && line.api === 'Produce');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, error: 'UNKNOWN_TOPIC_OR_PARTITION' });
    expect(String(lines[0]!.reason)).toContain('ghost-0-0: topic ghost-0 does not exist (and 999 other partition(s) refused in this request)');
    expect((await existing()).filter((name) => name.startsWith('ghost-'))).toEqual([]);
    // Made-up names take no per-topic metric labels (their budget is metrics.topic.labels.max).
    expect(broker.broker.metrics.topicMetrics.topic('ghost-0')).toBeUndefined();
    expect(broker.broker.metrics.topicMetrics.unlabelledTopics).toBe(0);
  });

  it('gives a Fetch of unknown topics UNKNOWN_TOPIC_OR_PARTITION and no per-topic metric labels', async () => {
    const response = await fetch(client, 11, fetchRequest(Array.from({ length: 50 }, (_, i) => ({ topic: `phantom-${i}`, partition: 0, fetchOffset: 0 }))));
    for (const topic of response.responses) expect(topic.partitions[0]!.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    expect(broker.broker.metrics.topicMetrics.topic('phantom-0')).toBeUndefined();
    expect(broker.broker.metrics.topicMetrics.unlabelledTopics).toBe(0);
  });

  it('lets a producer go through Metadata first, as real clients do: the topic is created there and the Produce succeeds', async () => {
    const meta = await metadata(client, 1, { topics: [{ name: 'via-metadata' }] });
    expect([ErrorCode.NONE, ErrorCode.LEADER_NOT_AVAILABLE]).toContain(meta.topics[0]!.errorCode);
    const response = await produce(client, 7, [{ topic: 'via-metadata', partition: 0, records: batch(['first']) }]);
    expect(response.responses[0]!.partitionResponses[0]).toMatchObject({ errorCode: ErrorCode.NONE, baseOffset: 0 });
  });
});

describe('Auto-creation stops while the client\'s controller mutation quota is exhausted (issue 15)', () => {
  let broker: TestBroker;
  let client: RawKafkaClient;

  beforeAll(async () => {
    // A burst of 2 partitions refilled at 0.01 per second: a spent bucket stays spent for the whole test.
    broker = await startTestBroker({ 'controller.mutation.rate': 0.01, 'controller.quota.window.num': 200 }, { captureLogs: true });
    client = await RawKafkaClient.connect(broker.broker.port);
  });
  afterAll(async () => {
    client.close();
    await broker.close();
  });

  const metadataAs = async (clientId: string, names: string[]): Promise<MetadataResponse> =>
    client.readResponse(ApiKey.Metadata, 1, decodeMetadataResponse,
      client.sendRequest(ApiKey.Metadata, 1, encodeMetadataRequest, { topics: names.map((name) => ({ name })) }, clientId));
  const existing = async (): Promise<string[]> => (await metadata(client, 1, { topics: null })).topics.map((topic) => topic.name);

  it('creates while the bucket is at zero or above, then answers LEADER_NOT_AVAILABLE and creates nothing', async () => {
    // The bucket is at 2, 1, then 0 tokens for q-1, q-2, q-3 (made), then at -1 for q-4 and q-5.
    const response = await metadataAs('spender', ['q-1', 'q-2', 'q-3', 'q-4', 'q-5']);
    expect(response.topics.map((topic) => topic.errorCode).slice(3)).toEqual([ErrorCode.LEADER_NOT_AVAILABLE, ErrorCode.LEADER_NOT_AVAILABLE]);
    const names = await existing();
    expect(names).toEqual(expect.arrayContaining(['q-1', 'q-2', 'q-3']));
    expect(names).not.toContain('q-4');
    expect(names).not.toContain('q-5');
    expect(broker.logLines.filter((line) => line.event === 'auto_create.refused')).toEqual([
      expect.objectContaining({ clientId: 'spender', refusedTopics: 2, attemptedTopics: 3, firstRefusedTopic: 'q-4', config: 'controller.mutation.rate' }),
    ]);
  });

  it('still auto-creates for another client, whose bucket is its own', async () => {
    const response = await metadataAs('patient', ['q-4']);
    expect([ErrorCode.NONE, ErrorCode.LEADER_NOT_AVAILABLE]).toContain(response.topics[0]!.errorCode);
    expect(await existing()).toContain('q-4');
  });
});
