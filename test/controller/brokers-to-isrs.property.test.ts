/**
 * BrokersToIsrs inside the MetadataImage (Kafka's index of partitions by ISR member and by
 * leader) against a brute-force walk of every partition, after every record of random histories:
 * topics created with partitions, ISR and leader changes (to none, too), topics removed, images
 * copied and assigned midway. The controller's fencing, unfencing and unregistering trust it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TopicIdPartition } from '../../host/controller/brokers-to-isrs.js';
import { MetadataImage, NO_LEADER, NO_LEADER_CHANGE, type PartitionRegistration } from '../../host/controller/metadata-image.js';
import { metadataRecord, type MetadataRecord } from '../../host/controller/metadata-records.js';

const BROKERS = [0, 1, 2, 3, 4];
const topicId = (index: number): string => index.toString(16).padStart(32, '0');

type Step =
  | { kind: 'create'; topic: number; partitions: { isr: number[]; leader: number }[] }
  | { kind: 'change'; topic: number; partition: number; isr: number[] | null; leader: number }
  | { kind: 'remove'; topic: number }
  | { kind: 'copy' } | { kind: 'assign' };

const brokerSet = fc.subarray(BROKERS, { minLength: 0, maxLength: 4 });
const leaderOf = (isr: readonly number[], pick: number): number => (isr.length === 0 || pick < 0 ? NO_LEADER : isr[pick % isr.length]!);
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('create' as const), topic: fc.nat(5),
    partitions: fc.array(fc.tuple(brokerSet, fc.integer({ min: -1, max: 3 })).map(([isr, pick]) => ({ isr, leader: leaderOf(isr, pick) })), { minLength: 1, maxLength: 4 }),
  }),
  fc.tuple(fc.nat(5), fc.nat(3), fc.option(brokerSet), fc.integer({ min: -2, max: 3 })).map(([topic, partition, isr, pick]): Step =>
    ({ kind: 'change', topic, partition, isr, leader: pick === -2 ? NO_LEADER_CHANGE : leaderOf(isr ?? BROKERS, pick) })),
  fc.record({ kind: fc.constant('remove' as const), topic: fc.nat(5) }),
  fc.constant({ kind: 'copy' as const }),
  fc.constant({ kind: 'assign' as const }),
);

/** The records of a step that fit the image (steps on missing topics or partitions are skipped). */
function records(image: MetadataImage, s: Step): MetadataRecord[] {
  const id = topicId(s.kind === 'copy' || s.kind === 'assign' ? 0 : s.topic);
  const exists = image.topicNameById(id) !== undefined;
  if (s.kind === 'create') {
    if (exists) return [];
    return [
      metadataRecord('TopicRecord', 0, { name: `t${s.kind === 'create' ? s.topic : 0}`, topicId: id }),
      ...s.partitions.map((p, partitionId) => metadataRecord('PartitionRecord', 0, {
        partitionId, topicId: id, replicas: BROKERS, isr: p.isr, removingReplicas: [], addingReplicas: [], leader: p.leader,
        leaderRecoveryState: 0, leaderEpoch: 0, partitionEpoch: 0, directories: [], eligibleLeaderReplicas: null, lastKnownElr: null,
      })),
    ];
  }
  if (s.kind === 'change') {
    if (image.partitionById(id, s.partition) === undefined) return [];
    return [metadataRecord('PartitionChangeRecord', 0, {
      partitionId: s.partition, topicId: id, isr: s.isr, leader: s.leader, replicas: null, removingReplicas: null, addingReplicas: null,
      leaderRecoveryState: -1, directories: null, eligibleLeaderReplicas: null, lastKnownElr: null,
    })];
  }
  if (s.kind === 'remove') return exists ? [metadataRecord('RemoveTopicRecord', 0, { topicId: id })] : [];
  return [];
}

const key = (p: TopicIdPartition): string => `${p.topicId}:${p.partitionId}`;
const sorted = (partitions: readonly TopicIdPartition[]): string[] => partitions.map(key).sort();

/** The brute-force answers: walk every partition of every topic. */
function walk(image: MetadataImage, select: (p: PartitionRegistration) => boolean): string[] {
  const result: TopicIdPartition[] = [];
  for (const topic of image.topics()) for (const p of topic.partitions) if (select(p)) result.push({ topicId: topic.topicId, partitionId: p.partitionId });
  return sorted(result);
}

function expectIndexMatchesWalk(image: MetadataImage): void {
  for (const brokerId of [...BROKERS, 5]) {
    expect(sorted(image.partitionsWithBrokerInIsr(brokerId))).toEqual(walk(image, (p) => p.isr.includes(brokerId)));
    expect(sorted(image.partitionsLedBy(brokerId))).toEqual(walk(image, (p) => p.leader === brokerId));
    expect(image.leadsAnyPartition(brokerId)).toBe(walk(image, (p) => p.leader === brokerId).length > 0);
  }
  expect(sorted(image.partitionsLedBy(NO_LEADER))).toEqual(walk(image, (p) => p.leader === NO_LEADER));
}

describe('BrokersToIsrs in the MetadataImage', () => {
  it('answers as a walk of every partition after every record, across copies and assigns', () => {
    fc.assert(fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
      let image = new MetadataImage();
      const earlier: MetadataImage[] = [];
      for (const s of steps) {
        if (s.kind === 'copy') {
          // A copy keeps its own index: the original moves on, the copy is checked again at the end.
          earlier.push(image);
          image = image.copy();
        } else if (s.kind === 'assign') {
          const target = new MetadataImage();
          target.assign(image);
          image = target;
        }
        for (const record of records(image, s)) {
          image.replay(record);
          expectIndexMatchesWalk(image);
        }
      }
      for (const old of earlier) expectIndexMatchesWalk(old);
      expectIndexMatchesWalk(image);
    }), { numRuns: 300 });
  });
});
