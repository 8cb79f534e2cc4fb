/**
 * The replication simulation's safety invariants, checked after every step over every live broker
 * that serves (registered in its current life):
 *
 * 1. at most one leader per partition per leader epoch (across brokers and lives);
 * 2. the high watermark never decreases on a leader (per Partition object while it leads);
 * 3. LEO >= HW on every replica;
 * 4. every record acknowledged with acks=all is on every member of the controller's ISR (same
 *    offsets, same CRC: the bytes the producer sent), so on every later leader: it is never lost
 *    or changed; so is every batch any leader ever had below its high watermark (what consumers
 *    may have read: committed);
 * 5. replicas agree on every batch below min(HW) of the ISR members;
 * 6. every batch a replica holds below its own HW is the current leader's batch at that offset
 *    (after its truncations a follower keeps nothing the leader does not have);
 * 7. a Partition's leader epochs, as its broker read them back at the Partition's creation (the
 *    checkpoint, whose assignments are written only at the log's flushes, repaired from the
 *    batches after a crash), answer OffsetForLeaderEpoch exactly for every epoch of its batches:
 *    that epoch, ending where the next epoch's first batch starts (the log end for the last);
 * 8. no leader holds below its high watermark two batches of one idempotent producer with the
 *    same producer epoch and base sequence while both are there: a retried batch is recognised
 *    (KIP-98), across leader changes, crashes and truncations (sim-idempotent-producer.ts).
 *
 * Batches below a log start offset (DeleteRecords) are out of every comparison.
 *
 * Without fsync before acknowledging (flush.messages above 1, Kafka's default) a power loss may
 * take an acknowledged write with it: Kafka promises it only while some ISR member holding it
 * keeps its page cache. So, unless `strictDurability`, a write missing from an ISR member is
 * excused when every broker ever seen holding it has lost power since, or when that member lost
 * power since the write was produced and is the last ISR member (counted as `excusedLosses`).
 * Replicas that still hold batches of the older epochs from the lost offset on (a follower
 * outside the ISR, which no clean election may choose) then differ from the leader until they
 * truncate: invariants 5 and 6 pass over those stale batches. With flush.messages=1 nothing is
 * excused.
 * Comparisons are incremental: a pair of logs is compared from where it was last found equal,
 * unless one of them was truncated since (replication-batch-index.ts versions).
 */
import type { UnifiedLog } from '../log/unified-log.js';
import type { Partition } from '../replication/partition.js';
import type { PartitionLog } from '../replication/partition-log.js';
import { type BatchEntry, batchAt, batchesOf, batchIndexVersion } from './replication-batch-index.js';
import type { SimBroker } from './replication-broker.js';
import type { SimController } from './replication-controller.js';

/** A write acknowledged with acks=all: where it is and what it is. */
export interface AckedWrite {
  readonly topic: string;
  readonly partition: number;
  readonly baseOffset: number;
  readonly lastOffset: number;
  /** The CRC of the batch the producer sent (covers attributes, timestamps, producer fields, records). */
  readonly crc: number;
  readonly step: number;
  /** Acknowledged to a producer, or seen below a leader's high watermark. */
  readonly source: 'acked' | 'committed';
}

interface PairState {
  referenceVersion: number;
  replicaVersion: number;
  checkedTo: number;
}

interface AckCheckState {
  version: number;
  logEndOffset: number;
  acked: number;
}

export class ReplicationInvariants {
  /** "topic-partition@epoch" -> the broker that led it. */
  private readonly leaders = new Map<string, number>();
  private readonly leaderHighWatermarks = new WeakMap<Partition, { epoch: number; highWatermark: number }>();
  private readonly acked = new Map<string, AckedWrite[]>();
  /** Per partition: the highest offset any leader's high watermark reached (all below is in `acked`). */
  private readonly committedTo = new Map<string, number>();
  private readonly pairs = new WeakMap<PartitionLog, WeakMap<PartitionLog, PairState>>();
  private readonly ackChecks = new WeakMap<PartitionLog, AckCheckState>();
  ackedCount = 0;
  /** Writes found missing after every broker holding them lost power (see the file header). */
  excusedLosses = 0;
  /** Per write: the brokers seen holding it, with their power-loss count then. */
  private readonly holders = new WeakMap<AckedWrite, Map<number, number>>();
  private readonly excused = new WeakSet<AckedWrite>();
  /** Per partition, after an excused loss: batches from `fromOffset` on with an epoch below `epoch` may differ. */
  private readonly powerLossCuts = new Map<string, { fromOffset: number; epoch: number }>();
  /** Per partition: each committed idempotent batch (`producerId/epoch/sequence`) and its base offset (invariant 8). */
  private readonly committedSequences = new Map<string, Map<string, number>>();
  /** Partitions whose epochs were checked against their batches (invariant 7, once per Partition). */
  private readonly epochsChecked = new WeakSet<Partition>();

  constructor(
    private readonly brokers: readonly SimBroker[],
    private readonly controller: SimController,
    private readonly strictDurability: boolean,
  ) {}

  private heldBy(write: AckedWrite, brokerId: number): void {
    let holders = this.holders.get(write);
    if (holders === undefined) {
      holders = new Map();
      this.holders.set(write, holders);
    }
    holders.set(brokerId, this.brokers.find((b) => b.id === brokerId)!.powerLosses);
  }

  /**
   * True when a write missing on `brokerId` is excused: every holder lost power since it was seen
   * holding it; or `brokerId` lost power since the write was produced and is the only ISR member
   * left (the controller keeps the last
   * one, and only it may lead without an unclean election: Kafka's loss without fsync, KIP-966).
   */
  private lostToPowerLoss(write: AckedWrite, brokerId: number, isrSize: number): boolean {
    if (this.strictDurability) return false;
    if (this.excused.has(write)) return true;
    // The last member may have fetched it unseen between two checks: any power loss since the write was produced counts.
    const lastMemberLost = isrSize === 1 && this.brokers.find((b) => b.id === brokerId)!.lastPowerLossStep >= write.step;
    if (!lastMemberLost) {
      const holders = this.holders.get(write);
      if (holders === undefined || holders.size === 0) return false;
      for (const [holder, powerLosses] of holders) if (this.brokers.find((b) => b.id === holder)!.powerLosses <= powerLosses) return false;
    }
    this.excused.add(write);
    this.excusedLosses++;
    return true;
  }

  /** The step each batch was produced at, by CRC (the step of a committed write is its produce step). */
  private readonly producedSteps = new Map<number, number>();

  /** A batch with this CRC was sent to a broker at `step`. */
  noteProduced(crc: number, step: number): void {
    if (!this.producedSteps.has(crc)) this.producedSteps.set(crc, step);
  }

  /** Records an acknowledged write; the leader that acknowledged it must hold it now. */
  recordAck(write: AckedWrite, leader: Partition | undefined): string | undefined {
    this.ackedListOf(`${write.topic}-${write.partition}`).push(write);
    this.ackedCount++;
    if (leader === undefined || write.lastOffset < leader.logStartOffset) return undefined;
    const violation = mismatch(write, batchAt(leader.log, write.baseOffset), `the acknowledging leader`);
    if (violation === undefined) this.heldBy(write, leader.localBrokerId);
    return violation;
  }

  private ackedListOf(key: string): AckedWrite[] {
    let list = this.acked.get(key);
    if (list === undefined) {
      list = [];
      this.acked.set(key, list);
    }
    return list;
  }

  /** Records the batches of a leader below its high watermark not recorded yet (committed). */
  private recordCommitted(partition: Partition, step: number): string | undefined {
    const key = partition.key;
    const from = this.committedTo.get(key) ?? 0;
    if (partition.highWatermark <= from) return undefined;
    const list = this.ackedListOf(key);
    const batches = batchesOf(partition.log);
    for (let i = firstEndingAtOrAfter(batches, from); i < batches.length; i++) {
      const batch = batches[i]!;
      if (batch.lastOffset >= partition.highWatermark) break;
      const producedStep = this.producedSteps.get(batch.crc) ?? step;
      const write: AckedWrite = { topic: partition.topic, partition: partition.partition, baseOffset: batch.baseOffset, lastOffset: batch.lastOffset, crc: batch.crc, step: producedStep, source: 'committed' };
      list.push(write);
      this.heldBy(write, partition.localBrokerId);
      this.committedTo.set(key, batch.lastOffset + 1);
      const duplicate = this.checkSequenceOnce(partition, batch);
      if (duplicate !== undefined) return duplicate;
    }
    return undefined;
  }

  /** Invariant 8 for one newly committed batch of `partition`'s leader. */
  private checkSequenceOnce(partition: Partition, batch: BatchEntry): string | undefined {
    if (batch.producerId < 0) return undefined;
    let seen = this.committedSequences.get(partition.key);
    if (seen === undefined) {
      seen = new Map();
      this.committedSequences.set(partition.key, seen);
    }
    const id = `${batch.producerId}/${batch.producerEpoch}/${batch.baseSequence}`;
    const earlier = seen.get(id);
    seen.set(id, batch.baseOffset);
    if (earlier === undefined || earlier === batch.baseOffset) return undefined;
    // Gone since (DeleteRecords, an excused power loss): the retry legitimately wrote it again.
    const there = earlier >= partition.logStartOffset ? batchAt(partition.log, earlier) : undefined;
    if (there === undefined || there.producerId !== batch.producerId || there.producerEpoch !== batch.producerEpoch || there.baseSequence !== batch.baseSequence) return undefined;
    return `${partition.key} on broker ${partition.localBrokerId}: idempotent batch of producer ${id} (producer/epoch/sequence) committed twice, at ${earlier} and ${batch.baseOffset}`;
  }

  /** The first violation found at `step`, or undefined. */
  check(step: number): string | undefined {
    const serving = this.brokers.filter((broker) => broker.registered);
    for (const broker of serving) {
      for (const partition of broker.replicaManager!.allPartitions()) {
        const violation = this.checkReplica(broker.id, partition);
        if (violation !== undefined) return violation;
        if (partition.isLeader) {
          const duplicate = this.recordCommitted(partition, step);
          if (duplicate !== undefined) return duplicate;
        }
      }
    }
    for (const topic of this.controller.controller.image.topics()) {
      for (const registration of topic.partitions) {
        const key = `${topic.name}-${registration.partitionId}`;
        const members = registration.isr.map((id) => replicaOn(serving, id, topic.name, registration.partitionId)).filter((p) => p !== undefined);
        const violation = this.checkAcked(key, members, registration.leaderEpoch, registration.isr.length) ?? this.checkAgreement(key, members)
          ?? this.checkAgainstLeader(key, serving, registration.leader, registration.leaderEpoch, registration.replicas);
        if (violation !== undefined) return violation;
      }
    }
    return undefined;
  }

  private checkReplica(brokerId: number, partition: Partition): string | undefined {
    const where = `${partition.key} on broker ${brokerId}`;
    if (partition.logEndOffset < partition.highWatermark) return `${where}: LEO ${partition.logEndOffset} < HW ${partition.highWatermark}`;
    if (!this.epochsChecked.has(partition)) {
      this.epochsChecked.add(partition);
      const violation = epochsAgainstBatches(partition);
      if (violation !== undefined) return `${where}: ${violation}`;
    }
    if (!partition.isLeader) return undefined;
    const epochKey = `${partition.key}@${partition.leaderEpoch}`;
    const leader = this.leaders.get(epochKey);
    if (leader === undefined) this.leaders.set(epochKey, brokerId);
    else if (leader !== brokerId) return `${partition.key}: two leaders in epoch ${partition.leaderEpoch}: brokers ${leader} and ${brokerId}`;
    // Across this replica's leaderships too, unless an excused power loss cut the partition's log.
    const last = this.leaderHighWatermarks.get(partition);
    const comparable = last !== undefined && (last.epoch === partition.leaderEpoch || !this.powerLossCuts.has(partition.key));
    if (comparable && partition.highWatermark < last.highWatermark) return `${where}: leader HW went back from ${last.highWatermark} to ${partition.highWatermark}`;
    this.leaderHighWatermarks.set(partition, { epoch: partition.leaderEpoch, highWatermark: partition.highWatermark });
    return undefined;
  }

  /** Invariant 4 on the members whose log changed since their last check. */
  private checkAcked(key: string, members: readonly { brokerId: number; partition: Partition }[], leaderEpoch: number, isrSize: number): string | undefined {
    const acked = this.acked.get(key) ?? [];
    for (const { brokerId, partition } of members) {
      const log = partition.log;
      const version = batchIndexVersion(log);
      const last = this.ackCheckStateOf(log);
      const from = last.version === version && last.logEndOffset <= log.logEndOffset ? last.acked : 0;
      for (let i = from; i < acked.length; i++) {
        const write = acked[i]!;
        // Deleted by DeleteRecords (the log start moved past it): gone on purpose.
        if (write.lastOffset < log.logStartOffset) continue;
        const violation = mismatch(write, batchAt(log, write.baseOffset), `ISR member ${brokerId}`);
        if (violation === undefined) this.heldBy(write, brokerId);
        else if (!this.lostToPowerLoss(write, brokerId, isrSize)) return violation;
        else this.cutAfterPowerLoss(key, write.baseOffset, leaderEpoch);
      }
      last.version = version;
      last.logEndOffset = log.logEndOffset;
      last.acked = acked.length;
    }
    return undefined;
  }

  private ackCheckStateOf(log: PartitionLog): AckCheckState {
    let state = this.ackChecks.get(log);
    if (state === undefined) {
      state = { version: -1, logEndOffset: 0, acked: 0 };
      this.ackChecks.set(log, state);
    }
    return state;
  }

  private cutAfterPowerLoss(key: string, fromOffset: number, epoch: number): void {
    const cut = this.powerLossCuts.get(key);
    this.powerLossCuts.set(key, { fromOffset: Math.min(fromOffset, cut?.fromOffset ?? fromOffset), epoch: Math.max(epoch, cut?.epoch ?? epoch) });
  }

  /** Invariant 5: below the smallest HW of the serving ISR members, all equal the first one. */
  private checkAgreement(key: string, members: readonly { brokerId: number; partition: Partition }[]): string | undefined {
    if (members.length < 2) return undefined;
    const bound = Math.min(...members.map((m) => m.partition.highWatermark));
    const reference = members[0]!;
    for (const member of members.slice(1)) {
      const violation = this.comparePrefix(key, reference.partition.log, member.partition.log, bound);
      if (violation !== undefined) return `${key}: ISR members ${reference.brokerId} and ${member.brokerId} differ below min HW ${bound}: ${violation}`;
    }
    return undefined;
  }

  /** Invariant 6: each replica's batches below its HW are the current leader's. */
  private checkAgainstLeader(key: string, serving: readonly SimBroker[], leaderId: number, leaderEpoch: number, replicas: readonly number[]): string | undefined {
    if (leaderId < 0) return undefined;
    const [topic, index] = splitKey(key);
    const leader = replicaOn(serving, leaderId, topic, index)?.partition;
    if (leader === undefined || !leader.isLeader || leader.leaderEpoch !== leaderEpoch) return undefined;
    for (const id of replicas) {
      if (id === leaderId) continue;
      const follower = replicaOn(serving, id, topic, index)?.partition;
      if (follower === undefined) continue;
      const violation = this.comparePrefix(key, leader.log, follower.log, follower.highWatermark);
      if (violation !== undefined) return `${key}: broker ${id} holds below its HW ${follower.highWatermark} what leader ${leaderId} (epoch ${leaderEpoch}) does not: ${violation}`;
    }
    return undefined;
  }

  /** Every batch of `replica` ending below `bound` equals `reference`'s batch at its offset. */
  private comparePrefix(key: string, reference: PartitionLog, replica: PartitionLog, bound: number): string | undefined {
    const cut = this.powerLossCuts.get(key);
    let byReplica = this.pairs.get(reference);
    if (byReplica === undefined) {
      byReplica = new WeakMap();
      this.pairs.set(reference, byReplica);
    }
    const referenceVersion = batchIndexVersion(reference);
    const replicaVersion = batchIndexVersion(replica);
    let state = byReplica.get(replica);
    if (state === undefined || state.referenceVersion !== referenceVersion || state.replicaVersion !== replicaVersion) {
      state = { referenceVersion, replicaVersion, checkedTo: replica.logStartOffset };
      byReplica.set(replica, state);
    }
    if (bound <= state.checkedTo) return undefined;
    const batches = batchesOf(replica);
    for (let i = firstEndingAtOrAfter(batches, state.checkedTo); i < batches.length; i++) {
      const batch = batches[i]!;
      if (batch.lastOffset >= bound) break;
      if (batch.lastOffset < reference.logStartOffset) continue;
      const other = batchAt(reference, batch.baseOffset);
      const stale = cut !== undefined && batch.lastOffset >= cut.fromOffset && (batch.epoch < cut.epoch || (other !== undefined && other.epoch < cut.epoch));
      if (!sameBatch(batch, other) && !stale) return `batch ${describe(batch)} vs ${other === undefined ? 'none' : describe(other)}`;
      state.checkedTo = batch.lastOffset + 1;
    }
    return undefined;
  }
}

function replicaOn(serving: readonly SimBroker[], brokerId: number, topic: string, index: number): { brokerId: number; partition: Partition<UnifiedLog> } | undefined {
  const broker = serving.find((b) => b.id === brokerId);
  const partition = broker?.replicaManager?.getPartition(topic, index);
  return partition === undefined ? undefined : { brokerId, partition };
}

function splitKey(key: string): [string, number] {
  const at = key.lastIndexOf('-');
  return [key.slice(0, at), Number(key.slice(at + 1))];
}

function firstEndingAtOrAfter(batches: readonly BatchEntry[], offset: number): number {
  let low = 0;
  let high = batches.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (batches[middle]!.lastOffset < offset) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Invariant 7 on one replica: undefined, or what its epochs answer wrong. */
function epochsAgainstBatches(partition: Partition): string | undefined {
  const batches = batchesOf(partition.log);
  for (let first = 0; first < batches.length; first++) {
    const epoch = batches[first]!.epoch;
    let last = first;
    while (batches[last + 1]?.epoch === epoch) last++;
    const endOffset = batches[last + 1]?.baseOffset ?? partition.logEndOffset;
    const answer = partition.endOffsetForEpoch(epoch);
    if (epoch >= 0 && (answer?.leaderEpoch !== epoch || answer.endOffset !== endOffset)) {
      return `epoch ${epoch} of batches ${describe(batches[first]!)}..${describe(batches[last]!)} answers ${JSON.stringify(answer)}, not ending at ${endOffset}`;
    }
    first = last;
  }
  return undefined;
}

function sameBatch(a: BatchEntry, b: BatchEntry | undefined): boolean {
  return b !== undefined && a.baseOffset === b.baseOffset && a.lastOffset === b.lastOffset && a.epoch === b.epoch && a.crc === b.crc;
}

function describe(batch: BatchEntry): string {
  return `[${batch.baseOffset}..${batch.lastOffset} epoch ${batch.epoch} crc ${batch.crc.toString(16)}]`;
}

function mismatch(write: AckedWrite, found: BatchEntry | undefined, where: string): string | undefined {
  if (found !== undefined && found.baseOffset === write.baseOffset && found.lastOffset === write.lastOffset && found.crc === write.crc) return undefined;
  const what = found === undefined ? 'missing' : `found ${describe(found)}`;
  return `${write.source} write ${write.topic}-${write.partition} [${write.baseOffset}..${write.lastOffset} crc ${write.crc.toString(16)}] (step ${write.step}) on ${where}: ${what}`;
}
