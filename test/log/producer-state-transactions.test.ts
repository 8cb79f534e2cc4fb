import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NodeDisk } from '../../host/io/disk.js';
import { readEndTxnMarker } from '../../host/log/end-txn-marker.js';
import {
  type CompletedTxn, type ProducerBatchInfo, ProducerStateManager, readProducerBatches,
} from '../../host/log/producer-state-manager.js';
import { buildControlBatch } from '../../host/record/batch-builder.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function manager(dir = mkdtempSync(path.join(tmpdir(), 'psm-txn-'))): { psm: ProducerStateManager; dir: string; completed: [CompletedTxn, number][] } {
  dirs.push(dir);
  const psm = new ProducerStateManager({ dir, disk: new NodeDisk() });
  const completed: [CompletedTxn, number][] = [];
  psm.onCompletedTxn = (txn, lastStableOffset) => completed.push([txn, lastStableOffset]);
  return { psm, dir, completed };
}

/** A data batch of `count` records; offsets are stamped by {@link append}. */
function data(producerId: number, baseSequence: number, options: { count?: number; epoch?: number; transactional?: boolean } = {}): ProducerBatchInfo {
  return {
    baseOffset: 0, lastOffsetDelta: (options.count ?? 1) - 1, maxTimestamp: 1_000, producerId, producerEpoch: options.epoch ?? 0,
    baseSequence, isTransactional: options.transactional ?? true, isControl: false,
  };
}

function marker(producerId: number, commit: boolean, options: { epoch?: number; coordinatorEpoch?: number } = {}): ProducerBatchInfo {
  return {
    baseOffset: 0, lastOffsetDelta: 0, maxTimestamp: 1_000, producerId, producerEpoch: options.epoch ?? 0, baseSequence: -1,
    isTransactional: true, isControl: true, endTxnMarker: { controlType: commit ? 1 : 0, coordinatorEpoch: options.coordinatorEpoch ?? 0 },
  };
}

/** Checks, stamps offsets from the map end and records, like UnifiedLog.appendAsLeader. Returns the error code. */
function append(psm: ProducerStateManager, batch: ProducerBatchInfo, origin: 'client' | 'coordinator' = batch.isControl ? 'coordinator' : 'client'): number {
  const check = psm.checkAndPrepare([batch], origin);
  if (check.errorCode !== 0) return check.errorCode;
  psm.onAppended([{ ...batch, baseOffset: psm.mapEndOffset }]);
  return 0;
}

describe('ProducerStateManager transactions', () => {
  it('opens a transaction at the first transactional batch and completes it at the marker with Kafka\'s LSO', () => {
    const { psm, completed } = manager();
    expect(append(psm, data(1, 0, { count: 2 }))).toBe(0); // 0-1
    expect(append(psm, data(2, 0))).toBe(0);               // 2
    expect(append(psm, data(1, 2))).toBe(0);               // 3
    expect(psm.firstUnstableOffset()).toBe(0);
    expect([...psm.ongoingTransactions()]).toEqual([[1, 0], [2, 2]]);
    expect(append(psm, marker(1, false))).toBe(0);         // ABORT at 4
    // The LSO right after the marker is producer 2's first offset.
    expect(completed).toEqual([[{ producerId: 1, firstOffset: 0, lastOffset: 4, isAborted: true }, 2]]);
    expect(append(psm, marker(2, true))).toBe(0);          // COMMIT at 5
    expect(completed[1]).toEqual([{ producerId: 2, firstOffset: 2, lastOffset: 5, isAborted: false }, 6]);
    expect(psm.firstUnstableOffset(6)).toBe(-1);
  });

  it('starts a new transaction for transactional batches after an abort', () => {
    const { psm } = manager();
    append(psm, data(1, 0));
    append(psm, marker(1, false));
    expect(append(psm, data(1, 1))).toBe(0); // offset 2
    expect(psm.firstUnstableOffset(3)).toBe(2);
  });

  it('refuses a non-transactional write inside an open transaction (48), also within one append', () => {
    const { psm } = manager();
    append(psm, data(1, 0));
    expect(append(psm, data(1, 1, { transactional: false }))).toBe(48);
    const fresh = manager().psm;
    expect(fresh.checkAndPrepare([data(1, 0), data(1, 1, { transactional: false })]).errorCode).toBe(48);
  });

  it('fences markers: older producer epoch 47, older coordinator epoch 52; a marker without a transaction only moves epochs', () => {
    const { psm, completed } = manager();
    append(psm, data(1, 0));
    expect(append(psm, marker(1, false, { epoch: 3, coordinatorEpoch: 2 }))).toBe(0);
    expect(psm.lastEntry(1)).toMatchObject({ producerEpoch: 3, coordinatorEpoch: 2, currentTxnFirstOffset: -1 });
    expect(append(psm, marker(1, true, { epoch: 2, coordinatorEpoch: 2 }))).toBe(47);
    expect(append(psm, marker(1, true, { epoch: 3, coordinatorEpoch: 1 }))).toBe(52);
    expect(append(psm, marker(1, true, { epoch: 3, coordinatorEpoch: 2 }))).toBe(0);
    expect(completed.length).toBe(1);
    // The old epoch's data is refused; the bumped epoch restarts sequences at 0.
    expect(append(psm, data(1, 1, { epoch: 0 }))).toBe(47);
    expect(append(psm, data(1, 5, { epoch: 3 }))).toBe(45);
    expect(append(psm, data(1, 0, { epoch: 3 }))).toBe(0);
  });

  it('checks only epochs for coordinator-origin data batches', () => {
    const { psm } = manager();
    expect(append(psm, data(1, 0))).toBe(0);
    expect(append(psm, data(1, 0), 'coordinator')).toBe(0);
    expect(append(psm, data(1, 0, { epoch: -1 }), 'coordinator')).toBe(47);
  });

  it('keeps open transactions and coordinator epochs across a snapshot and a reload', () => {
    const { psm, dir } = manager();
    append(psm, data(1, 0));
    append(psm, data(2, 0));
    append(psm, marker(2, true, { coordinatorEpoch: 4 }));
    psm.takeSnapshot();
    const reloaded = new ProducerStateManager({ dir, disk: new NodeDisk() });
    reloaded.load(0, psm.mapEndOffset);
    expect([...reloaded.ongoingTransactions()]).toEqual([[1, 0]]);
    expect(reloaded.firstUnstableOffset()).toBe(0);
    expect(reloaded.lastEntry(2)!.coordinatorEpoch).toBe(4);
    expect(reloaded.checkAndPrepare([marker(2, true, { coordinatorEpoch: 3 })], 'coordinator').errorCode).toBe(52);
  });

  it('reads markers from stored control batches when replaying the log', () => {
    const bytes = buildControlBatch({ type: 0, producerId: 9, producerEpoch: 2, coordinatorEpoch: 7, baseOffset: 40 });
    expect(readEndTxnMarker(bytes, 0, bytes.length)).toEqual({ controlType: 0, coordinatorEpoch: 7 });
    const [info] = readProducerBatches(bytes).batches;
    expect(info).toMatchObject({ baseOffset: 40, producerId: 9, producerEpoch: 2, isControl: true, endTxnMarker: { controlType: 0, coordinatorEpoch: 7 } });
  });
});
