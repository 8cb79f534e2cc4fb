/**
 * The MetadataImage's index of partitions with a reassignment in flight (Kafka's
 * ReplicationControlManager.reassigningTopics; issue 15: ListPartitionReassignments with null
 * topics walked every partition of the cluster) against a walk of every partition, after every
 * record of random histories: topics created with partitions mid-move or not, reassignments
 * started, completed and cancelled (adding / removing replicas set and cleared), topics removed,
 * images copied and assigned midway. And ListPartitionReassignments for every topic (the index)
 * answers what naming every partition of every topic (the walk) answers.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MetadataImage, NO_LEADER_CHANGE } from '../../host/controller/metadata-image.js';
import { metadataRecord, type MetadataRecord } from '../../host/controller/metadata-records.js';
import { isReassignmentInProgress } from '../../host/controller/partition-reassignment.js';
import { listPartitionReassignments } from '../../host/controller/reassignment-control.js';

const topicId = (index: number): string => (index + 1).toString(16).padStart(32, '0');
/** Adding / removing replicas of a step: empty (not moving) half the time. */
const moving = fc.oneof(fc.constant([] as number[]), fc.subarray([4, 5], { minLength: 1 }));

type Step =
  | { kind: 'create'; topic: number; partitions: { adding: number[]; removing: number[] }[] }
  | { kind: 'change'; topic: number; partition: number; adding: number[] | null; removing: number[] | null }
  | { kind: 'remove'; topic: number }
  | { kind: 'copy' } | { kind: 'assign' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), topic: fc.nat(5), partitions: fc.array(fc.record({ adding: moving, removing: moving }), { minLength: 1, maxLength: 5 }) }),
  fc.record({ kind: fc.constant('change' as const), topic: fc.nat(5), partition: fc.nat(4), adding: fc.option(moving), removing: fc.option(moving) }),
  fc.record({ kind: fc.constant('remove' as const), topic: fc.nat(5) }),
  fc.constant({ kind: 'copy' as const }),
  fc.constant({ kind: 'assign' as const }),
);

/** The records of a step that fit the image (steps on missing topics or partitions are skipped). */
function records(image: MetadataImage, s: Step): MetadataRecord[] {
  if (s.kind === 'copy' || s.kind === 'assign') return [];
  const id = topicId(s.topic);
  const exists = image.topicNameById(id) !== undefined;
  if (s.kind === 'create') {
    if (exists) return [];
    // Names in an order other than the topic ids', so the answer's name order is tested.
    return [
      metadataRecord('TopicRecord', 0, { name: `t${9 - s.topic}`, topicId: id }),
      ...s.partitions.map((p, partitionId) => metadataRecord('PartitionRecord', 0, {
        partitionId, topicId: id, replicas: [1, 2, 3], isr: [1, 2, 3], removingReplicas: p.removing, addingReplicas: p.adding, leader: 1,
        leaderRecoveryState: 0, leaderEpoch: 0, partitionEpoch: 0, directories: [], eligibleLeaderReplicas: null, lastKnownElr: null,
      })),
    ];
  }
  if (s.kind === 'change') {
    if (image.partitionById(id, s.partition) === undefined) return [];
    return [metadataRecord('PartitionChangeRecord', 0, {
      partitionId: s.partition, topicId: id, isr: null, leader: NO_LEADER_CHANGE, replicas: null, removingReplicas: s.removing, addingReplicas: s.adding,
      leaderRecoveryState: -1, directories: null, eligibleLeaderReplicas: null, lastKnownElr: null,
    })];
  }
  return exists ? [metadataRecord('RemoveTopicRecord', 0, { topicId: id })] : [];
}

function expectIndexMatchesWalk(image: MetadataImage): void {
  const walked = image.topics()
    .map((topic) => ({ name: topic.name, partitions: topic.partitions.filter(isReassignmentInProgress).map((p) => p.partitionId) }))
    .filter((topic) => topic.partitions.length > 0);
  expect(image.reassigningPartitions().map(({ topic, partitions }) => ({ name: topic.name, partitions: partitions.map((p) => p.partitionId) }))).toEqual(walked);
  const everyPartition = image.topics().map((topic) => ({ name: topic.name, partitionIndexes: topic.partitions.map((p) => p.partitionId) }));
  expect(listPartitionReassignments(image, null)).toEqual(listPartitionReassignments(image, everyPartition));
}

describe('the MetadataImage index of reassigning partitions', () => {
  it('answers as a walk of every partition after every record (start, complete, cancel, topic removed), across copies and assigns', () => {
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
