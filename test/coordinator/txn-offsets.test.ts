/**
 * Offsets committed inside a transaction (TxnOffsetCommit): pending, invisible to OffsetFetch and
 * UNSTABLE_OFFSET_COMMIT for RequireStable, until the transaction's marker reaches the group's
 * `__consumer_offsets` partition; a commit makes them the committed offsets, an abort drops them;
 * a coordinator loading the partition replays the transactional batch and the marker the same way.
 */
import { describe, expect, it } from 'vitest';
import { readBatchHeader } from '../../host/record/records.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { newHarness } from './harness.js';

const PRODUCER = { producerId: 4000, producerEpoch: 3 };

function txnCommit(groupId: string, offset: number, topic = 'input') {
  return {
    groupId, memberId: '', groupInstanceId: null, generationId: -1, ...PRODUCER,
    offsets: [{ topic, partition: 0, offsetAndMetadata: { offset, leaderEpoch: -1, metadata: '', commitTimestampMs: 1, expireTimestampMs: null } }],
  };
}

describe('transactional offset commits', () => {
  it('are written as the producer\'s transactional batch and stay invisible until the COMMIT marker', async () => {
    const h = newHarness();
    expect(await h.coordinator.commitTransactionalOffsets(txnCommit('etl', 42))).toEqual([{ topic: 'input', partition: 0, errorCode: ErrorCode.NONE }]);
    const partition = h.coordinator.partitionFor('etl');
    const header = readBatchHeader(h.offsetsTopic.batches(partition).at(-1)!);
    expect(header).toMatchObject({ isTransactional: true, producerId: PRODUCER.producerId, producerEpoch: PRODUCER.producerEpoch, isControl: false });

    expect(h.coordinator.fetchOffsets('etl', false, [{ topic: 'input', partition: 0 }]).partitions[0]!.offset).toBe(-1);
    expect(h.coordinator.fetchOffsets('etl', true, [{ topic: 'input', partition: 0 }]).partitions[0]!.errorCode).toBe(ErrorCode.UNSTABLE_OFFSET_COMMIT);

    h.coordinator.onTransactionCompleted(PRODUCER.producerId, [partition], true);
    expect(h.coordinator.fetchOffsets('etl', true, [{ topic: 'input', partition: 0 }]).partitions[0]).toMatchObject({ offset: 42, errorCode: ErrorCode.NONE });
  });

  it('are dropped by the ABORT marker: the offset committed before stays', async () => {
    const h = newHarness();
    await h.coordinator.commitOffsets({ groupId: 'etl', memberId: '', groupInstanceId: null, generationId: -1, offsets: txnCommit('etl', 10).offsets });
    await h.coordinator.commitTransactionalOffsets(txnCommit('etl', 42));
    h.coordinator.onTransactionCompleted(PRODUCER.producerId, [h.coordinator.partitionFor('etl')], false);
    expect(h.coordinator.fetchOffsets('etl', true, [{ topic: 'input', partition: 0 }]).partitions[0]).toMatchObject({ offset: 10, errorCode: ErrorCode.NONE });
  });

  it('a marker of another producer or on another partition leaves them pending', async () => {
    const h = newHarness({ offsetsTopicNumPartitions: 4 });
    await h.coordinator.commitTransactionalOffsets(txnCommit('etl', 42));
    const partition = h.coordinator.partitionFor('etl');
    h.coordinator.onTransactionCompleted(PRODUCER.producerId + 1, [partition], true);
    h.coordinator.onTransactionCompleted(PRODUCER.producerId, [(partition + 1) % 4], true);
    expect(h.coordinator.fetchOffsets('etl', true, [{ topic: 'input', partition: 0 }]).partitions[0]!.errorCode).toBe(ErrorCode.UNSTABLE_OFFSET_COMMIT);
  });

  it('are replayed on load: pending after the batch alone, committed once the marker follows it', async () => {
    const h = newHarness();
    await h.coordinator.commitTransactionalOffsets(txnCommit('etl', 42));
    const partition = h.coordinator.partitionFor('etl');
    const pending = newHarness({}, h.offsetsTopic);
    expect(pending.coordinator.fetchOffsets('etl', true, [{ topic: 'input', partition: 0 }]).partitions[0]!.errorCode).toBe(ErrorCode.UNSTABLE_OFFSET_COMMIT);
    h.offsetsTopic.appendMarker(partition, PRODUCER.producerId, PRODUCER.producerEpoch, true);
    const committed = newHarness({}, h.offsetsTopic);
    expect(committed.coordinator.fetchOffsets('etl', true, [{ topic: 'input', partition: 0 }]).partitions[0]).toMatchObject({ offset: 42, errorCode: ErrorCode.NONE });
  });

  it('check the member and generation when the request names them (KIP-447)', async () => {
    const h = newHarness();
    const errors = await h.coordinator.commitTransactionalOffsets({ ...txnCommit('etl', 42), memberId: 'ghost', generationId: 3 });
    expect(errors[0]!.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    const generation = await h.coordinator.commitTransactionalOffsets({ ...txnCommit('etl', 42), generationId: 7 });
    expect(generation[0]!.errorCode).toBe(ErrorCode.ILLEGAL_GENERATION);
  });
});
