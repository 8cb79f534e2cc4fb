/**
 * Where a Raft voter keeps its election state across restarts: Kafka's `quorum-state` file
 * (`QuorumStateData`: leader epoch, leader id, voted id). A voter writes it, durably, BEFORE it
 * answers a vote or acts in a new epoch, so that after a crash it never votes twice in one epoch
 * and never goes back to an older epoch.
 */

/** The persisted election state (Kafka's `ElectionState`). -1 means "none". */
export interface ElectionState {
  /** The latest epoch this node has seen. */
  readonly epoch: number;
  /** The leader of `epoch`, when known; -1 otherwise. */
  readonly leaderId: number;
  /** The candidate this node voted for in `epoch` (itself when it stood); -1 otherwise. */
  readonly votedId: number;
}

/** Durable storage of one {@link ElectionState}. */
export interface QuorumStateStore {
  /** The last state written, or undefined before the first write. */
  read(): ElectionState | undefined;
  /**
   * Replaces the state, durably (a file store writes a temporary file, fsyncs and renames, as
   * Kafka's FileQuorumStateStore does). @throws Error on a disk failure
   */
  write(state: ElectionState): void;
}

/** A {@link QuorumStateStore} in memory: every write is durable at once; survives a simulated crash. */
export class MemoryQuorumStateStore implements QuorumStateStore {
  private state: ElectionState | undefined;
  /** Writes so far (the simulator and tests check that a vote was persisted). */
  writes = 0;

  read(): ElectionState | undefined {
    return this.state;
  }

  write(state: ElectionState): void {
    this.state = { epoch: state.epoch, leaderId: state.leaderId, votedId: state.votedId };
    this.writes++;
  }
}
