/**
 * Raft's own records in the log. A leader writes a LeaderChange control record (Kafka's
 * `LeaderChangeMessage`, version 0) as the first record of its epoch: its offset is the epoch
 * start offset, and committing it is what lets the leader move the high watermark at all.
 */
import { encodeLeaderChangeMessage } from '../protocol/generated/leader-change-message.js';
import { Writer } from '../protocol/writer.js';

/** The LeaderChange record value: the new leader, the voters and the voters that elected it. */
export function leaderChangeRecord(leaderId: number, voters: readonly number[], grantingVoters: readonly number[]): Uint8Array {
  const writer = new Writer(64);
  encodeLeaderChangeMessage(writer, 0, {
    version: 0,
    leaderId,
    voters: voters.map((voterId) => ({ voterId })),
    grantingVoters: grantingVoters.map((voterId) => ({ voterId })),
  });
  return new Uint8Array(writer.toBuffer());
}
