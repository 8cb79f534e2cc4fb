import { afterEach, describe, expect, it } from 'vitest';
import { buildRecordBatch } from '../../host/record/batch-builder.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { openLog, removeTempDirs } from './log-test-helpers.js';

afterEach(removeTempDirs);

describe('UnifiedLog leader per-record validation (Kafka LogValidator.validateRecord)', () => {
  it('refuses keyless records on a compacted log with INVALID_RECORD and their indexes; writes nothing', () => {
    const { log } = openLog({ config: { cleanupPolicy: ['compact'] } });
    const batch = buildRecordBatch({ records: [{ value: 'a' }, { key: 'k', value: 'b' }, { key: null, value: 'c' }], compression: 3 });
    const result = log.appendAsLeader(batch, 0);
    expect(result.errorCode).toBe(ErrorCode.INVALID_RECORD);
    expect(result.recordErrors?.map((e) => e.batchIndex)).toEqual([0, 2]);
    expect(result.recordErrors?.[0]?.message).toBe(`Compacted topic cannot accept message without key in topic partition ${log.topic}-${log.partition}.`);
    expect(log.logEndOffset).toBe(0);
  });

  it('lets the broker\'s own (coordinator) appends and non-compacted logs take keyless records', () => {
    const compacted = openLog({ config: { cleanupPolicy: ['compact'] } }).log;
    expect(compacted.appendAsLeader(buildRecordBatch({ records: [{ value: 'x' }] }), 0, undefined, 'coordinator').errorCode).toBe(0);
    const plain = openLog().log;
    expect(plain.appendAsLeader(buildRecordBatch({ records: [{ value: 'x' }] }), 0).errorCode).toBe(0);
  });

  it('on a compacted log checks every record\'s timestamp, not only the header\'s first and largest', () => {
    const { log, clock } = openLog({ config: { cleanupPolicy: ['compact'], messageTimestampBeforeMaxMs: 1000 } });
    const now = clock.nowMs();
    const batch = buildRecordBatch({ records: [
      { key: 'a', value: '1', timestamp: now }, { key: 'b', value: '2', timestamp: now - 5000 }, { key: 'c', value: '3', timestamp: now },
    ] });
    const result = log.appendAsLeader(batch, 0);
    expect(result.errorCode).toBe(ErrorCode.INVALID_TIMESTAMP);
    expect(result.recordErrors?.map((e) => e.batchIndex)).toEqual([1]);
    expect(result.errorMessage).toBe('One or more records have been rejected due to invalid timestamp');
  });
});
