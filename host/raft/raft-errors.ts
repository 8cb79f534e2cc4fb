/**
 * Errors the Raft client's local calls throw (requests from other nodes get error codes instead).
 */
import { ErrorCode } from '../protocol/generated/error-codes.js';

/**
 * This node is not the leader (of the epoch asked for). `errorCode` is NOT_LEADER_OR_FOLLOWER (6);
 * the controller answers its clients NOT_CONTROLLER (41) with `leaderId` as the controller id.
 */
export class NotLeaderError extends Error {
  readonly errorCode: number = ErrorCode.NOT_LEADER_OR_FOLLOWER;

  constructor(readonly leaderId: number, readonly epoch: number, message: string) {
    super(message);
    this.name = 'NotLeaderError';
  }
}

/**
 * The caller's epoch is not the leader's current one: FENCED_LEADER_EPOCH (74) when it is older,
 * UNKNOWN_LEADER_EPOCH (75) when it is newer.
 */
export class LeaderEpochError extends Error {
  readonly errorCode: number;

  constructor(readonly requestedEpoch: number, readonly currentEpoch: number) {
    super(`epoch ${requestedEpoch} is not the current leader epoch ${currentEpoch}`);
    this.name = 'LeaderEpochError';
    this.errorCode = requestedEpoch < currentEpoch ? ErrorCode.FENCED_LEADER_EPOCH : ErrorCode.UNKNOWN_LEADER_EPOCH;
  }
}
