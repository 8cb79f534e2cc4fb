/**
 * IsrProposer: a partition leader's ISR changes in the simulation, Kafka's Partition.maybeShrinkIsr
 * / maybeExpandIsr with the AlterPartitionManager's one proposal in flight per partition:
 *
 * - shrink: an ISR follower whose log end differs from the leader's and that was last caught up
 *   more than replica.lag.time.max.ms ago is proposed out; the leader keeps the larger ISR for the
 *   high watermark until the controller committed the change (PendingShrinkIsr);
 * - expand: a follower outside the ISR whose log end reached the high watermark and the start of
 *   the leader's epoch is proposed in; the leader counts it for the high watermark at once
 *   (PendingExpandIsr's maximal ISR: `makeLeader` with the same epochs and ISR ∪ {follower}), so
 *   nothing is committed that the new member lacks;
 * - the answer (or newer metadata) sets the ISR the controller committed.
 *
 * Stand-in until the leader's own ISR management lands on main (issue 11).
 */
import type { PartitionRegistration } from '../controller/metadata-image.js';
import type { ManualTime } from '../io/time.js';
import type { AlterPartitionRequest, AlterPartitionResponseInit } from '../protocol/generated/alter-partition.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { Partition } from '../replication/partition.js';
import type { ReplicaManager } from '../replication/replica-manager.js';
import { leaderEpochStartOffsetOf, remoteReplicasOf } from './replication-fetch.js';
import type { AlterPartitionBody } from './replication-messages.js';

interface Pending {
  readonly request: AlterPartitionRequest;
  readonly leaderEpoch: number;
  readonly partitionEpoch: number;
  readonly committedIsr: readonly number[];
  sentAtMs: number;
}

const RESEND_AFTER_MS = 500;

export class IsrProposer {
  private readonly pending = new Map<string, Pending>();

  /** `events` counts the proposals sent (isrShrink, isrExpand) for the campaign figures. */
  constructor(
    private readonly events: Record<string, number>,
    private readonly brokerId: number,
    private readonly time: ManualTime,
    private readonly replicaLagTimeMaxMs: number,
    private readonly send: (body: AlterPartitionBody) => void,
  ) {}

  /** On a leader's tick: resend a pending proposal, or propose a shrink or an expansion. */
  maybeProposeIsrChange(partition: Partition, brokerEpoch: number, topicId: string): void {
    const nowMs = this.time.monotonicMs();
    const pending = this.pending.get(partition.key);
    if (pending !== undefined) {
      if (pending.leaderEpoch !== partition.leaderEpoch) {
        this.pending.delete(partition.key);
      } else {
        if (nowMs - pending.sentAtMs >= RESEND_AFTER_MS) {
          pending.sentAtMs = nowMs;
          this.send({ kind: 'alterPartition', request: pending.request });
        }
        return;
      }
    }
    const isr = partition.isr;
    const leaderEnd = partition.logEndOffset;
    const replicas = remoteReplicasOf(partition);
    const outOfSync = isr.filter((id) => {
      const replica = replicas.get(id);
      return replica !== undefined && replica.logEndOffset !== leaderEnd && nowMs - replica.lastCaughtUpTimeMs > this.replicaLagTimeMaxMs;
    });
    if (outOfSync.length > 0) {
      this.propose(partition, brokerEpoch, topicId, isr.filter((id) => !outOfSync.includes(id)), isr);
      this.events.isrShrink = (this.events.isrShrink ?? 0) + 1;
      return;
    }
    const epochStart = leaderEpochStartOffsetOf(partition);
    const caughtUp = partition.replicas.find((id) => {
      const replica = replicas.get(id);
      return replica !== undefined && !isr.includes(id) && replica.logEndOffset >= partition.highWatermark && replica.logEndOffset >= epochStart;
    });
    if (caughtUp === undefined) return;
    const maximal = [...isr, caughtUp];
    // PendingExpandIsr: the new member holds the high watermark back from now on.
    partition.makeLeader({ leaderEpoch: partition.leaderEpoch, partitionEpoch: partition.partitionEpoch, isr: maximal });
    this.propose(partition, brokerEpoch, topicId, maximal, isr);
    this.events.isrExpand = (this.events.isrExpand ?? 0) + 1;
  }

  private propose(partition: Partition, brokerEpoch: number, topicId: string, newIsr: readonly number[], committedIsr: readonly number[]): void {
    const request: AlterPartitionRequest = {
      brokerId: this.brokerId,
      brokerEpoch,
      topics: [{
        topicName: '', topicId,
        partitions: [{
          partitionIndex: partition.partition, leaderEpoch: partition.leaderEpoch, partitionEpoch: partition.partitionEpoch,
          newIsr: [], newIsrWithEpochs: newIsr.map((id) => ({ brokerId: id, brokerEpoch: -1 })), leaderRecoveryState: 0,
        }],
      }],
    };
    this.pending.set(partition.key, { request, leaderEpoch: partition.leaderEpoch, partitionEpoch: partition.partitionEpoch, committedIsr, sentAtMs: this.time.monotonicMs() });
    this.send({ kind: 'alterPartition', request });
  }

  /** The controller's answer: the committed state on success; on an error, back to the last committed ISR. */
  onResponse(replicaManager: ReplicaManager, request: AlterPartitionRequest, response: AlterPartitionResponseInit): void {
    const topicData = request.topics[0]!;
    const data = topicData.partitions[0]!;
    for (const [key, pending] of this.pending) {
      if (pending.request !== request) continue;
      this.pending.delete(key);
      const answer = response.topics[0]?.partitions[0];
      const partition = replicaManager.allPartitions().find((p) => p.key === key);
      if (partition === undefined || !partition.isLeader || partition.leaderEpoch !== data.leaderEpoch) return;
      if (response.errorCode === ErrorCode.NONE && answer !== undefined && answer.errorCode === ErrorCode.NONE) {
        partition.makeLeader({ leaderEpoch: answer.leaderEpoch, partitionEpoch: answer.partitionEpoch, isr: answer.isr });
      } else if (partition.partitionEpoch === pending.partitionEpoch) {
        partition.makeLeader({ leaderEpoch: partition.leaderEpoch, partitionEpoch: partition.partitionEpoch, isr: pending.committedIsr });
      }
      return;
    }
  }

  /** Newer metadata for a partition: a pending proposal from older epochs is over. */
  onMetadata(topic: string, partition: number, registration: PartitionRegistration): void {
    const key = `${topic}-${partition}`;
    const pending = this.pending.get(key);
    if (pending !== undefined && (registration.leaderEpoch !== pending.leaderEpoch || registration.partitionEpoch !== pending.partitionEpoch)) this.pending.delete(key);
  }
}
