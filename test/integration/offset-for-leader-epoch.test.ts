import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import {
  decodeOffsetForLeaderEpochResponse,
  encodeOffsetForLeaderEpochRequest,
  type OffsetForLeaderPartitionInit,
} from '../../host/protocol/generated/offset-for-leader-epoch.js';
import { startTestBroker, type TestBroker } from './in-process-broker.js';
import { RawKafkaClient } from './raw-kafka-client.js';
import { batch, createTopic, metadata, produce } from './requests.js';

describe('OffsetForLeaderEpoch over the wire', () => {
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

  function ask(version: number, topic: string, partitions: OffsetForLeaderPartitionInit[]) {
    return client.request(ApiKey.OffsetForLeaderEpoch, version, encodeOffsetForLeaderEpochRequest, decodeOffsetForLeaderEpochResponse,
      { replicaId: -1, topics: [{ topic, partitions }] });
  }

  it('answers every version 0-4 with the leader epoch and its end offset, and Kafka errors', async () => {
    expect(await createTopic(client, 'epochs', 2)).toBe(ErrorCode.NONE);
    const produced = await produce(client, 7, [{ topic: 'epochs', partition: 0, records: batch(['a', 'b', 'c']) }]);
    expect(produced.responses[0]!.partitionResponses[0]!.errorCode).toBe(ErrorCode.NONE);
    const meta = await metadata(client, 8, { topics: [{ name: 'epochs' }] });
    const leaderEpoch = meta.topics[0]!.partitions[0]!.leaderEpoch;
    for (let version = 0; version <= 4; version++) {
      const response = await ask(version, 'epochs', [
        { partition: 0, currentLeaderEpoch: leaderEpoch, leaderEpoch },
        { partition: 1, currentLeaderEpoch: -1, leaderEpoch },
        { partition: 7, currentLeaderEpoch: -1, leaderEpoch },
      ]);
      const [written, empty, unknown] = response.topics[0]!.partitions;
      expect(written).toMatchObject({ errorCode: 0, partition: 0, endOffset: 3, leaderEpoch: version >= 1 ? leaderEpoch : -1 });
      expect(empty).toMatchObject({ errorCode: 0, partition: 1, endOffset: -1, leaderEpoch: -1 });
      expect(unknown).toMatchObject({ errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, endOffset: -1 });
    }
    const fenced = await ask(2, 'epochs', [{ partition: 0, currentLeaderEpoch: leaderEpoch + 1, leaderEpoch }]);
    expect(fenced.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.UNKNOWN_LEADER_EPOCH);
    const missing = await ask(4, 'no-such-topic', [{ partition: 0, currentLeaderEpoch: -1, leaderEpoch: 0 }]);
    expect(missing.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  });
});
