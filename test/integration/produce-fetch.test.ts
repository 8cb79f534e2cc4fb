import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { decodeApiVersionsResponse, encodeApiVersionsRequest } from '../../host/protocol/generated/api-versions.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { decodeFindCoordinatorResponse, encodeFindCoordinatorRequest } from '../../host/protocol/generated/find-coordinator.js';
import { decodeInitProducerIdResponse, encodeInitProducerIdRequest } from '../../host/protocol/generated/init-producer-id.js';
import { decodeListOffsetsResponse, encodeListOffsetsRequest } from '../../host/protocol/generated/list-offsets.js';
import { decodeProduceResponse, encodeProduceRequest } from '../../host/protocol/generated/produce.js';
import { startTestBroker, type TestBroker } from './in-process-broker.js';
import { RawKafkaClient } from './raw-kafka-client.js';
import { batch, createTopic, decodeRecords, fetch, fetchRequest, metadata, produce, values } from './requests.js';

/** One legacy (magic 1) message in a message set: offset, size, crc, magic, attributes, timestamp, key, value. */
function legacyMessageSet(value: string): Buffer {
  const v = Buffer.from(value);
  const message = Buffer.alloc(4 + 1 + 1 + 8 + 4 + 4 + v.length);
  let at = 4; // CRC left 0: the broker must refuse the magic before looking at anything else
  message.writeInt8(1, at++); // magic 1
  message.writeInt8(0, at++);
  message.writeBigInt64BE(BigInt(Date.now()), at);
  at += 8;
  message.writeInt32BE(-1, at);
  at += 4;
  message.writeInt32BE(v.length, at);
  at += 4;
  v.copy(message, at);
  const head = Buffer.alloc(12);
  head.writeBigInt64BE(0n, 0);
  head.writeInt32BE(message.length, 8);
  return Buffer.concat([head, message]);
}

describe('Produce, Fetch and ListOffsets', () => {
  let broker: TestBroker;
  let client: RawKafkaClient;

  beforeAll(async () => {
    broker = await startTestBroker({ 'num.partitions': 1 });
    client = await RawKafkaClient.connect(broker.broker.port);
  });
  afterAll(async () => {
    client.close();
    await broker.close();
  });

  it('produces with every Produce version 3-7 and reads the records back with every Fetch version 0-12', async () => {
    expect(await createTopic(client, 'versions')).toBe(ErrorCode.NONE);
    for (let version = 3; version <= 7; version++) {
      const response = await produce(client, version, [{ topic: 'versions', partition: 0, records: batch([`v${version}`]) }]);
      const partition = response.responses[0]!.partitionResponses[0]!;
      expect(partition).toMatchObject({ index: 0, errorCode: ErrorCode.NONE, baseOffset: version - 3 });
      if (version >= 2) expect(partition.logAppendTimeMs).toBe(-1);
      if (version >= 5) expect(partition.logStartOffset).toBe(0);
    }
    for (let version = 0; version <= 12; version++) {
      const response = await fetch(client, version, fetchRequest([{ topic: 'versions', partition: 0, fetchOffset: 0 }]));
      if (version >= 7) expect(response).toMatchObject({ errorCode: ErrorCode.NONE, sessionId: 0 });
      const partition = response.responses[0]!.partitions[0]!;
      expect(partition.errorCode).toBe(ErrorCode.NONE);
      expect(partition.highWatermark).toBe(5);
      expect(values(partition.records)).toEqual(['v3', 'v4', 'v5', 'v6', 'v7']);
      if (version >= 4) {
        expect(partition.lastStableOffset).toBe(5);
        expect(partition.abortedTransactions).toEqual([]);
      }
      if (version >= 5) expect(partition.logStartOffset).toBe(0);
      if (version >= 11) expect(partition.preferredReadReplica).toBe(-1);
    }
  });

  it('checks Fetch v12 last_fetched_epoch (KIP-320): a known epoch reads on, an epoch the leader cannot place is OFFSET_OUT_OF_RANGE', async () => {
    expect(await createTopic(client, 'epochs')).toBe(ErrorCode.NONE);
    await produce(client, 7, [{ topic: 'epochs', partition: 0, records: batch(['a', 'b']) }]);
    const leaderEpoch = (await metadata(client, 8, { topics: [{ name: 'epochs' }] })).topics[0]!.partitions[0]!.leaderEpoch;
    const at = async (fetchOffset: number, lastFetchedEpoch: number) => {
      const request = fetchRequest([{ topic: 'epochs', partition: 0, fetchOffset }]);
      request.topics[0]!.partitions[0]!.lastFetchedEpoch = lastFetchedEpoch;
      request.topics[0]!.partitions[0]!.currentLeaderEpoch = leaderEpoch;
      return (await fetch(client, 12, request)).responses[0]!.partitions[0]!;
    };
    const consistent = await at(1, leaderEpoch);
    expect(consistent).toMatchObject({ errorCode: ErrorCode.NONE, divergingEpoch: { epoch: -1, endOffset: -1 } });
    expect(values(consistent.records)).toEqual(['a', 'b']);
    expect((await at(1, leaderEpoch + 3)).errorCode).toBe(ErrorCode.OFFSET_OUT_OF_RANGE);
    // A consumer never sends a replica id: a Fetch naming a broker outside the replicas is refused.
    const replicaRequest = fetchRequest([{ topic: 'epochs', partition: 0, fetchOffset: 0 }], { replicaId: 42 });
    expect((await fetch(client, 12, replicaRequest)).responses[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NOT_LEADER_OR_FOLLOWER);
  });

  it('encodes an empty (not null) aborted-transactions array for read_committed fetches', async () => {
    const version = 11;
    const response = await fetch(client, version, fetchRequest([{ topic: 'versions', partition: 0, fetchOffset: 0 }], { isolationLevel: 1 }));
    const partition = response.responses[0]!.partitions[0]!;
    expect(partition.abortedTransactions).not.toBeNull();
    expect(partition.abortedTransactions).toEqual([]);
  });

  it('refuses legacy message sets on Produce v0-2 with UNSUPPORTED_FOR_MESSAGE_FORMAT and stores nothing', async () => {
    expect(await createTopic(client, 'legacy')).toBe(ErrorCode.NONE);
    for (let version = 0; version <= 2; version++) {
      const response = await produce(client, version, [{ topic: 'legacy', partition: 0, records: legacyMessageSet('old') }]);
      expect(response.responses[0]!.partitionResponses[0]).toMatchObject({ errorCode: ErrorCode.UNSUPPORTED_FOR_MESSAGE_FORMAT, baseOffset: -1 });
    }
    const fetched = await fetch(client, 4, fetchRequest([{ topic: 'legacy', partition: 0, fetchOffset: 0 }]));
    expect(fetched.responses[0]!.partitions[0]!.highWatermark).toBe(0);
  });

  it('refuses a Produce v3+ partition carrying two batches with INVALID_RECORD', async () => {
    const response = await produce(client, 7, [{ topic: 'versions', partition: 0, records: Buffer.concat([batch(['a']), batch(['b'])]) }]);
    expect(response.responses[0]!.partitionResponses[0]!.errorCode).toBe(ErrorCode.INVALID_RECORD);
  });

  it('fails only the partition whose batch has a bad CRC with CORRUPT_MESSAGE', async () => {
    expect(await createTopic(client, 'crc', 2)).toBe(ErrorCode.NONE);
    const corrupt = batch(['corrupt-me']);
    corrupt[corrupt.length - 3] ^= 0xff;
    const response = await produce(client, 7, [
      { topic: 'crc', partition: 0, records: corrupt },
      { topic: 'crc', partition: 1, records: batch(['fine']) },
    ]);
    const [p0, p1] = response.responses[0]!.partitionResponses;
    expect(p0).toMatchObject({ index: 0, errorCode: ErrorCode.CORRUPT_MESSAGE, baseOffset: -1 });
    expect(p1).toMatchObject({ index: 1, errorCode: ErrorCode.NONE, baseOffset: 0 });
  });

  it('answers MESSAGE_TOO_LARGE for a batch above max.message.bytes', async () => {
    expect(await createTopic(client, 'small', 1, [{ name: 'max.message.bytes', value: '1000' }])).toBe(ErrorCode.NONE);
    const response = await produce(client, 7, [{ topic: 'small', partition: 0, records: batch(['x'.repeat(2000)]) }]);
    expect(response.responses[0]!.partitionResponses[0]!.errorCode).toBe(ErrorCode.MESSAGE_TOO_LARGE);
    const ok = await produce(client, 7, [{ topic: 'small', partition: 0, records: batch(['x'.repeat(100)]) }]);
    expect(ok.responses[0]!.partitionResponses[0]!.errorCode).toBe(ErrorCode.NONE);
  });

  it('never answers acks=0, yet answers the next request on that connection in order', async () => {
    const own = await RawKafkaClient.connect(broker.broker.port);
    try {
      expect(await createTopic(own, 'acks0')).toBe(ErrorCode.NONE);
      own.sendRequest(ApiKey.Produce, 7, encodeProduceRequest, {
        transactionalId: null, acks: 0, timeoutMs: 1000,
        topicData: [{ name: 'acks0', partitionData: [{ index: 0, records: batch(['fire-and-forget']) }] }],
      });
      const correlationId = own.sendRequest(ApiKey.ApiVersions, 0, encodeApiVersionsRequest, {});
      // readResponse checks the correlation id: a response to the acks=0 Produce would fail here.
      const versions = await own.readResponse(ApiKey.ApiVersions, 0, decodeApiVersionsResponse, correlationId);
      expect(versions.errorCode).toBe(ErrorCode.NONE);
      const fetched = await fetch(own, 11, fetchRequest([{ topic: 'acks0', partition: 0, fetchOffset: 0 }]));
      expect(values(fetched.responses[0]!.partitions[0]!.records)).toEqual(['fire-and-forget']);
    } finally {
      own.close();
    }
  });

  it('answers acks=-1 once the high watermark covers the append', async () => {
    const response = await produce(client, 7, [{ topic: 'versions', partition: 0, records: batch(['all']) }], { acks: -1 });
    const partition = response.responses[0]!.partitionResponses[0]!;
    expect(partition.errorCode).toBe(ErrorCode.NONE);
    const fetched = await fetch(client, 11, fetchRequest([{ topic: 'versions', partition: 0, fetchOffset: partition.baseOffset }]));
    expect(fetched.responses[0]!.partitions[0]!.highWatermark).toBe(partition.baseOffset + 1);
  });

  it('acknowledges an idempotent retry with the original offsets and appends nothing', async () => {
    expect(await createTopic(client, 'idempotent')).toBe(ErrorCode.NONE);
    const init = await client.request(ApiKey.InitProducerId, 4, encodeInitProducerIdRequest, decodeInitProducerIdResponse,
      { transactionalId: null, transactionTimeoutMs: 60000, producerId: -1, producerEpoch: -1 });
    expect(init.errorCode).toBe(ErrorCode.NONE);
    const ids = { producerId: init.producerId, producerEpoch: init.producerEpoch };
    const first = batch(['a', 'b'], { ...ids, baseSequence: 0 });
    const second = batch(['c'], { ...ids, baseSequence: 2 });
    const r1 = await produce(client, 7, [{ topic: 'idempotent', partition: 0, records: first }], { acks: -1 });
    const r2 = await produce(client, 7, [{ topic: 'idempotent', partition: 0, records: second }], { acks: -1 });
    const retry = await produce(client, 7, [{ topic: 'idempotent', partition: 0, records: first }], { acks: -1 });
    expect(r1.responses[0]!.partitionResponses[0]!.baseOffset).toBe(0);
    expect(r2.responses[0]!.partitionResponses[0]!.baseOffset).toBe(2);
    expect(retry.responses[0]!.partitionResponses[0]).toMatchObject({ errorCode: ErrorCode.NONE, baseOffset: 0 });
    const gap = await produce(client, 7, [{ topic: 'idempotent', partition: 0, records: batch(['z'], { ...ids, baseSequence: 9 }) }]);
    expect(gap.responses[0]!.partitionResponses[0]!.errorCode).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    const fetched = await fetch(client, 11, fetchRequest([{ topic: 'idempotent', partition: 0, fetchOffset: 0 }]));
    expect(values(fetched.responses[0]!.partitions[0]!.records)).toEqual(['a', 'b', 'c']);
  });

  it('answers a Produce to an unknown topic UNKNOWN_TOPIC_OR_PARTITION and creates nothing, as Kafka (Metadata auto-creates)', async () => {
    const response = await produce(client, 7, [{ topic: 'born-on-produce', partition: 0, records: batch(['first']) }]);
    expect(response.responses[0]!.partitionResponses[0]).toMatchObject({ errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, baseOffset: -1 });
    const meta = await metadata(client, 4, { topics: [{ name: 'born-on-produce' }], allowAutoTopicCreation: false });
    expect(meta.topics[0]).toMatchObject({ name: 'born-on-produce', errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION });
  });

  it('answers UNKNOWN_TOPIC_OR_PARTITION for a partition beyond the topic', async () => {
    const response = await produce(client, 7, [{ topic: 'versions', partition: 7, records: batch(['nowhere']) }]);
    expect(response.responses[0]!.partitionResponses[0]!.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  });

  it('never creates __consumer_offsets for a Produce, and refuses appends to it with INVALID_TOPIC_EXCEPTION', async () => {
    const before = await produce(client, 7, [{ topic: '__consumer_offsets', partition: 0, records: batch(['sneaky']) }]);
    expect(before.responses[0]!.partitionResponses[0]!.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    expect((await metadata(client, 1, { topics: null })).topics.map((t) => t.name)).not.toContain('__consumer_offsets');
    await client.request(ApiKey.FindCoordinator, 2, encodeFindCoordinatorRequest, decodeFindCoordinatorResponse, { key: 'g', keyType: 0 });
    const after = await produce(client, 7, [{ topic: '__consumer_offsets', partition: 0, records: batch(['sneaky']) }]);
    expect(after.responses[0]!.partitionResponses[0]!.errorCode).toBe(ErrorCode.INVALID_TOPIC_EXCEPTION);
  });

  it('stamps LogAppendTime batches with the broker time and says so in the Produce response', async () => {
    expect(await createTopic(client, 'append-time', 1, [{ name: 'message.timestamp.type', value: 'LogAppendTime' }])).toBe(ErrorCode.NONE);
    const before = Date.now();
    const response = await produce(client, 7, [{ topic: 'append-time', partition: 0, records: batch(['t'], { baseTimestamp: 1000 }) }]);
    const logAppendTimeMs = response.responses[0]!.partitionResponses[0]!.logAppendTimeMs;
    expect(logAppendTimeMs).toBeGreaterThanOrEqual(before);
    const fetched = await fetch(client, 11, fetchRequest([{ topic: 'append-time', partition: 0, fetchOffset: 0 }]));
    const { headers, records } = decodeRecords(fetched.responses[0]!.partitions[0]!.records);
    expect(headers[0]!.timestampType).toBe(1);
    expect(records[0]!.timestamp).toBe(logAppendTimeMs);
  });

  it('long-polls a fetch at the log end until a produce arrives on another connection', async () => {
    expect(await createTopic(client, 'long-poll')).toBe(ErrorCode.NONE);
    const waiter = await RawKafkaClient.connect(broker.broker.port);
    try {
      const pending = fetch(waiter, 11, fetchRequest([{ topic: 'long-poll', partition: 0, fetchOffset: 0 }], { maxWaitMs: 30000, minBytes: 1 }));
      await produce(client, 7, [{ topic: 'long-poll', partition: 0, records: batch(['wake up']) }]);
      const response = await pending;
      expect(values(response.responses[0]!.partitions[0]!.records)).toEqual(['wake up']);
    } finally {
      waiter.close();
    }
  });

  it('answers a fetch with nothing to read once max.wait.ms passes', async () => {
    const response = await fetch(client, 11, fetchRequest([{ topic: 'long-poll', partition: 0, fetchOffset: 1 }], { maxWaitMs: 20, minBytes: 1 }));
    expect(response.responses[0]!.partitions[0]).toMatchObject({ errorCode: ErrorCode.NONE, highWatermark: 1 });
    expect(response.responses[0]!.partitions[0]!.records?.length ?? 0).toBe(0);
  });

  it('returns the first batch whole even above max_bytes (v3+), and nothing more', async () => {
    expect(await createTopic(client, 'limits')).toBe(ErrorCode.NONE);
    await produce(client, 7, [{ topic: 'limits', partition: 0, records: batch(['first-batch-'.repeat(10)]) }]);
    await produce(client, 7, [{ topic: 'limits', partition: 0, records: batch(['second']) }]);
    const response = await fetch(client, 11, fetchRequest([{ topic: 'limits', partition: 0, fetchOffset: 0 }], { maxBytes: 1 }));
    expect(values(response.responses[0]!.partitions[0]!.records)).toEqual(['first-batch-'.repeat(10)]);
    const small = await fetch(client, 11, fetchRequest([{ topic: 'limits', partition: 0, fetchOffset: 0, partitionMaxBytes: 1 }]));
    expect(values(small.responses[0]!.partitions[0]!.records)).toEqual(['first-batch-'.repeat(10)]);
  });

  it('returns large record blobs intact (sent to the socket by reference, in chunks of one frame)', async () => {
    expect(await createTopic(client, 'large', 2)).toBe(ErrorCode.NONE);
    const big = 'x'.repeat(200_000);
    await produce(client, 7, [{ topic: 'large', partition: 0, records: batch([big]) }, { topic: 'large', partition: 1, records: batch(['small', big]) }]);
    for (const version of [0, 4, 11, 12]) {
      const response = await fetch(client, version, fetchRequest([
        { topic: 'large', partition: 0, fetchOffset: 0 },
        { topic: 'large', partition: 1, fetchOffset: 0 },
      ]));
      expect(values(response.responses[0]!.partitions[0]!.records)).toEqual([big]);
      expect(values(response.responses[0]!.partitions[1]!.records)).toEqual(['small', big]);
    }
  });

  it('answers OFFSET_OUT_OF_RANGE past the log end and UNKNOWN_TOPIC_OR_PARTITION for unknown topics', async () => {
    const response = await fetch(client, 11, fetchRequest([
      { topic: 'limits', partition: 0, fetchOffset: 99 },
      { topic: 'no-such-topic', partition: 0, fetchOffset: 0 },
    ]));
    expect(response.responses[0]!.partitions[0]).toMatchObject({ errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, highWatermark: -1 });
    expect(response.responses[1]!.partitions[0]!.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  });

  it('stays sessionless: session id 0 with epoch 0 is a full fetch, a non-zero session id is refused', async () => {
    const open = await fetch(client, 11, fetchRequest([{ topic: 'limits', partition: 0, fetchOffset: 0 }], { sessionEpoch: 0 }));
    expect(open).toMatchObject({ errorCode: ErrorCode.NONE, sessionId: 0 });
    const unknown = await fetch(client, 11, fetchRequest([{ topic: 'limits', partition: 0, fetchOffset: 0 }], { sessionId: 1234, sessionEpoch: 1 }));
    expect(unknown).toMatchObject({ errorCode: ErrorCode.FETCH_SESSION_ID_NOT_FOUND, responses: [] });
    const badEpoch = await fetch(client, 11, fetchRequest([{ topic: 'limits', partition: 0, fetchOffset: 0 }], { sessionEpoch: 5 }));
    expect(badEpoch.errorCode).toBe(ErrorCode.INVALID_FETCH_SESSION_EPOCH);
  });

  it('answers ListOffsets v0-3 for earliest, latest and by timestamp', async () => {
    expect(await createTopic(client, 'times')).toBe(ErrorCode.NONE);
    await produce(client, 7, [{ topic: 'times', partition: 0, records: batch(['t1000'], { baseTimestamp: 1000 }) }]);
    await produce(client, 7, [{ topic: 'times', partition: 0, records: batch(['t2000'], { baseTimestamp: 2000 }) }]);
    for (let version = 0; version <= 3; version++) {
      const ask = async (timestamp: number, isolationLevel = 0) => {
        const response = await client.request(ApiKey.ListOffsets, version, encodeListOffsetsRequest, decodeListOffsetsResponse, {
          replicaId: -1, isolationLevel,
          topics: [{ name: 'times', partitions: [{ partitionIndex: 0, timestamp, maxNumOffsets: 1 }] }],
        });
        return response.topics[0]!.partitions[0]!;
      };
      if (version === 0) {
        expect((await ask(-2)).oldStyleOffsets).toEqual([0]);
        expect((await ask(-1)).oldStyleOffsets).toEqual([2]);
        continue;
      }
      expect(await ask(-2)).toMatchObject({ errorCode: ErrorCode.NONE, offset: 0 });
      expect(await ask(-1)).toMatchObject({ errorCode: ErrorCode.NONE, offset: 2 });
      expect(await ask(1500)).toMatchObject({ errorCode: ErrorCode.NONE, offset: 1, timestamp: 2000 });
      expect(await ask(999)).toMatchObject({ offset: 0, timestamp: 1000 });
      expect(await ask(5000)).toMatchObject({ errorCode: ErrorCode.NONE, offset: -1, timestamp: -1 });
      if (version >= 2) expect(await ask(-1, 1)).toMatchObject({ offset: 2 });
    }
    const unknown = await client.request(ApiKey.ListOffsets, 1, encodeListOffsetsRequest, decodeListOffsetsResponse, {
      replicaId: -1, topics: [{ name: 'nope', partitions: [{ partitionIndex: 0, timestamp: -1 }] }],
    });
    expect(unknown.topics[0]!.partitions[0]).toMatchObject({ errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, offset: -1 });
  });

  it('decodes a Produce response of every version 0-7 (v0-2 only carry refusals)', async () => {
    for (let version = 0; version <= 7; version++) {
      const response = await client.request(ApiKey.Produce, version, encodeProduceRequest, decodeProduceResponse, {
        transactionalId: null, acks: 1, timeoutMs: 1000,
        topicData: [{ name: 'versions', partitionData: [{ index: 0, records: version >= 3 ? batch([`again${version}`]) : legacyMessageSet('x') }] }],
      });
      const expected = version >= 3 ? ErrorCode.NONE : ErrorCode.UNSUPPORTED_FOR_MESSAGE_FORMAT;
      expect(response.responses[0]!.partitionResponses[0]!.errorCode).toBe(expected);
    }
  });
});
