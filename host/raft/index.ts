/**
 * The KRaft-style Raft core: a sans-I/O state machine ({@link RaftClient}) over a {@link RaftLog}
 * and a {@link QuorumStateStore}; the CONTROLLER listener and the simulator drive it.
 */
export { RaftClient, type CommittedBatch, type LeaderAndEpoch, type RaftClientOptions, type RaftListener } from './raft-client.js';
export { raftConfig, majorityOf, type RaftConfig, type RaftConfigInit } from './raft-config.js';
export type { RaftLog, LogBatch, OffsetAndEpoch, RaftSnapshot, SnapshotId } from './raft-log.js';
export { MemoryRaftLog } from './memory-raft-log.js';
export { MemoryQuorumStateStore, type ElectionState, type QuorumStateStore } from './quorum-state-store.js';
export type * from './messages.js';
export { NotLeaderError, LeaderEpochError } from './raft-errors.js';
export { type SnapshotReader, encodeSnapshotRecords, decodeSnapshotRecords } from './snapshot.js';
