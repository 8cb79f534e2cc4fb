/**
 * sharedTransactionIndex (host/log/transaction-index.ts): the producer state and the log cleaner
 * of a partition directory share one TransactionIndex, and the registry holds it weakly, so the
 * index of a partition nobody holds any more (a deleted one) is dropped instead of kept for the
 * process's life.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { NodeDisk } from '../../host/io/disk.js';
import { registeredTransactionIndex, sharedTransactionIndex } from '../../host/log/transaction-index.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** A macrotask: WeakRefs dereferenced in this job stay alive until it ends. */
const nextTask = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('sharedTransactionIndex', () => {
  it('gives the cleaner the index the partition holds, and forgets it once no partition holds it', async () => {
    const disk = new NodeDisk();
    const dir = '/nonexistent/shared-txn-index-test/t-0';
    let held: object | undefined = sharedTransactionIndex(dir, disk);
    expect(registeredTransactionIndex(dir)).toBe(held);
    expect(sharedTransactionIndex(dir, disk)).toBe(held);
    held = undefined;
    for (let round = 0; round < 10 && registeredTransactionIndex(dir) !== undefined; round++) {
      await nextTask();
      gc();
    }
    expect(held).toBeUndefined();
    expect(registeredTransactionIndex(dir)).toBeUndefined();
  });
});
