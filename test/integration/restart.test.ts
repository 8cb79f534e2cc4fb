import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { decodeDescribeConfigsResponse, encodeDescribeConfigsRequest } from '../../host/protocol/generated/describe-configs.js';
import { decodeDescribeGroupsResponse, encodeDescribeGroupsRequest } from '../../host/protocol/generated/describe-groups.js';
import { decodeJoinGroupResponse, encodeJoinGroupRequest } from '../../host/protocol/generated/join-group.js';
import { decodeSyncGroupResponse, encodeSyncGroupRequest } from '../../host/protocol/generated/sync-group.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { decodeInitProducerIdResponse, encodeInitProducerIdRequest } from '../../host/protocol/generated/init-producer-id.js';
import { decodeOffsetCommitResponse, encodeOffsetCommitRequest } from '../../host/protocol/generated/offset-commit.js';
import { decodeOffsetFetchResponse, encodeOffsetFetchRequest } from '../../host/protocol/generated/offset-fetch.js';
import { startBrokerProcess, stopAllBrokerProcesses, type BrokerProcess } from '../helpers/broker-process.js';
import { startTestBroker, type TestBroker } from './in-process-broker.js';
import { RawKafkaClient } from './raw-kafka-client.js';
import { batch, createTopic, fetch, fetchRequest, metadata, produce, values } from './requests.js';

async function initProducerId(client: RawKafkaClient): Promise<number> {
  const response = await client.request(ApiKey.InitProducerId, 4, encodeInitProducerIdRequest, decodeInitProducerIdResponse,
    { transactionalId: null, transactionTimeoutMs: 60000, producerId: -1, producerEpoch: -1 });
  expect(response.errorCode).toBe(ErrorCode.NONE);
  return response.producerId;
}

async function committedOffset(client: RawKafkaClient, groupId: string, topic: string): Promise<number> {
  const response = await client.request(ApiKey.OffsetFetch, 5, encodeOffsetFetchRequest, decodeOffsetFetchResponse,
    { groupId, topics: [{ name: topic, partitionIndexes: [0] }] });
  return response.topics[0]!.partitions[0]!.committedOffset;
}

/** Writes topics, records, a config override, a committed offset and idempotent state; returns the producer id. */
async function writeState(client: RawKafkaClient): Promise<{ producerId: number; idempotentBatch: Buffer }> {
  expect(await createTopic(client, 'durable', 2, [{ name: 'retention.ms', value: '7777777' }])).toBe(ErrorCode.NONE);
  await produce(client, 7, [{ topic: 'durable', partition: 0, records: batch(['one', 'two']) }], { acks: -1 });
  await produce(client, 7, [{ topic: 'durable', partition: 1, records: batch(['three']) }], { acks: -1 });
  const producerId = await initProducerId(client);
  const idempotentBatch = batch(['exactly-once'], { producerId, producerEpoch: 0, baseSequence: 0 });
  const first = await produce(client, 7, [{ topic: 'durable', partition: 0, records: idempotentBatch }], { acks: -1 });
  expect(first.responses[0]!.partitionResponses[0]!.baseOffset).toBe(2);
  const committed = await client.request(ApiKey.OffsetCommit, 7, encodeOffsetCommitRequest, decodeOffsetCommitResponse, {
    groupId: 'survivors', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null,
    topics: [{ name: 'durable', partitions: [{ partitionIndex: 0, committedOffset: 2, committedLeaderEpoch: -1, committedMetadata: null }] }],
  });
  expect(committed.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
  return { producerId, idempotentBatch };
}

/** Checks everything writeState wrote, after a restart. */
async function checkState(client: RawKafkaClient, state: { producerId: number; idempotentBatch: Buffer }): Promise<void> {
  const meta = await metadata(client, 4, { topics: [{ name: 'durable' }], allowAutoTopicCreation: false });
  expect(meta.topics[0]).toMatchObject({ errorCode: ErrorCode.NONE });
  expect(meta.topics[0]!.partitions).toHaveLength(2);
  const fetched = await fetch(client, 11, fetchRequest([
    { topic: 'durable', partition: 0, fetchOffset: 0 },
    { topic: 'durable', partition: 1, fetchOffset: 0 },
  ]));
  // Consecutive partitions of one topic share a topic entry, as in Kafka's FetchResponse.
  expect(fetched.responses).toHaveLength(1);
  expect(values(fetched.responses[0]!.partitions[0]!.records)).toEqual(['one', 'two', 'exactly-once']);
  expect(values(fetched.responses[0]!.partitions[1]!.records)).toEqual(['three']);
  const described = await client.request(ApiKey.DescribeConfigs, 1, encodeDescribeConfigsRequest, decodeDescribeConfigsResponse,
    { resources: [{ resourceType: 2, resourceName: 'durable', configurationKeys: ['retention.ms'] }], includeSynonyms: false });
  expect(described.results[0]!.configs[0]).toMatchObject({ value: '7777777', configSource: 1 });
  expect(await committedOffset(client, 'survivors', 'durable')).toBe(2);
  // Producer state survived: the retried batch is a duplicate, acknowledged with its first offset.
  const retry = await produce(client, 7, [{ topic: 'durable', partition: 0, records: state.idempotentBatch }], { acks: -1 });
  expect(retry.responses[0]!.partitionResponses[0]).toMatchObject({ errorCode: ErrorCode.NONE, baseOffset: 2 });
  const after = await fetch(client, 11, fetchRequest([{ topic: 'durable', partition: 0, fetchOffset: 0 }]));
  expect(after.responses[0]!.partitions[0]!.highWatermark).toBe(3);
  // Producer ids are never handed out twice.
  expect(await initProducerId(client)).not.toBe(state.producerId);
}

describe('restart of an in-process broker', () => {
  let broker: TestBroker | undefined;
  afterEach(async () => {
    await broker?.close();
    broker = undefined;
  });

  it('keeps topics, records, configs, committed offsets and producer state across stop() and start', async () => {
    broker = await startTestBroker();
    let client = await RawKafkaClient.connect(broker.broker.port);
    const state = await writeState(client);
    client.close();
    const clusterId = broker.broker.clusterId;
    await broker.restart();
    expect(broker.broker.clusterId).toBe(clusterId);
    client = await RawKafkaClient.connect(broker.broker.port);
    try {
      await checkState(client, state);
    } finally {
      client.close();
    }
  });

  it('stops a broker of many partitions without producers writing no producer snapshot, and keeps every offset', async () => {
    broker = await startTestBroker();
    let client = await RawKafkaClient.connect(broker.broker.port);
    try {
      expect(await createTopic(client, 'wide', 40)).toBe(ErrorCode.NONE);
      for (let partition = 0; partition < 40; partition += 3) {
        await produce(client, 7, [{ topic: 'wide', partition, records: batch([`p${partition}`, 'x']) }], { acks: -1 });
      }
    } finally {
      client.close();
    }
    await broker.restart();
    const snapshots = readdirSync(broker.logDir)
      .filter((name) => name.startsWith('wide-'))
      .flatMap((name) => readdirSync(join(broker!.logDir, name)).filter((file) => file.endsWith('.snapshot')).map((file) => `${name}/${file}`));
    // Only the partitions with batches have one (an empty snapshot spares their replay); none of the empty ones.
    expect(snapshots.every((file) => Number(/^wide-(\d+)\//.exec(file)![1]) % 3 === 0)).toBe(true);
    await broker.restart();
    client = await RawKafkaClient.connect(broker.broker.port);
    try {
      const requests = Array.from({ length: 40 }, (_, partition) => ({ topic: 'wide', partition, fetchOffset: 0 }));
      const fetched = await fetch(client, 11, fetchRequest(requests));
      const partitions = fetched.responses.flatMap((response) => response.partitions);
      expect(partitions).toHaveLength(40);
      for (const result of partitions) {
        const expected = result.partitionIndex % 3 === 0 ? [`p${result.partitionIndex}`, 'x'] : [];
        expect(result.highWatermark).toBe(expected.length);
        expect(values(result.records)).toEqual(expected);
      }
    } finally {
      client.close();
    }
  });

  it('answers requests already in flight before stop() resolves', async () => {
    broker = await startTestBroker();
    const client = await RawKafkaClient.connect(broker.broker.port);
    try {
      expect(await createTopic(client, 'inflight')).toBe(ErrorCode.NONE);
      const waiting = fetch(client, 11, fetchRequest([{ topic: 'inflight', partition: 0, fetchOffset: 0 }], { maxWaitMs: 60000, minBytes: 1 }));
      // A round trip on another connection lets the fetch (sent first) reach the purgatory; the
      // assertion holds either way: a request in flight is answered before stop() completes.
      const other = await RawKafkaClient.connect(broker.broker.port);
      await metadata(other, 1, { topics: [] });
      other.close();
      const stopped = broker.broker.stop();
      const response = await waiting;
      expect(response.responses[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
      await stopped;
    } finally {
      client.close();
    }
  });
});

describe('restart of a broker child process', () => {
  let process: BrokerProcess | undefined;
  afterAll(async () => {
    await process?.close();
    await stopAllBrokerProcesses();
  });

  it('keeps everything acknowledged across SIGKILL and SIGTERM restarts', async () => {
    process = await startBrokerProcess({ overrides: { 'group.initial.rebalance.delay.ms': 0 } });
    let client = await RawKafkaClient.connect(process.port);
    const state = await writeState(client);
    client.close();
    await process.kill9();
    await process.restart();
    client = await RawKafkaClient.connect(process.port);
    try {
      await checkState(client, state);
    } finally {
      client.close();
    }
    await process.restart();
    client = await RawKafkaClient.connect(process.port);
    try {
      const fetched = await fetch(client, 11, fetchRequest([{ topic: 'durable', partition: 0, fetchOffset: 0 }]));
      expect(values(fetched.responses[0]!.partitions[0]!.records)).toEqual(['one', 'two', 'exactly-once']);
      expect(await committedOffset(client, 'survivors', 'durable')).toBe(2);
    } finally {
      client.close();
    }
    const events = process.logRecords().map((line) => line.event);
    expect(events).toContain('broker.started');
    expect(events).toContain('broker.stopped');
  });
});

describe('stopping a broker with a rebalance in progress', () => {
  let broker: TestBroker | undefined;
  afterEach(async () => {
    await broker?.close();
    broker = undefined;
  });

  it('answers a JoinGroup parked in the rebalance instead of holding the stop', async () => {
    broker = await startTestBroker();
    const first = await RawKafkaClient.connect(broker.broker.port);
    const second = await RawKafkaClient.connect(broker.broker.port);
    try {
      const join = (client: RawKafkaClient, memberId: string) => client.request(ApiKey.JoinGroup, 2, encodeJoinGroupRequest, decodeJoinGroupResponse, {
        groupId: 'parked', sessionTimeoutMs: 30000, rebalanceTimeoutMs: 300000, memberId, protocolType: 'consumer',
        protocols: [{ name: 'range', metadata: Buffer.alloc(0) }],
      });
      const joined = await join(first, '');
      expect(joined.errorCode).toBe(ErrorCode.NONE);
      await first.request(ApiKey.SyncGroup, 1, encodeSyncGroupRequest, decodeSyncGroupResponse, {
        groupId: 'parked', generationId: joined.generationId, memberId: joined.memberId, assignments: [],
      });
      // The second member's join waits for the first to rejoin (up to the 300 s rebalance timeout).
      const parked = join(second, '');
      // Wait until the coordinator holds the join: the group is then rebalancing.
      for (;;) {
        const described = await first.request(ApiKey.DescribeGroups, 0, encodeDescribeGroupsRequest, decodeDescribeGroupsResponse, { groups: ['parked'] });
        if (described.groups[0]!.groupState === 'PreparingRebalance') break;
      }
      const stopped = broker.broker.stop();
      const answer = await parked;
      expect(answer.errorCode).not.toBe(ErrorCode.NONE);
      await stopped;
    } finally {
      first.close();
      second.close();
    }
  });
});
