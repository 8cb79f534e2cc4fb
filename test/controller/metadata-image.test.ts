import { describe, expect, it } from 'vitest';
import { MetadataImage, MetadataReplayError } from '../../host/controller/metadata-image.js';
import { metadataRecord } from '../../host/controller/metadata-records.js';

const ID = 'aa'.repeat(16);

function partition(partitionId: number, topicId = ID) {
  return metadataRecord('PartitionRecord', 0, {
    partitionId, topicId, replicas: [1], isr: [1], removingReplicas: [], addingReplicas: [], leader: 1,
    leaderRecoveryState: 0, leaderEpoch: 0, partitionEpoch: 0, directories: [], eligibleLeaderReplicas: null, lastKnownElr: null,
  });
}

describe('MetadataImage', () => {
  it('hands out snapshots that later records replace instead of changing', () => {
    const image = new MetadataImage();
    image.replay(metadataRecord('TopicRecord', 0, { name: 't', topicId: ID }));
    image.replay(partition(0));
    const before = image.topic('t')!;
    image.replay(partition(1));
    expect(before.partitions).toHaveLength(1);
    expect(Object.isFrozen(before)).toBe(true);
    expect(image.topic('t')!.partitions).toHaveLength(2);
    expect(image.totalPartitionCount).toBe(2);
  });

  it('bumps the leader epoch only when a change names a leader, and the partition epoch on every change', () => {
    const image = new MetadataImage();
    image.replay(metadataRecord('TopicRecord', 0, { name: 't', topicId: ID }));
    image.replay(partition(0));
    const change = (isr: number[] | null, leader: number) => metadataRecord('PartitionChangeRecord', 0, {
      partitionId: 0, topicId: ID, isr, leader, replicas: null, removingReplicas: null, addingReplicas: null,
      leaderRecoveryState: -1, directories: null, eligibleLeaderReplicas: null, lastKnownElr: null,
    });
    image.replay(change([1, 2], -2));
    expect(image.partition('t', 0)).toMatchObject({ isr: [1, 2], leader: 1, leaderEpoch: 0, partitionEpoch: 1 });
    image.replay(change(null, 2));
    expect(image.partition('t', 0)).toMatchObject({ isr: [1, 2], leader: 2, leaderEpoch: 1, partitionEpoch: 2 });
  });

  it('applies and removes config overrides and drops a deleted topic\'s configs', () => {
    const image = new MetadataImage();
    image.replay(metadataRecord('TopicRecord', 0, { name: 't', topicId: ID }));
    image.replay(metadataRecord('ConfigRecord', 0, { resourceType: 2, resourceName: 't', name: 'retention.ms', value: '5' }));
    image.replay(metadataRecord('ConfigRecord', 0, { resourceType: 4, resourceName: '', name: 'x', value: '1' }));
    expect([...image.topicConfigs('t')]).toEqual([['retention.ms', '5']]);
    expect([...image.brokerConfigs('')]).toEqual([['x', '1']]);
    image.replay(metadataRecord('RemoveTopicRecord', 0, { topicId: ID }));
    expect(image.topicConfigs('t').size).toBe(0);
    expect(image.topic('t')).toBeUndefined();
    expect(image.totalPartitionCount).toBe(0);
  });

  it('refuses records that contradict it as corrupt metadata', () => {
    const image = new MetadataImage();
    expect(() => image.replay(partition(0))).toThrow(MetadataReplayError);
    image.replay(metadataRecord('TopicRecord', 0, { name: 't', topicId: ID }));
    expect(() => image.replay(metadataRecord('TopicRecord', 0, { name: 't', topicId: 'bb'.repeat(16) }))).toThrow(MetadataReplayError);
    expect(() => image.replay(metadataRecord('TopicRecord', 0, { name: 'u', topicId: ID }))).toThrow(MetadataReplayError);
    expect(() => image.replay(partition(1))).toThrow(/gap/);
    expect(() => image.replay(metadataRecord('RemoveTopicRecord', 0, { topicId: 'cc'.repeat(16) }))).toThrow(MetadataReplayError);
    image.replay(metadataRecord('ProducerIdsRecord', 0, { brokerId: 1, brokerEpoch: 0, nextProducerId: 1000 }));
    expect(() => image.replay(metadataRecord('ProducerIdsRecord', 0, { brokerId: 1, brokerEpoch: 0, nextProducerId: 1000 }))).toThrow(MetadataReplayError);
    expect(() => image.replay(metadataRecord('FenceBrokerRecord', 0, { id: 1, epoch: 0 }))).toThrow(MetadataReplayError);
  });
});
