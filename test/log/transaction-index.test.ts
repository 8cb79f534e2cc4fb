import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NodeDisk } from '../../host/io/disk.js';
import {
  ABORTED_TXN_ENTRY_SIZE, type AbortedTxn, decodeAbortedTxns, encodeAbortedTxns, TransactionIndex, txnIndexFileName,
} from '../../host/log/transaction-index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'txnindex-'));
  dirs.push(dir);
  return dir;
}

const txn = (producerId: number, firstOffset: number, lastOffset: number, lastStableOffset = lastOffset + 1): AbortedTxn =>
  ({ producerId, firstOffset, lastOffset, lastStableOffset });

describe('AbortedTxn layout (Kafka 34-byte entries)', () => {
  it('writes version, producer id, first, last and last stable offsets big-endian', () => {
    const bytes = encodeAbortedTxns([txn(0x0102030405, 7, 9, 8)]);
    expect(ABORTED_TXN_ENTRY_SIZE).toBe(34);
    expect(bytes.length).toBe(34);
    expect(bytes.readInt16BE(0)).toBe(0);
    expect(bytes.readBigInt64BE(2)).toBe(0x0102030405n);
    expect(bytes.readBigInt64BE(10)).toBe(7n);
    expect(bytes.readBigInt64BE(18)).toBe(9n);
    expect(bytes.readBigInt64BE(26)).toBe(8n);
    expect(decodeAbortedTxns(bytes)).toEqual([txn(0x0102030405, 7, 9, 8)]);
  });

  it('ignores a torn trailing entry and stops at entries out of order', () => {
    const good = encodeAbortedTxns([txn(1, 0, 3), txn(2, 4, 6)]);
    expect(decodeAbortedTxns(good.subarray(0, good.length - 5))).toEqual([txn(1, 0, 3)]);
    expect(decodeAbortedTxns(encodeAbortedTxns([txn(1, 0, 3), txn(2, 0, 2)]))).toEqual([txn(1, 0, 3)]);
  });
});

describe('TransactionIndex', () => {
  it('writes each segment\'s entries to its own .txnindex file and reads them back', () => {
    const dir = tempDir();
    const index = new TransactionIndex(dir, new NodeDisk());
    index.load([0, 10]);
    index.append(0, txn(1, 0, 4));
    index.append(10, txn(2, 3, 12));
    index.append(10, txn(2, 3, 12)); // a replay of the same marker adds nothing
    index.flush();
    expect(readdirSync(dir).sort()).toEqual([txnIndexFileName(0), txnIndexFileName(10)]);
    expect(readFileSync(path.join(dir, txnIndexFileName(10))).length).toBe(34);
    const reopened = new TransactionIndex(dir, new NodeDisk());
    reopened.load([0, 10]);
    expect(reopened.allAbortedTxns()).toEqual([txn(1, 0, 4), txn(2, 3, 12)]);
  });

  it('collects the aborted transactions overlapping a fetch range (Kafka collectAbortedTxns)', () => {
    const index = new TransactionIndex(tempDir(), new NodeDisk());
    index.load([0, 10, 20]);
    index.append(0, txn(1, 0, 4, 5));
    index.append(10, txn(2, 3, 12, 8));
    index.append(20, txn(3, 21, 25, 26));
    expect(index.collectAbortedTxns(0, 30).map((t) => t.producerId)).toEqual([1, 2, 3]);
    expect(index.collectAbortedTxns(5, 30).map((t) => t.producerId)).toEqual([2, 3]);
    expect(index.collectAbortedTxns(5, 20).map((t) => t.producerId)).toEqual([2]);
    expect(index.collectAbortedTxns(13, 21)).toEqual([]);
  });

  it('truncates entries at or past an offset and deletes the files of deleted segments', () => {
    const dir = tempDir();
    const index = new TransactionIndex(dir, new NodeDisk());
    index.load([0, 10]);
    index.append(0, txn(1, 0, 4));
    index.append(0, txn(2, 5, 8));
    index.append(10, txn(3, 9, 12));
    index.truncateFrom(8);
    expect(index.allAbortedTxns()).toEqual([txn(1, 0, 4)]);
    expect(readdirSync(dir)).toEqual([txnIndexFileName(0)]);
    expect(decodeAbortedTxns(readFileSync(path.join(dir, txnIndexFileName(0))))).toEqual([txn(1, 0, 4)]);
    index.deleteSegmentsBefore(10);
    expect(index.allAbortedTxns()).toEqual([]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('deletes at load the index files of segments that no longer exist and overwrites a torn tail', () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, txnIndexFileName(50)), encodeAbortedTxns([txn(1, 50, 51)]));
    const torn = encodeAbortedTxns([txn(1, 0, 2), txn(2, 3, 4)]);
    writeFileSync(path.join(dir, txnIndexFileName(0)), torn.subarray(0, 34 + 10));
    const index = new TransactionIndex(dir, new NodeDisk());
    index.load([0]);
    expect(readdirSync(dir)).toEqual([txnIndexFileName(0)]);
    expect(index.allAbortedTxns()).toEqual([txn(1, 0, 2)]);
    index.append(0, txn(2, 3, 4));
    expect(readFileSync(path.join(dir, txnIndexFileName(0))).equals(torn)).toBe(true);
  });
});
