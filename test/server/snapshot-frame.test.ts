import { describe, expect, it } from 'vitest';
import { frameSnapshot, unframeSnapshot } from '../../host/server/raft-metadata-log.js';
import { decodeSnapshotHeaderRecord } from '../../host/protocol/generated/snapshot-header-record.js';
import { Reader } from '../../host/protocol/reader.js';

describe('metadata snapshot frame', () => {
  it('puts the records between a SnapshotHeader and a SnapshotFooter, and takes them out again', () => {
    const records = [new Uint8Array([1, 2, 3]), new Uint8Array([4])];
    const framed = frameSnapshot(records, 1_700_000_000_000);
    expect(framed).toHaveLength(4);
    expect(decodeSnapshotHeaderRecord(new Reader(framed[0]!), 0)).toEqual({ version: 0, lastContainedLogTimestamp: 1_700_000_000_000 });
    expect(unframeSnapshot(framed)).toEqual(records);
    expect(unframeSnapshot(frameSnapshot([], 5))).toEqual([]);
  });

  it('refuses a snapshot without its header or footer', () => {
    const framed = frameSnapshot([new Uint8Array([9, 9])], 5);
    expect(() => unframeSnapshot(framed.slice(1))).toThrow(/SnapshotHeader/);
    expect(() => unframeSnapshot(framed.slice(0, 1))).toThrow(/SnapshotFooter/);
  });
});
