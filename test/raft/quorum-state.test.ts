import { describe, expect, it } from 'vitest';
import { raftConfig } from '../../host/raft/raft-config.js';
import { MemoryQuorumStateStore } from '../../host/raft/quorum-state-store.js';
import { QuorumState, initialEpochState } from '../../host/raft/quorum-state.js';

const config = raftConfig({ nodeId: 1, voters: [1, 2, 3], clusterId: 'c' });

function fresh(): { quorum: QuorumState; store: MemoryQuorumStateStore } {
  const store = new MemoryQuorumStateStore();
  const quorum = new QuorumState(config, store, initialEpochState(config, undefined, 0, 0, 1000));
  return { quorum, store };
}

describe('QuorumState', () => {
  it('persists a vote before it is in the Voted state, and never votes twice in an epoch', () => {
    const { quorum, store } = fresh();
    quorum.toUnattached(3, 100);
    quorum.toVoted(2, 100);
    expect(store.read()).toEqual({ epoch: 3, leaderId: -1, votedId: 2 });
    expect(() => quorum.toVoted(3, 100)).toThrow(/vote from voted/);
  });

  it('a pre-vote round changes nothing durable; winning it bumps the epoch with a vote for itself', () => {
    const { quorum, store } = fresh();
    const writes = store.writes;
    quorum.toProspective(100);
    expect(quorum.epoch).toBe(0);
    expect(store.writes).toBe(writes);
    quorum.toCandidate(200);
    expect(quorum.epoch).toBe(1);
    expect(store.read()).toEqual({ epoch: 1, leaderId: -1, votedId: 1 });
  });

  it('becomes leader only from Candidate with a majority', () => {
    const { quorum } = fresh();
    quorum.toProspective(100);
    quorum.toCandidate(200);
    expect(() => quorum.toLeader()).toThrow(/votes/);
    const state = quorum.state;
    if (state.kind !== 'candidate') throw new Error('not candidate');
    state.granted.add(2);
    quorum.toLeader();
    expect(quorum.leaderId).toBe(1);
  });

  it('refuses to follow another leader in the epoch it leads', () => {
    const { quorum } = fresh();
    quorum.toProspective(100);
    quorum.toCandidate(200);
    const state = quorum.state;
    if (state.kind === 'candidate') state.granted.add(3);
    quorum.toLeader();
    expect(() => quorum.toFollower(1, 2, 0)).toThrow(/two leaders/);
    quorum.toFollower(2, 2, 0);
    expect(quorum.describe()).toBe('follower(epoch 2, leader 2, voted -1)');
  });

  it('a lost pre-vote round returns to the leader it followed', () => {
    const { quorum } = fresh();
    quorum.toFollower(4, 3, 0);
    quorum.toProspective(100);
    quorum.returnFromProspective(100, 500);
    expect(quorum.state).toMatchObject({ kind: 'follower', epoch: 4, leaderId: 3 });
  });

  it('the epoch never goes down', () => {
    const { quorum } = fresh();
    quorum.toUnattached(5, 0);
    expect(() => quorum.toUnattached(5, 0)).toThrow();
    expect(() => quorum.toFollower(4, 2, 0)).toThrow();
  });

  it('restarts as Resigned after leading, Voted after voting, a backing-off Candidate after standing', () => {
    expect(initialEpochState(config, { epoch: 3, leaderId: 1, votedId: 1 }, 3, 0, 1000).kind).toBe('resigned');
    expect(initialEpochState(config, { epoch: 3, leaderId: -1, votedId: 2 }, 3, 0, 1000)).toMatchObject({ kind: 'voted', votedId: 2 });
    expect(initialEpochState(config, { epoch: 3, leaderId: -1, votedId: 1 }, 3, 0, 1000).kind).toBe('candidate');
    expect(initialEpochState(config, { epoch: 3, leaderId: 2, votedId: -1 }, 3, 0, 1000)).toMatchObject({ kind: 'follower', leaderId: 2 });
    expect(initialEpochState(config, { epoch: 3, leaderId: 2, votedId: -1 }, 5, 0, 1000)).toMatchObject({ kind: 'unattached', epoch: 5 });
  });
});
