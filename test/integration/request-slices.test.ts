/**
 * Requests naming very many partitions or groups are worked through in slices that yield to the
 * event loop (host/api/request-slices.ts, issue 15); the answers are whole and in request order,
 * and another client's request sent meanwhile is answered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { decodeDeleteRecordsResponse, encodeDeleteRecordsRequest } from '../../host/protocol/generated/delete-records.js';
import { decodeDescribeGroupsResponse, encodeDescribeGroupsRequest } from '../../host/protocol/generated/describe-groups.js';
import { decodeDescribeProducersResponse, encodeDescribeProducersRequest } from '../../host/protocol/generated/describe-producers.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { decodeListOffsetsResponse, encodeListOffsetsRequest } from '../../host/protocol/generated/list-offsets.js';
import { startTestBroker, type TestBroker } from './in-process-broker.js';
import { RawKafkaClient } from './raw-kafka-client.js';
import { batch, createTopic, metadata, produce } from './requests.js';

describe('Requests over very long lists are answered in slices (issue 15)', () => {
  let broker: TestBroker;
  let client: RawKafkaClient;
  let other: RawKafkaClient;

  beforeAll(async () => {
    broker = await startTestBroker();
    client = await RawKafkaClient.connect(broker.broker.port);
    other = await RawKafkaClient.connect(broker.broker.port);
    expect(await createTopic(client, 'sliced', 3)).toBe(ErrorCode.NONE);
    for (let p = 0; p < 3; p++) await produce(client, 3, [{ topic: 'sliced', partition: p, records: batch(['a', 'b']) }]);
  });
  afterAll(async () => {
    client.close();
    other.close();
    await broker.close();
  });

  it('ListOffsets of 3000 partitions: every answer in order, while another client is answered', async () => {
    const partitions = Array.from({ length: 3000 }, (_, i) => ({ partitionIndex: i, timestamp: -1 }));
    const listed = client.request(ApiKey.ListOffsets, 1, encodeListOffsetsRequest, decodeListOffsetsResponse, { replicaId: -1, topics: [{ name: 'sliced', partitions }] });
    const meta = await metadata(other, 1, { topics: [] });
    expect(meta.brokers).toHaveLength(1);
    const answer = (await listed).topics[0]!.partitions;
    expect(answer.map((p) => p.partitionIndex)).toEqual(partitions.map((p) => p.partitionIndex));
    expect(answer.slice(0, 4).map((p) => [p.errorCode, p.offset])).toEqual([[0, 2], [0, 2], [0, 2], [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1]]);
  });

  it('DeleteRecords of 200 partitions and DescribeGroups of 1200 groups: whole answers in request order', async () => {
    const deleted = await client.request(ApiKey.DeleteRecords, 0, encodeDeleteRecordsRequest, decodeDeleteRecordsResponse, {
      topics: [{ name: 'sliced', partitions: Array.from({ length: 200 }, (_, i) => ({ partitionIndex: i, offset: 1 })) }], timeoutMs: 5000,
    });
    const partitions = deleted.topics[0]!.partitions;
    expect(partitions.map((p) => p.partitionIndex)).toEqual(Array.from({ length: 200 }, (_, i) => i));
    expect(partitions.slice(0, 4).map((p) => [p.errorCode, p.lowWatermark])).toEqual([[0, 1], [0, 1], [0, 1], [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1]]);
    const groups = Array.from({ length: 1200 }, (_, i) => `group-${i}`);
    const described = await client.request(ApiKey.DescribeGroups, 1, encodeDescribeGroupsRequest, decodeDescribeGroupsResponse, { groups, includeAuthorizedOperations: false });
    expect(described.groups.map((g) => g.groupId)).toEqual(groups);
    expect(new Set(described.groups.map((g) => g.groupState))).toEqual(new Set(['Dead']));
  });

  it('DescribeProducers of 3000 partitions and of an unknown topic: whole answers in request order', async () => {
    const partitionIndexes = Array.from({ length: 3000 }, (_, i) => i);
    const described = await client.request(ApiKey.DescribeProducers, 0, encodeDescribeProducersRequest, decodeDescribeProducersResponse, {
      topics: [{ name: 'sliced', partitionIndexes }, { name: 'no-such-topic', partitionIndexes: [0, 1] }],
    });
    expect(described.topics.map((t) => t.name)).toEqual(['sliced', 'no-such-topic']);
    const partitions = described.topics[0]!.partitions;
    expect(partitions.map((p) => p.partitionIndex)).toEqual(partitionIndexes);
    expect(partitions.slice(0, 4).map((p) => p.errorCode)).toEqual([0, 0, 0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]);
    expect(described.topics[1]!.partitions.map((p) => [p.partitionIndex, p.errorCode])).toEqual([[0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION], [1, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]]);
  });
});
