/**
 * SimNetwork: the simulator's network between Raft nodes. Every message is delayed by a random
 * time in [minDelayMs, maxDelayMs] (so messages overtake each other: reordering), may be lost or
 * duplicated, and is dropped when a partition separates its ends or its destination is down at
 * delivery. Deliveries are timers on the shared {@link ManualTime}; all randomness comes from the
 * simulation's seeded source, so a seed replays exactly.
 */
import type { ManualTime } from '../io/time.js';
import type { SeededRandom } from '../io/random.js';
import type { RaftEnvelope } from '../raft/messages.js';

/** The network's fault settings; changed by the simulation between steps. */
export interface NetworkFaults {
  /** Probability that a message is lost. */
  lossRate: number;
  /** Probability that a message is delivered twice. */
  duplicateRate: number;
  minDelayMs: number;
  maxDelayMs: number;
}

/** Counters of what the network did (for the campaign figures). */
export interface NetworkCounters {
  sent: number;
  delivered: number;
  dropped: number;
  duplicated: number;
  reordered: number;
  partitionDropped: number;
}

/** What the network needs of a message: its two ends (node ids). */
export interface Addressed {
  readonly source: number;
  readonly destination: number;
}

/** A message delivery: to the node with this id, if it is up. */
export type Deliver<E extends Addressed = RaftEnvelope> = (envelope: E) => void;

/** `E`: the messages carried (Raft envelopes by default; the replication simulation has its own). */
export class SimNetwork<E extends Addressed = RaftEnvelope> {
  faults: NetworkFaults = { lossRate: 0, duplicateRate: 0, minDelayMs: 1, maxDelayMs: 5 };
  readonly counters: NetworkCounters = { sent: 0, delivered: 0, dropped: 0, duplicated: 0, reordered: 0, partitionDropped: 0 };
  /** Node id -> partition group; nodes in different groups cannot talk. Empty: no partition. */
  private groups = new Map<number, number>();
  private readonly receivers = new Map<number, Deliver<E>>();
  private nextSequence = 0;
  /** "from->to" -> the highest sequence delivered on that link. */
  private readonly lastDelivered = new Map<string, number>();

  constructor(
    private readonly time: ManualTime,
    private readonly random: SeededRandom,
  ) {}

  /** Sets where messages for `nodeId` go (undefined: the node is down, they are lost). */
  attach(nodeId: number, deliver: Deliver<E> | undefined): void {
    if (deliver === undefined) this.receivers.delete(nodeId);
    else this.receivers.set(nodeId, deliver);
  }

  /** Splits the nodes: each inner array is one side. */
  partition(sides: readonly (readonly number[])[]): void {
    this.groups = new Map();
    sides.forEach((side, index) => side.forEach((id) => this.groups.set(id, index)));
  }

  heal(): void {
    this.groups = new Map();
  }

  get partitioned(): boolean {
    return this.groups.size > 0;
  }

  canTalk(from: number, to: number): boolean {
    if (this.groups.size === 0) return true;
    return this.groups.get(from) === this.groups.get(to);
  }

  send(envelope: E): void {
    this.counters.sent++;
    if (this.random.chance(this.faults.lossRate)) {
      this.counters.dropped++;
      return;
    }
    const copies = this.random.chance(this.faults.duplicateRate) ? 2 : 1;
    if (copies === 2) this.counters.duplicated++;
    for (let i = 0; i < copies; i++) {
      const sequence = this.nextSequence++;
      const delayMs = this.random.int(this.faults.minDelayMs, this.faults.maxDelayMs);
      this.time.setTimeout(() => this.deliver(envelope, sequence), delayMs);
    }
  }

  private deliver(envelope: E, sequence: number): void {
    if (!this.canTalk(envelope.source, envelope.destination)) {
      this.counters.partitionDropped++;
      return;
    }
    const receiver = this.receivers.get(envelope.destination);
    if (receiver === undefined) {
      this.counters.dropped++;
      return;
    }
    const link = `${envelope.source}->${envelope.destination}`;
    const last = this.lastDelivered.get(link) ?? -1;
    if (sequence < last) this.counters.reordered++;
    else this.lastDelivered.set(link, sequence);
    this.counters.delivered++;
    receiver(envelope);
  }
}
