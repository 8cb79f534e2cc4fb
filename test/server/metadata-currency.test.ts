/**
 * metadataCurrency (issue 11): a broker's metadata is current while its Raft client is in touch
 * with the quorum and it has replayed the metadata log up to the offset that contact named.
 */
import { describe, expect, it } from 'vitest';
import { metadataCurrency } from '../../host/server/metadata-currency.js';

describe('metadataCurrency', () => {
  it('is current only in touch with the quorum and caught up to the offset named when the contact began', () => {
    let contact: { sinceMs: number; catchUpOffset: number } | null = { sinceMs: 0, catchUpOffset: 10 };
    let replayed = 9;
    const isCurrent = metadataCurrency({ quorumContact: () => contact }, () => replayed);
    expect(isCurrent()).toBe(true);
    contact = null;
    expect(isCurrent()).toBe(false);
    // Healed: the leader's high watermark is 25 now; records 10..24 (the fencing, the moved leaderships) are not replayed yet.
    contact = { sinceMs: 5_000, catchUpOffset: 25 };
    expect(isCurrent()).toBe(false);
    replayed = 23;
    expect(isCurrent()).toBe(false);
    replayed = 24;
    expect(isCurrent()).toBe(true);
  });

  it('is not current while replayed changes wait to be applied to the partitions in slices (a healed zombie\'s lost leaderships)', () => {
    let pending = true;
    const isCurrent = metadataCurrency({ quorumContact: () => ({ sinceMs: 0, catchUpOffset: 10 }) }, () => 9, () => pending);
    expect(isCurrent()).toBe(false);
    pending = false;
    expect(isCurrent()).toBe(true);
  });

  it('is always current without a quorum (the embedded single voter)', () => {
    expect(metadataCurrency(null, () => -1)()).toBe(true);
  });
});
