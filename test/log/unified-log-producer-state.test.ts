import { afterEach, describe, expect, it } from 'vitest';
import { NodeDisk } from '../../host/io/disk.js';
import type { ProducerAppendState } from '../../host/log/producer-append.js';
import { ProducerStateManager, type ProducerBatchInfo } from '../../host/log/producer-state-manager.js';
import type { UnifiedLog } from '../../host/log/unified-log.js';
import { buildRecordBatch } from '../../host/record/batch-builder.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { makeBatch, openLog, removeTempDirs } from './log-test-helpers.js';

afterEach(removeTempDirs);

const PRODUCER_ID = 7;

function idempotentBatch(baseSequence: number, count: number, options: { producerEpoch?: number; timestamp?: number; maxTimestamp?: number } = {}): Buffer {
  const timestamp = options.timestamp ?? 1_700_000_000_000;
  return buildRecordBatch({
    records: Array.from({ length: count }, (_, i) => ({ value: Buffer.from(`v${baseSequence + i}`), timestamp: timestamp + i })),
    producerId: PRODUCER_ID,
    producerEpoch: options.producerEpoch ?? 0,
    baseSequence,
    ...(options.maxTimestamp === undefined ? {} : { maxTimestamp: options.maxTimestamp }),
  });
}

function producerStateOf(log: UnifiedLog): ProducerStateManager {
  return new ProducerStateManager({ dir: log.dir, disk: new NodeDisk() });
}

/** Passes calls through to a real manager and keeps the batch arrays it was handed. */
function recording(inner: ProducerAppendState): ProducerAppendState & { checked: (readonly ProducerBatchInfo[])[]; appended: (readonly ProducerBatchInfo[])[] } {
  const checked: (readonly ProducerBatchInfo[])[] = [];
  const appended: (readonly ProducerBatchInfo[])[] = [];
  return {
    checked,
    appended,
    checkAndPrepare(batches) {
      checked.push(batches);
      return inner.checkAndPrepare(batches);
    },
    onAppended(batches) {
      appended.push(batches);
      inner.onAppended(batches);
    },
  };
}

describe('UnifiedLog.appendAsLeader with producer state', () => {
  it('answers a retried batch with its original offsets and writes nothing', () => {
    const { log } = openLog();
    const state = producerStateOf(log);
    expect(log.appendAsLeader(makeBatch(2), 0, state).errorCode).toBe(0);
    const batch = idempotentBatch(0, 3);
    const first = log.appendAsLeader(batch, 0, state);
    expect([first.errorCode, first.baseOffset, first.lastOffset]).toEqual([0, 2, 4]);
    const size = log.size;
    const retry = log.appendAsLeader(batch, 0, state);
    expect(retry).toMatchObject({ errorCode: 0, baseOffset: 2, lastOffset: 4, logAppendTimeMs: -1, batches: [] });
    expect(log.logEndOffset).toBe(5);
    expect(log.size).toBe(size);
  });

  it('refuses sequence gaps (45) and fenced epochs (47) with nothing written', () => {
    const { log } = openLog();
    const state = producerStateOf(log);
    expect(log.appendAsLeader(idempotentBatch(0, 3), 0, state).errorCode).toBe(0);
    const gap = log.appendAsLeader(idempotentBatch(5, 1), 0, state);
    expect(gap.errorCode).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    expect(gap.errorMessage).toContain('expected sequence 3');
    expect(log.appendAsLeader(idempotentBatch(0, 1, { producerEpoch: 1 }), 0, state).errorCode).toBe(0);
    const fenced = log.appendAsLeader(idempotentBatch(3, 1, { producerEpoch: 0 }), 0, state);
    expect(fenced.errorCode).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
    expect(log.logEndOffset).toBe(4);
    expect(state.lastEntry(PRODUCER_ID)).toMatchObject({ producerEpoch: 1, batches: [{ firstSequence: 0, lastSequence: 0, firstOffset: 3 }] });
  });

  it('hands the producer state the core\'s batch summaries themselves, stamped, before and after the write', () => {
    const { log } = openLog();
    const state = recording(producerStateOf(log));
    log.appendAsLeader(makeBatch(1), 0, state);
    const result = log.appendAsLeader(Buffer.concat([idempotentBatch(0, 2), idempotentBatch(2, 3)]), 0, state);
    expect(result.errorCode).toBe(0);
    expect(state.checked[1]).toBe(result.batches);
    expect(state.appended[1]).toBe(result.batches);
    expect(result.batches.map((batch) => [batch.baseOffset, batch.baseSequence])).toEqual([[1, 0], [3, 2]]);
  });

  it('lets the core refuse bad bytes before the producer state is consulted', () => {
    const { log } = openLog();
    const state = recording(producerStateOf(log));
    const corrupt = idempotentBatch(0, 2);
    corrupt[corrupt.length - 1] ^= 0xff;
    expect(log.appendAsLeader(corrupt, 0, state).errorCode).toBe(ErrorCode.CORRUPT_MESSAGE);
    expect(state.checked).toHaveLength(0);
    expect(log.appendAsLeader(idempotentBatch(0, 2), 0, state).errorCode).toBe(0);
  });

  it('keeps the timestamp the log stored: LogAppendTime for retries, the same state as a recovery reads back', () => {
    const { log, clock } = openLog({ config: { messageTimestampType: 'LogAppendTime' } });
    const state = producerStateOf(log);
    clock.set(1_800_000_000_000);
    const batch = idempotentBatch(0, 2, { timestamp: 5, maxTimestamp: 99 });
    expect(log.appendAsLeader(batch, 0, state).logAppendTimeMs).toBe(1_800_000_000_000);
    clock.set(1_800_000_000_500);
    expect(log.appendAsLeader(batch, 0, state)).toMatchObject({ errorCode: 0, baseOffset: 0, lastOffset: 1, logAppendTimeMs: 1_800_000_000_000 });
    const recovered = producerStateOf(log);
    recovered.recover(log.logStartOffset, log.logEndOffset, (offset, maxBytes) => log.read(offset, maxBytes, log.logEndOffset, true).records);
    expect(recovered.lastEntry(PRODUCER_ID)).toEqual(state.lastEntry(PRODUCER_ID));
    expect(state.lastEntry(PRODUCER_ID)!.lastTimestamp).toBe(1_800_000_000_000);
  });

  it('records the maxTimestamp the core corrected under CreateTime, as a recovery reads it back', () => {
    const { log } = openLog();
    const state = producerStateOf(log);
    expect(log.appendAsLeader(idempotentBatch(0, 3, { timestamp: 1_700_000_000_000, maxTimestamp: 99 }), 0, state).errorCode).toBe(0);
    const recovered = producerStateOf(log);
    recovered.recover(log.logStartOffset, log.logEndOffset, (offset, maxBytes) => log.read(offset, maxBytes, log.logEndOffset, true).records);
    expect(state.lastEntry(PRODUCER_ID)!.lastTimestamp).toBe(1_700_000_000_002);
    expect(recovered.lastEntry(PRODUCER_ID)).toEqual(state.lastEntry(PRODUCER_ID));
  });
});
