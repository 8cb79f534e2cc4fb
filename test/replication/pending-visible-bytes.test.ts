import { describe, expect, it } from 'vitest';
import { MAX_PENDING_APPENDS, PendingVisibleBytes, UNKNOWN_VISIBLE_BYTES } from '../../host/replication/pending-visible-bytes.js';

describe('PendingVisibleBytes', () => {
  it('reports the bytes of the appends a high watermark move covers, each once', () => {
    const pending = new PendingVisibleBytes();
    pending.add(3, 100);
    pending.add(5, 40);
    pending.add(9, 7);
    expect(pending.takeVisible(2, 9)).toBe(0);
    expect(pending.takeVisible(5, 9)).toBe(140);
    expect(pending.takeVisible(5, 9)).toBe(0);
    expect(pending.takeVisible(9, 9)).toBe(7);
    expect(pending.takeVisible(9, 9)).toBe(0);
  });

  it('stops tracking beyond its bound and reports an unknown (large) size until the high watermark reaches the log end', () => {
    const pending = new PendingVisibleBytes();
    for (let i = 1; i <= MAX_PENDING_APPENDS + 1; i++) pending.add(i, 1);
    expect(pending.takeVisible(10, MAX_PENDING_APPENDS + 5)).toBe(UNKNOWN_VISIBLE_BYTES);
    expect(pending.takeVisible(MAX_PENDING_APPENDS + 5, MAX_PENDING_APPENDS + 5)).toBe(UNKNOWN_VISIBLE_BYTES);
    pending.add(MAX_PENDING_APPENDS + 6, 9);
    expect(pending.takeVisible(MAX_PENDING_APPENDS + 6, MAX_PENDING_APPENDS + 6)).toBe(9);
  });
});
