import { describe, expect, it } from 'vitest';
import { LeaderState } from '../../host/raft/leader-state.js';

describe('LeaderState high watermark', () => {
  it('is the largest offset a majority reached, and only once above the epoch start offset', () => {
    const leader = new LeaderState(1, 5, 10, [1, 2, 3], 0);
    expect(leader.updateLocal(11, 11, 0)).toBe(false);
    expect(leader.updateReplica(2, 10, 11, 0, 0)).toBe(false);
    expect(leader.highWatermark).toBeUndefined();
    expect(leader.updateReplica(2, 11, 11, 0, 0)).toBe(true);
    expect(leader.highWatermark).toBe(11);
  });

  it('never goes back when a voter reports a lower offset', () => {
    const leader = new LeaderState(1, 5, 0, [1, 2, 3], 0);
    leader.updateLocal(20, 20, 0);
    leader.updateReplica(2, 15, 20, 0, 0);
    expect(leader.highWatermark).toBe(15);
    expect(leader.updateReplica(2, 8, 20, 0, 0)).toBe(false);
    expect(leader.highWatermark).toBe(15);
  });

  it('ignores fetches of non-voters', () => {
    const leader = new LeaderState(1, 5, 0, [1, 2, 3], 0);
    leader.updateLocal(20, 20, 0);
    expect(leader.updateReplica(9, 20, 20, 0, 0)).toBe(false);
    expect(leader.highWatermark).toBeUndefined();
  });

  it('check-quorum fails once a majority has not fetched within the window', () => {
    const leader = new LeaderState(1, 5, 0, [1, 2, 3], 0);
    expect(leader.hasMajorityFetchedWithin(1000, 3000)).toBe(true);
    expect(leader.hasMajorityFetchedWithin(4000, 3000)).toBe(false);
    leader.updateReplica(3, 0, 0, 0, 3500);
    expect(leader.hasMajorityFetchedWithin(4000, 3000)).toBe(true);
  });

  it('prefers the most caught-up voters as successors', () => {
    const leader = new LeaderState(1, 5, 0, [1, 2, 3], 0);
    leader.updateReplica(2, 3, 10, 0, 0);
    leader.updateReplica(3, 7, 10, 0, 0);
    expect(leader.preferredSuccessors()).toEqual([3, 2]);
  });
});
