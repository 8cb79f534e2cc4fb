/**
 * The simulator's replicated state machine: it applies committed records into a running hash and
 * count, so the simulation can check after every step that a node's state equals the replay of the
 * committed prefix. Its snapshot is that state (next offset, count, hash).
 */
import type { CommittedBatch, LeaderAndEpoch, RaftListener } from '../raft/raft-client.js';
import type { SnapshotReader } from '../raft/snapshot.js';

/** FNV-1a over bytes, folded into a running 32-bit hash. */
export function foldHash(hash: number, bytes: Uint8Array): number {
  let value = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) value = Math.imul(value ^ bytes[i]!, 0x01000193);
  return Math.imul(hash ^ value, 0x01000193) >>> 0;
}

/** One applied record, waiting for the simulation's check. */
export interface AppliedRecord {
  readonly offset: number;
  readonly value: string;
}

export class SimStateMachine implements RaftListener {
  /** The offset after the last record applied (data or snapshot). */
  nextOffset = 0;
  count = 0;
  hash = 0;
  /** Records applied since the last check. */
  applied: AppliedRecord[] = [];
  /** Snapshot loads since the last check. */
  snapshotLoads = 0;
  leader: LeaderAndEpoch = { leaderId: -1, epoch: 0 };
  /** A listener-contract violation seen in a callback (checked by the simulation). */
  error: string | undefined;

  handleCommit(batch: CommittedBatch): void {
    if (batch.baseOffset < this.nextOffset) this.error = `commit at ${batch.baseOffset} after applying up to ${this.nextOffset}`;
    const decoder = new TextDecoder();
    batch.records.forEach((record, index) => {
      this.applied.push({ offset: batch.baseOffset + index, value: decoder.decode(record) });
      this.hash = foldHash(this.hash, record);
      this.count++;
    });
    this.nextOffset = batch.lastOffset + 1;
  }

  handleLoadSnapshot(snapshot: SnapshotReader): void {
    const record = snapshot.records[0];
    if (record === undefined || record.length !== 16) {
      this.error = `snapshot ${snapshot.snapshotId.endOffset} without the state record`;
      return;
    }
    const view = new DataView(record.buffer, record.byteOffset, record.byteLength);
    this.nextOffset = view.getFloat64(0);
    this.count = view.getUint32(8);
    this.hash = view.getUint32(12);
    if (this.nextOffset > snapshot.snapshotId.endOffset) this.error = `snapshot state at ${this.nextOffset} beyond its end ${snapshot.snapshotId.endOffset}`;
    this.nextOffset = snapshot.snapshotId.endOffset;
    this.applied = [];
    this.snapshotLoads++;
  }

  handleLeaderChange(leader: LeaderAndEpoch): void {
    this.leader = leader;
  }

  /** The snapshot records of the current state. */
  snapshotRecords(): Uint8Array[] {
    const record = new Uint8Array(16);
    const view = new DataView(record.buffer);
    view.setFloat64(0, this.nextOffset);
    view.setUint32(8, this.count);
    view.setUint32(12, this.hash);
    return [record];
  }
}
