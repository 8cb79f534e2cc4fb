import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type MetadataRecord,
  MetadataRecordError,
  decodeMetadataRecord,
  encodeMetadataRecord,
  encodeMetadataRecords,
  metadataRecord,
} from '../../host/controller/metadata-records.js';

const TOPIC_ID = '000102030405060708090a0b0c0d0e0f';

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

describe('metadata record framing', () => {
  it('encodes a list of records into one buffer, each value the bytes encodeMetadataRecord gives', () => {
    const records = [
      metadataRecord('TopicRecord', 0, { name: 'foo', topicId: TOPIC_ID }),
      // Enough PartitionRecords to grow the shared buffer several times.
      ...Array.from({ length: 300 }, (_, partitionId) => metadataRecord('PartitionRecord', 0, {
        partitionId, topicId: TOPIC_ID, replicas: [1, 2, 3].slice(0, 1 + (partitionId % 3)), isr: [1], removingReplicas: [], addingReplicas: [],
        leader: 1, leaderRecoveryState: 0, leaderEpoch: partitionId, partitionEpoch: 0, directories: [], eligibleLeaderReplicas: null, lastKnownElr: null,
      })),
      metadataRecord('ConfigRecord', 0, { resourceType: 2, resourceName: 'foo', name: 'retention.ms', value: '1'.repeat(500) }),
    ];
    const values = encodeMetadataRecords(records);
    expect(values.map(hex)).toEqual(records.map((record) => hex(encodeMetadataRecord(record))));
    expect(new Set(values.map((value) => value.buffer)).size).toBe(1);
    expect(encodeMetadataRecords([])).toEqual([]);
  });

  it('frames a TopicRecord as Kafka does: frame version 1, api key 2, version 0, then the flexible body', () => {
    const bytes = encodeMetadataRecord(metadataRecord('TopicRecord', 0, { name: 'foo', topicId: TOPIC_ID }));
    // 01 frame version | 02 api key | 00 version | 04 "foo" (compact string) | 16-byte uuid | 00 no tagged fields
    expect(hex(bytes)).toBe(`010200` + `04666f6f` + TOPIC_ID + `00`);
  });

  it('writes a PartitionChangeRecord\'s ISR as tagged field 0 and leaves the unchanged leader out', () => {
    const record = metadataRecord('PartitionChangeRecord', 0, {
      partitionId: 0, topicId: TOPIC_ID, isr: [1], leader: -2, replicas: null, removingReplicas: null, addingReplicas: null,
      leaderRecoveryState: -1, directories: null, eligibleLeaderReplicas: null, lastKnownElr: null,
    });
    // 01 05 00 | partition 0 | uuid | 1 tagged field: tag 0, size 5, compact array [1]
    expect(hex(encodeMetadataRecord(record))).toBe(`010500` + `00000000` + TOPIC_ID + `01` + `0005` + `0200000001`);
  });

  it('round-trips every record type the controller writes', () => {
    const records: MetadataRecord[] = [
      metadataRecord('RegisterBrokerRecord', 2, {
        brokerId: 1, isMigratingZkBroker: false, incarnationId: TOPIC_ID, brokerEpoch: 17,
        endPoints: [{ name: 'PLAINTEXT', host: 'localhost', port: 9092, securityProtocol: 0 }],
        features: [{ name: 'metadata.version', minSupportedVersion: 1, maxSupportedVersion: 14 }],
        rack: null, fenced: false, inControlledShutdown: false, logDirs: [],
      }),
      metadataRecord('TopicRecord', 0, { name: 't', topicId: TOPIC_ID }),
      metadataRecord('PartitionRecord', 0, {
        partitionId: 3, topicId: TOPIC_ID, replicas: [1, 2], isr: [1], removingReplicas: [], addingReplicas: [],
        leader: 1, leaderRecoveryState: 0, leaderEpoch: 4, partitionEpoch: 5, directories: [], eligibleLeaderReplicas: null, lastKnownElr: null,
      }),
      metadataRecord('ConfigRecord', 0, { resourceType: 2, resourceName: 't', name: 'retention.ms', value: null }),
      metadataRecord('RemoveTopicRecord', 0, { topicId: TOPIC_ID }),
      metadataRecord('ProducerIdsRecord', 0, { brokerId: 1, brokerEpoch: 17, nextProducerId: 2 ** 40 }),
      metadataRecord('FeatureLevelRecord', 0, { name: 'metadata.version', featureLevel: 14 }),
      metadataRecord('BrokerRegistrationChangeRecord', 1, { brokerId: 1, brokerEpoch: 17, fenced: -1, inControlledShutdown: 0, logDirs: [] }),
      metadataRecord('UnregisterBrokerRecord', 0, { brokerId: 1, brokerEpoch: 17 }),
      metadataRecord('NoOpRecord', 0, {}),
    ];
    for (const record of records) expect(decodeMetadataRecord(encodeMetadataRecord(record))).toEqual(record);
  });

  it('refuses an unknown frame version, an unknown record type, a newer version and trailing bytes', () => {
    const good = encodeMetadataRecord(metadataRecord('TopicRecord', 0, { name: 'foo', topicId: TOPIC_ID }));
    const variants = [
      Buffer.concat([Buffer.from([2]), good.subarray(1)]),
      Buffer.concat([Buffer.from([1, 99, 0]), good.subarray(3)]),
      Buffer.concat([Buffer.from([1, 2, 1]), good.subarray(3)]),
      Buffer.concat([good, Buffer.from([0])]),
      good.subarray(0, good.length - 1),
    ];
    for (const bytes of variants) expect(() => decodeMetadataRecord(bytes)).toThrow(MetadataRecordError);
  });

  it('never throws anything but MetadataRecordError on arbitrary bytes', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
      try {
        decodeMetadataRecord(bytes);
      } catch (error) {
        expect(error).toBeInstanceOf(MetadataRecordError);
      }
    }), { numRuns: 500 });
  });
});
