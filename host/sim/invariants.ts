/**
 * The Raft invariants the simulator checks after every step (Kafka's RaftEventSimulationTest checks
 * the same family):
 *
 * - election safety: at most one leader per epoch, ever;
 * - committed entries are never lost or changed: every offset below any node's high watermark is
 *   recorded once (epoch, value) in a global history, and every later sighting must agree; a
 *   majority of voters holds the committed prefix durably (flushed log or snapshot) at all times;
 * - logs agree up to the high watermark: each node's log below its high watermark equals the
 *   history;
 * - a node's high watermark never goes back within one life;
 * - state machine safety: each node's applied records equal the history at their offsets, and its
 *   state (count, hash) equals the replay of the committed prefix it has applied.
 */
import { lastOffsetOf } from '../raft/raft-log.js';
import { foldHash } from './sim-state-machine.js';
import type { SimNode } from './sim-node.js';

interface CommittedEntry {
  readonly epoch: number;
  readonly value: string;
  readonly control: boolean;
}

interface NodeProgress {
  life: number;
  highWatermark: number;
  /** Offsets of this life's log below it were compared with the history. */
  verifiedUpTo: number;
}

export class InvariantChecker {
  /** The committed history: offset -> entry. Contiguous from 0 to `committedEnd`. */
  private readonly committed: CommittedEntry[] = [];
  /** prefixHash[o], prefixCount[o]: the state machine after the data records below offset o. */
  private readonly prefixHash: number[] = [0];
  private readonly prefixCount: number[] = [0];
  private readonly leaders = new Map<number, number>();
  private readonly progress = new Map<number, NodeProgress>();
  /** Values committed, for the liveness check. */
  readonly committedValues = new Set<string>();

  constructor(private readonly majority: number) {}

  get committedEnd(): number {
    return this.committed.length;
  }

  /** Runs every check; returns the first violation found, or undefined. */
  check(nodes: readonly SimNode[]): string | undefined {
    for (const node of nodes) {
      const client = node.client;
      if (client === undefined) continue;
      const { leaderId, epoch } = client.leaderAndEpoch();
      if (leaderId === node.id && client.stateName() === 'leader') {
        const known = this.leaders.get(epoch);
        if (known !== undefined && known !== node.id) return `two leaders in epoch ${epoch}: ${known} and ${node.id}`;
        this.leaders.set(epoch, node.id);
      }
    }
    for (const node of nodes) this.record(node);
    for (const node of nodes) {
      const violation = this.checkNode(node);
      if (violation !== undefined) return violation;
    }
    return this.checkDurableMajority(nodes);
  }

  /** Adds what `node` knows to be committed (its log below its high watermark) to the history. */
  private record(node: SimNode): void {
    const client = node.client;
    if (client === undefined) return;
    const log = node.log;
    const highWatermark = Math.min(client.highWatermark(), log.endOffset());
    if (highWatermark <= this.committed.length || this.committed.length < log.startOffset()) return;
    const decoder = new TextDecoder();
    for (const batch of log.read(this.committed.length, Number.MAX_SAFE_INTEGER)) {
      for (let i = 0; i < batch.records.length; i++) {
        const offset = batch.baseOffset + i;
        if (offset >= highWatermark) return;
        const value = batch.control ? '' : decoder.decode(batch.records[i]!);
        this.committed.push({ epoch: batch.epoch, value, control: batch.control });
        const last = this.prefixHash.length - 1;
        this.prefixHash.push(batch.control ? this.prefixHash[last]! : foldHash(this.prefixHash[last]!, batch.records[i]!));
        this.prefixCount.push(this.prefixCount[last]! + (batch.control ? 0 : 1));
        if (!batch.control) this.committedValues.add(value);
      }
    }
  }

  private checkNode(node: SimNode): string | undefined {
    const client = node.client;
    if (client === undefined) return undefined;
    const highWatermark = client.highWatermark();
    let progress = this.progress.get(node.id);
    if (progress === undefined || progress.life !== node.life) {
      progress = { life: node.life, highWatermark, verifiedUpTo: 0 };
      this.progress.set(node.id, progress);
    }
    if (highWatermark < progress.highWatermark) return `node ${node.id}: high watermark went back from ${progress.highWatermark} to ${highWatermark}`;
    progress.highWatermark = highWatermark;
    if (highWatermark > node.log.endOffset()) return `node ${node.id}: high watermark ${highWatermark} above its log end ${node.log.endOffset()}`;
    const logViolation = this.checkLogPrefix(node, progress, highWatermark);
    if (logViolation !== undefined) return logViolation;
    return this.checkStateMachine(node);
  }

  private checkLogPrefix(node: SimNode, progress: NodeProgress, highWatermark: number): string | undefined {
    const log = node.log;
    const from = Math.max(progress.verifiedUpTo, log.startOffset());
    if (from >= highWatermark) return undefined;
    if (highWatermark > this.committed.length) return `node ${node.id}: high watermark ${highWatermark} beyond the recorded history ${this.committed.length}`;
    const decoder = new TextDecoder();
    for (const batch of log.read(from, Number.MAX_SAFE_INTEGER)) {
      if (batch.baseOffset >= highWatermark) break;
      for (let i = 0; i < batch.records.length && batch.baseOffset + i < highWatermark; i++) {
        const offset = batch.baseOffset + i;
        const entry = this.committed[offset]!;
        const value = batch.control ? '' : decoder.decode(batch.records[i]!);
        if (entry.epoch !== batch.epoch || entry.value !== value || entry.control !== batch.control) {
          return `node ${node.id}: committed offset ${offset} is (${batch.epoch}, ${value}) in its log but (${entry.epoch}, ${entry.value}) was committed`;
        }
      }
      if (lastOffsetOf(batch) >= highWatermark) break;
    }
    progress.verifiedUpTo = highWatermark;
    return undefined;
  }

  private checkStateMachine(node: SimNode): string | undefined {
    const machine = node.stateMachine;
    if (machine.error !== undefined) return `node ${node.id}: ${machine.error}`;
    for (const applied of machine.applied) {
      const entry = this.committed[applied.offset];
      if (entry === undefined) return `node ${node.id}: applied offset ${applied.offset} that is not committed`;
      if (entry.control || entry.value !== applied.value) return `node ${node.id}: applied ${applied.value} at ${applied.offset}, committed was ${entry.value}`;
    }
    machine.applied = [];
    const end = machine.nextOffset;
    if (end > this.committed.length) return `node ${node.id}: state at ${end} beyond the history ${this.committed.length}`;
    if (machine.hash !== this.prefixHash[end] || machine.count !== this.prefixCount[end]) {
      return `node ${node.id}: state (${machine.count} records, hash ${machine.hash}) at ${end} differs from the replay of the committed prefix (${this.prefixCount[end]}, ${this.prefixHash[end]})`;
    }
    return undefined;
  }

  /** A majority of voters (up or down) holds the whole committed prefix durably. */
  private checkDurableMajority(nodes: readonly SimNode[]): string | undefined {
    const end = this.committed.length;
    if (end === 0) return undefined;
    let holders = 0;
    for (const node of nodes) if (this.durablePrefix(node) >= end) holders++;
    if (holders < this.majority) return `committed prefix up to ${end} is durable on ${holders} voters only (majority ${this.majority})`;
    return undefined;
  }

  /** The longest prefix of the history `node` holds durably (snapshot, then matching flushed log). */
  private durablePrefix(node: SimNode): number {
    const log = node.log;
    const snapshotEnd = log.latestSnapshot()?.id.endOffset ?? 0;
    const limit = Math.min(log.flushedOffset(), this.committed.length);
    // Log matching: if the entry at o has the committed epoch, every entry below it matches too.
    let low = log.startOffset();
    let high = limit;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (log.epochAt(middle) === this.committed[middle]!.epoch) low = middle + 1;
      else high = middle;
    }
    return Math.max(snapshotEnd, low);
  }
}
