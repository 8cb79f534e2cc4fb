import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import type { VoteRequest, VoteResponse } from '../../host/raft/messages.js';
import { LeaderEpochError, NotLeaderError } from '../../host/raft/raft-errors.js';
import { RaftHarness, bytes } from './raft-cluster-harness.js';

function electedCluster(voters = [1, 2, 3]): { harness: RaftHarness; leader: number } {
  const harness = new RaftHarness(voters);
  harness.start();
  harness.run(3000);
  const leaders = harness.leaders();
  expect(leaders).toHaveLength(1);
  return { harness, leader: leaders[0]! };
}

describe('RaftClient elections', () => {
  it('a lone voter elects itself at start and commits appends after the linger', () => {
    const harness = new RaftHarness([1]);
    harness.start();
    const node = harness.node(1);
    expect(node.client.stateName()).toBe('leader');
    const epoch = node.client.leaderAndEpoch().epoch;
    expect(node.client.scheduleAppend(epoch, [bytes('a'), bytes('b')])).toBe(2);
    expect(node.client.highWatermark()).toBe(1);
    harness.run(30);
    expect(node.client.highWatermark()).toBe(3);
    expect(node.listener.values()).toEqual(['a', 'b']);
    expect(node.listener.leaders).toEqual([{ leaderId: 1, epoch: 1 }]);
  });

  it('three voters elect exactly one leader; the others follow it', () => {
    const { harness, leader } = electedCluster();
    for (const node of harness.nodes.values()) {
      expect(node.client.leaderAndEpoch().leaderId).toBe(leader);
      if (node.id !== leader) expect(node.client.stateName()).toBe('follower');
    }
  });

  it('a pre-vote round bumps no epoch and persists nothing; only winning it does', () => {
    const harness = new RaftHarness([1, 2, 3]);
    harness.filter = (envelope) => envelope.api !== 'Vote' || envelope.kind === 'request';
    harness.start();
    harness.run(2500);
    const preVotes = harness.sent.filter((envelope) => envelope.api === 'Vote' && envelope.kind === 'request');
    expect(preVotes.length).toBeGreaterThan(0);
    expect(preVotes.every((envelope) => (envelope.body as VoteRequest).preVote && (envelope.body as VoteRequest).candidateEpoch === 1)).toBe(true);
    for (const node of harness.nodes.values()) {
      expect(node.client.leaderAndEpoch().epoch).toBe(0);
      expect(node.store.read()?.epoch ?? 0).toBe(0);
    }
  });

  it('grants a vote only to a candidate whose log is at least as up to date, and persists it first', () => {
    const harness = new RaftHarness([1, 2, 3]);
    harness.start(1);
    const voter = harness.node(1);
    voter.log.append(2, [bytes('x')], false);
    const ask = (candidateId: number, lastOffsetEpoch: number, lastOffset: number, correlationId: number): VoteResponse => {
      voter.client.handle({ source: candidateId, destination: 1, correlationId, kind: 'request', api: 'Vote', body: { clusterId: 'test', candidateEpoch: 3, candidateId, lastOffsetEpoch, lastOffset, preVote: false } });
      const response = voter.client.takeOutbound().find((envelope) => envelope.kind === 'response' && envelope.correlationId === correlationId);
      return response!.body as VoteResponse;
    };
    expect(ask(2, 1, 5, 1).voteGranted).toBe(false);
    expect(voter.store.read()).toEqual({ epoch: 3, leaderId: -1, votedId: -1 });
    expect(ask(2, 2, 1, 2).voteGranted).toBe(true);
    expect(voter.store.read()).toEqual({ epoch: 3, leaderId: -1, votedId: 2 });
    expect(ask(3, 2, 9, 3).voteGranted).toBe(false);
    expect(ask(2, 2, 1, 4).voteGranted).toBe(true);
  });

  it('a follower of a live leader rejects pre-votes; a stale candidate epoch is fenced', () => {
    const harness = new RaftHarness([1, 2, 3]);
    for (const id of [1, 2, 3]) harness.node(id).store.write({ epoch: 4, leaderId: -1, votedId: -1 });
    harness.start();
    harness.run(3000);
    const leader = harness.leaders()[0]!;
    const follower = [...harness.nodes.values()].find((node) => node.id !== leader)!;
    const other = [...harness.nodes.values()].find((node) => node.id !== leader && node.id !== follower.id)!;
    const epoch = follower.client.leaderAndEpoch().epoch;
    const send = (candidateEpoch: number, preVote: boolean): VoteResponse => {
      follower.client.handle({ source: other.id, destination: follower.id, correlationId: 77, kind: 'request', api: 'Vote', body: { clusterId: 'test', candidateEpoch, candidateId: other.id, lastOffsetEpoch: 0, lastOffset: 100, preVote } });
      return follower.client.takeOutbound().find((envelope) => envelope.correlationId === 77)!.body as VoteResponse;
    };
    expect(send(epoch + 1, true)).toMatchObject({ voteGranted: false, leaderId: leader, leaderEpoch: epoch });
    // A pre-vote from an up-to-date log is still refused while the leader is live.
    follower.client.handle({ source: other.id, destination: follower.id, correlationId: 78, kind: 'request', api: 'Vote', body: { clusterId: 'test', candidateEpoch: epoch + 1, candidateId: other.id, lastOffsetEpoch: epoch, lastOffset: 100, preVote: true } });
    expect(follower.client.takeOutbound().find((envelope) => envelope.correlationId === 78)!.body).toMatchObject({ voteGranted: false });
    expect(send(epoch - 1, false)).toMatchObject({ voteGranted: false, errorCode: ErrorCode.FENCED_LEADER_EPOCH });
    expect(follower.client.leaderAndEpoch()).toEqual({ leaderId: leader, epoch });
  });

  it('a resigning leader hands over to its preferred successor in a higher epoch', () => {
    const { harness, leader } = electedCluster();
    const epoch = harness.node(leader).client.leaderAndEpoch().epoch;
    harness.node(leader).client.resign(epoch);
    expect(harness.node(leader).client.stateName()).toBe('resigned');
    harness.run(3000);
    const leaders = harness.leaders();
    expect(leaders).toHaveLength(1);
    expect(harness.node(leaders[0]!).client.leaderAndEpoch().epoch).toBeGreaterThan(epoch);
    expect(harness.sent.some((envelope) => envelope.api === 'EndQuorumEpoch' && envelope.kind === 'request')).toBe(true);
  });

  it('five voters whose leader dies elect another: a follower stops refusing pre-votes once its leader is silent for the fetch timeout', () => {
    const { harness, leader } = electedCluster([1, 2, 3, 4, 5]);
    const epoch = harness.node(leader).client.leaderAndEpoch().epoch;
    harness.node(leader).up = false;
    harness.run(8000);
    const leaders = harness.leaders();
    expect(leaders).toHaveLength(1);
    expect(leaders[0]).not.toBe(leader);
    expect(harness.node(leaders[0]!).client.leaderAndEpoch().epoch).toBeGreaterThan(epoch);
  });

  it('a prospective does not go back to the leader it abandoned when a Vote answer names it', () => {
    const { harness, leader } = electedCluster();
    const epoch = harness.node(leader).client.leaderAndEpoch().epoch;
    const follower = [...harness.nodes.values()].find((node) => node.id !== leader)!;
    const other = [...harness.nodes.values()].find((node) => node.id !== leader && node.id !== follower.id)!;
    harness.node(leader).up = false;
    harness.filter = () => false;
    for (let elapsed = 0; elapsed < 5000 && follower.client.stateName() !== 'prospective'; elapsed += 5) harness.run(5);
    expect(follower.client.stateName()).toBe('prospective');
    follower.client.poll();
    const preVote = follower.client.takeOutbound().find((envelope) => envelope.api === 'Vote' && envelope.destination === other.id)!;
    expect(preVote.body).toMatchObject({ preVote: true, candidateEpoch: epoch + 1 });
    follower.client.handle({ source: other.id, destination: follower.id, correlationId: preVote.correlationId, kind: 'response', api: 'Vote', body: { errorCode: 0, leaderId: leader, leaderEpoch: epoch, voteGranted: true } });
    expect(follower.client.stateName()).not.toBe('follower');
  });

  it('a restarted leader comes back resigned and never leads its old epoch again', () => {
    const { harness, leader } = electedCluster();
    const epoch = harness.node(leader).client.leaderAndEpoch().epoch;
    harness.restart(leader);
    expect(harness.node(leader).client.stateName()).toBe('resigned');
    harness.run(5000);
    expect(harness.leaders()).toHaveLength(1);
    const newLeader = harness.leaders()[0]!;
    expect(harness.node(newLeader).client.leaderAndEpoch().epoch).toBeGreaterThan(epoch);
  });
});

describe('RaftClient appends and errors', () => {
  it('scheduleAppend on a follower throws NotLeaderError (NOT_LEADER_OR_FOLLOWER) naming the leader', () => {
    const { harness, leader } = electedCluster();
    const follower = [...harness.nodes.values()].find((node) => node.id !== leader)!;
    const epoch = follower.client.leaderAndEpoch().epoch;
    const error = (() => {
      try {
        follower.client.scheduleAppend(epoch, [bytes('x')]);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(NotLeaderError);
    expect((error as NotLeaderError).errorCode).toBe(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    expect((error as NotLeaderError).leaderId).toBe(leader);
    expect(() => harness.node(leader).client.scheduleAppend(epoch - 1, [bytes('x')])).toThrow(LeaderEpochError);
  });

  it('commits on a majority and every node applies the same records in order', () => {
    const { harness, leader } = electedCluster();
    const client = harness.node(leader).client;
    const epoch = client.leaderAndEpoch().epoch;
    client.scheduleAppend(epoch, [bytes('a')]);
    client.scheduleAppend(epoch, [bytes('b'), bytes('c')]);
    harness.run(200);
    for (const node of harness.nodes.values()) {
      expect(node.listener.values()).toEqual(['a', 'b', 'c']);
      expect(node.client.highWatermark()).toBe(client.highWatermark());
    }
    const quorum = client.describeQuorum();
    expect(quorum.leaderId).toBe(leader);
    expect(quorum.currentVoters.map((voter) => voter.logEndOffset)).toEqual([4, 4, 4]);
  });

  it('without a majority nothing commits, and the isolated leader resigns after the check-quorum window', () => {
    const { harness, leader } = electedCluster();
    const client = harness.node(leader).client;
    const highWatermark = client.highWatermark();
    harness.filter = (envelope) => envelope.source !== leader && envelope.destination !== leader;
    client.scheduleAppend(client.leaderAndEpoch().epoch, [bytes('lonely')]);
    harness.run(200);
    expect(client.highWatermark()).toBe(highWatermark);
    harness.run(3500);
    expect(client.stateName()).not.toBe('leader');
  });
});

describe('RaftClient quorum contact (issue 11: a node cut off from the quorum knows its metadata may be stale)', () => {
  it('a cut-off node loses contact within the fetch timeout, and after healing is current only from the leader high watermark it then learns', () => {
    const { harness, leader } = electedCluster();
    const follower = [1, 2, 3].find((id) => id !== leader)!;
    const followerClient = harness.node(follower).client;
    const leaderClient = harness.node(leader).client;
    expect(leaderClient.quorumContact()).not.toBeNull();
    expect(followerClient.quorumContact()).not.toBeNull();
    // A lone voter is always in touch with its quorum.
    const lone = new RaftHarness([7]);
    lone.start();
    lone.run(100);
    expect(lone.node(7).client.quorumContact()).not.toBeNull();

    harness.filter = (envelope) => envelope.source !== follower && envelope.destination !== follower;
    harness.run(2100);
    expect(followerClient.quorumContact()).toBeNull();
    expect(leaderClient.quorumContact()).not.toBeNull();
    leaderClient.scheduleAppend(leaderClient.leaderAndEpoch().epoch, [bytes('while cut off')]);
    harness.run(200);
    const highWatermark = leaderClient.highWatermark();

    harness.filter = () => true;
    const healedAt = harness.time.monotonicMs();
    for (let waited = 0; waited < 5000 && followerClient.quorumContact() === null; waited += 5) harness.run(5);
    const contact = followerClient.quorumContact();
    expect(contact).not.toBeNull();
    expect(contact!.sinceMs).toBeGreaterThan(healedAt);
    // What it must replay before its view is current: at least what was committed while it was away.
    const current = harness.node(harness.leaders()[0]!).client;
    expect(contact!.catchUpOffset).toBeGreaterThanOrEqual(highWatermark);
    expect(contact!.catchUpOffset).toBeLessThanOrEqual(current.highWatermark());
    expect(followerClient.highWatermark()).toBeLessThanOrEqual(contact!.catchUpOffset);
    // The contact goes on (no new start) while fetches keep answering.
    harness.run(3000);
    expect(followerClient.quorumContact()!.sinceMs).toBe(contact!.sinceMs);
  });

  it('a leader cut off from the majority loses contact within the fetch timeout, before check-quorum makes it resign', () => {
    const { harness, leader } = electedCluster();
    const client = harness.node(leader).client;
    const contact = client.quorumContact();
    expect(contact).not.toBeNull();
    expect(contact!.catchUpOffset).toBeGreaterThanOrEqual(0);
    harness.filter = (envelope) => envelope.source !== leader && envelope.destination !== leader;
    // The last fetches it counts are those it held (long polls) when cut off.
    harness.run(2600);
    expect(client.stateName()).toBe('leader');
    expect(client.quorumContact()).toBeNull();
    harness.run(1500);
    expect(client.stateName()).not.toBe('leader');
    expect(client.quorumContact()).toBeNull();
  });
});

describe('RaftClient replication rules', () => {
  it('the leader does not commit older entries before its LeaderChange record', () => {
    const harness = new RaftHarness([1, 2, 3]);
    // Nodes 1 and 2 (a majority) hold an entry of epoch 1. The leader of epoch 2 learns that a
    // majority has offset 0, yet must not commit it before its own LeaderChange record (offset 1)
    // is on a majority.
    for (const id of [1, 2]) harness.node(id).log.append(1, [bytes('old')], false);
    for (const id of [1, 2]) harness.node(id).log.flush();
    for (const id of [1, 2, 3]) harness.node(id).store.write({ epoch: 1, leaderId: -1, votedId: -1 });
    harness.filter = (envelope) => !(envelope.api === 'Fetch' && envelope.kind === 'response');
    harness.start();
    for (let elapsed = 0; elapsed < 3000 && harness.leaders().length === 0; elapsed += 5) harness.run(5);
    const leader = harness.leaders()[0]!;
    expect([1, 2]).toContain(leader);
    harness.run(300);
    const fetches = harness.sent.filter((envelope) => envelope.api === 'Fetch' && envelope.kind === 'request' && envelope.destination === leader);
    expect(fetches.length).toBeGreaterThan(0);
    expect(harness.node(leader).client.highWatermark()).toBe(0);
    harness.filter = () => true;
    harness.run(2500);
    const current = harness.leaders()[0]!;
    expect(harness.node(current).client.highWatermark()).toBeGreaterThanOrEqual(2);
    for (const node of harness.nodes.values()) expect(node.listener.values()).toEqual(['old']);
  });

  it('a follower with a diverging tail truncates it and takes the leader log', () => {
    const harness = new RaftHarness([1, 2, 3]);
    for (const id of [1, 2, 3]) harness.node(id).store.write({ epoch: 3, leaderId: -1, votedId: -1 });
    harness.node(1).log.append(1, [bytes('a')], false);
    harness.node(1).log.append(3, [bytes('leader-b')], false);
    harness.node(2).log.append(1, [bytes('a')], false);
    harness.node(3).log.append(1, [bytes('a')], false);
    harness.node(3).log.append(2, [bytes('stale-x'), bytes('stale-y'), bytes('stale-z')], false);
    // Node 3's log is longer but older: only node 1 can win (2 and 3 vote for it).
    harness.filter = (envelope) => !(envelope.api === 'Vote' && envelope.source === 3 && envelope.kind === 'request');
    harness.start();
    harness.run(3000);
    expect(harness.leaders()).toEqual([1]);
    harness.run(200);
    const truncated = harness.node(3).log.read(0, 1000).flatMap((batch) => (batch.control ? [] : batch.records.map((record) => new TextDecoder().decode(record))));
    expect(truncated).toEqual(['a', 'leader-b']);
    expect(harness.node(3).listener.values()).toEqual(['a', 'leader-b']);
  });

  it('the high watermark never goes back on a follower that restarts; it resumes from the durable start', () => {
    const { harness, leader } = electedCluster();
    const client = harness.node(leader).client;
    client.scheduleAppend(client.leaderAndEpoch().epoch, [bytes('a')]);
    harness.run(200);
    const follower = [...harness.nodes.values()].find((node) => node.id !== leader)!;
    const before = follower.client.highWatermark();
    harness.restart(follower.id);
    expect(follower.client.highWatermark()).toBe(0);
    // The leader may hold the first Fetch up to the fetch max wait (500 ms) before it tells the hw.
    harness.run(700);
    expect(harness.node(follower.id).client.highWatermark()).toBe(before);
    expect(harness.node(follower.id).listener.values()).toEqual(['a']);
  });

  it('a follower behind the leader log start fetches the snapshot in chunks and loads it', () => {
    const harness = new RaftHarness([1, 2, 3], 1, { fetchMaxBytes: 8 });
    harness.start();
    harness.run(3000);
    const leader = harness.leaders()[0]!;
    const lagging = [...harness.nodes.values()].find((node) => node.id !== leader)!;
    lagging.up = false;
    const client = harness.node(leader).client;
    for (let i = 0; i < 5; i++) client.scheduleAppend(client.leaderAndEpoch().epoch, [bytes(`r${i}`)]);
    harness.run(200);
    const snapshotId = client.createSnapshot(client.highWatermark(), [bytes('state-0123456789'), bytes('state-2')]);
    expect(harness.node(leader).log.startOffset()).toBe(snapshotId.endOffset);
    client.scheduleAppend(client.leaderAndEpoch().epoch, [bytes('after')]);
    lagging.up = true;
    harness.run(3000);
    expect(lagging.listener.snapshots.map((snapshot) => snapshot.snapshotId)).toEqual([snapshotId]);
    expect(lagging.listener.snapshots[0]!.records.map((record) => new TextDecoder().decode(record))).toEqual(['state-0123456789', 'state-2']);
    expect(lagging.listener.values()).toContain('after');
    expect(harness.sent.filter((envelope) => envelope.api === 'FetchSnapshot' && envelope.kind === 'request').length).toBeGreaterThan(2);
  });

  it('createSnapshot refuses an offset above the high watermark', () => {
    const { harness, leader } = electedCluster();
    const client = harness.node(leader).client;
    expect(() => client.createSnapshot(client.highWatermark() + 1, [])).toThrow(/above the high watermark/);
  });
});
