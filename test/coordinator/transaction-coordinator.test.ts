/**
 * The transaction coordinator's protocol (KIP-98, KIP-360): producer ids and epochs, fencing,
 * the transaction's states through AddPartitionsToTxn and EndTxn, markers, timeouts, expiry, and
 * everything surviving a reload from `__transaction_state`.
 */
import { describe, expect, it } from 'vitest';
import { InMemoryOffsetsTopic } from '../../host/coordinator/in-memory-offsets-topic.js';
import { TransactionState } from '../../host/coordinator/transaction-state.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { newTxnHarness, settle, type TxnHarness } from './transaction-harness.js';

const TXN = 'payments-1';
const tp = (topic: string, partition: number) => ({ topic, partition });

async function begin(h: TxnHarness, transactionalId = TXN, partitions = [tp('orders', 0), tp('orders', 1)]) {
  const init = await h.coordinator.initProducerId(transactionalId, 60_000, null);
  expect(init.errorCode).toBe(ErrorCode.NONE);
  const producer = { producerId: init.producerId, producerEpoch: init.producerEpoch };
  expect(await h.coordinator.addPartitionsToTransaction(transactionalId, producer, partitions)).toBe(ErrorCode.NONE);
  return producer;
}

describe('InitProducerId with a transactional id', () => {
  it('gives a new transactional id a producer id from the controller at epoch 0, and bumps the epoch on every later call', async () => {
    const h = newTxnHarness();
    const first = await h.coordinator.initProducerId(TXN, 60_000, null);
    expect(first).toEqual({ errorCode: ErrorCode.NONE, producerId: h.allocated[0], producerEpoch: 0 });
    const second = await h.coordinator.initProducerId(TXN, 60_000, null);
    expect(second).toEqual({ errorCode: ErrorCode.NONE, producerId: first.producerId, producerEpoch: 1 });
    expect(h.allocated).toHaveLength(1);
    expect(h.coordinator.transaction(TXN)!.state).toBe(TransactionState.Empty);
  });

  it('refuses an empty transactional id and timeouts outside (0, transaction.max.timeout.ms]', async () => {
    const h = newTxnHarness({ transactionMaxTimeoutMs: 30_000 });
    expect((await h.coordinator.initProducerId('', 10_000, null)).errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect((await h.coordinator.initProducerId(TXN, 30_001, null)).errorCode).toBe(ErrorCode.INVALID_TRANSACTION_TIMEOUT);
    expect((await h.coordinator.initProducerId(TXN, 0, null)).errorCode).toBe(ErrorCode.INVALID_TRANSACTION_TIMEOUT);
    expect((await h.coordinator.initProducerId(TXN, 30_000, null)).errorCode).toBe(ErrorCode.NONE);
  });

  it('answers NOT_COORDINATOR for a transactional id of a partition loaded elsewhere, COORDINATOR_NOT_AVAILABLE after shutdown', async () => {
    const h = newTxnHarness();
    h.coordinator.onResignation(h.coordinator.partitionFor(TXN));
    expect((await h.coordinator.initProducerId(TXN, 60_000, null)).errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    h.coordinator.shutdown();
    expect((await h.coordinator.initProducerId(TXN, 60_000, null)).errorCode).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
  });

  it('KIP-360: a producer naming its current epoch gets a bump, its retry the same answer, a stale producer PRODUCER_FENCED', async () => {
    const h = newTxnHarness();
    const first = await h.coordinator.initProducerId(TXN, 60_000, null);
    const bumped = await h.coordinator.initProducerId(TXN, 60_000, { producerId: first.producerId, producerEpoch: 0 });
    expect(bumped).toEqual({ errorCode: ErrorCode.NONE, producerId: first.producerId, producerEpoch: 1 });
    const retried = await h.coordinator.initProducerId(TXN, 60_000, { producerId: first.producerId, producerEpoch: 0 });
    expect(retried).toEqual({ errorCode: ErrorCode.NONE, producerId: first.producerId, producerEpoch: 1 });
    await h.coordinator.initProducerId(TXN, 60_000, null); // another producer: epoch 2, previous epoch forgotten
    const stale = await h.coordinator.initProducerId(TXN, 60_000, { producerId: first.producerId, producerEpoch: 0 });
    expect(stale.errorCode).toBe(ErrorCode.PRODUCER_FENCED);
    const otherId = await h.coordinator.initProducerId(TXN, 60_000, { producerId: 424242, producerEpoch: 3 });
    expect(otherId.errorCode).toBe(ErrorCode.PRODUCER_FENCED);
  });

  it('moves to a new producer id at epoch 0 when the epoch is exhausted', async () => {
    const h = newTxnHarness();
    const first = await h.coordinator.initProducerId(TXN, 60_000, null);
    h.coordinator.transaction(TXN)!.producerEpoch = 32_766;
    const rotated = await h.coordinator.initProducerId(TXN, 60_000, null);
    expect(rotated).toEqual({ errorCode: ErrorCode.NONE, producerId: h.allocated[1], producerEpoch: 0 });
    expect(rotated.producerId).not.toBe(first.producerId);
    expect(h.coordinator.transaction(TXN)!.lastProducerId).toBe(first.producerId);
  });

  it('aborts the open transaction of the previous producer first, answering CONCURRENT_TRANSACTIONS until its markers are written', async () => {
    const h = newTxnHarness();
    const zombie = await begin(h);
    h.writer.hold = true;
    const fencing = await h.coordinator.initProducerId(TXN, 60_000, null);
    expect(fencing.errorCode).toBe(ErrorCode.CONCURRENT_TRANSACTIONS);
    expect(h.writer.writes).toEqual([{
      producerId: zombie.producerId, producerEpoch: 1, coordinatorEpoch: 1, result: 'abort', partitions: [tp('orders', 0), tp('orders', 1)],
    }]);
    expect(h.coordinator.transaction(TXN)!.state).toBe(TransactionState.PrepareAbort);
    // The zombie is fenced at once; the new producer waits for the markers.
    expect(await h.coordinator.endTransaction(TXN, zombie, 'commit')).toBe(ErrorCode.PRODUCER_FENCED);
    expect(await h.coordinator.addPartitionsToTransaction(TXN, zombie, [tp('orders', 2)])).toBe(ErrorCode.PRODUCER_FENCED);
    expect((await h.coordinator.initProducerId(TXN, 60_000, null)).errorCode).toBe(ErrorCode.CONCURRENT_TRANSACTIONS);
    h.writer.release();
    await settle();
    expect(h.coordinator.transaction(TXN)!.state).toBe(TransactionState.CompleteAbort);
    expect(await h.coordinator.initProducerId(TXN, 60_000, null)).toEqual({ errorCode: ErrorCode.NONE, producerId: zombie.producerId, producerEpoch: 2 });
  });
});

describe('a transaction from AddPartitionsToTxn to EndTxn', () => {
  it('commits: Ongoing with its partitions, PrepareCommit answered at once, commit markers, CompleteCommit once they are written', async () => {
    const h = newTxnHarness();
    const producer = await begin(h);
    const metadata = h.coordinator.transaction(TXN)!;
    expect(metadata.state).toBe(TransactionState.Ongoing);
    expect(metadata.txnStartTimestampMs).toBe(h.time.nowMs());
    expect(await h.coordinator.addPartitionsToTransaction(TXN, producer, [tp('audit', 0)])).toBe(ErrorCode.NONE);
    expect(metadata.topicPartitions).toEqual([tp('audit', 0), tp('orders', 0), tp('orders', 1)]);
    h.writer.hold = true;
    expect(await h.coordinator.endTransaction(TXN, producer, 'commit')).toBe(ErrorCode.NONE);
    expect(metadata.state).toBe(TransactionState.PrepareCommit);
    expect(h.writer.writes[0]).toMatchObject({ result: 'commit', producerEpoch: 0, partitions: [tp('audit', 0), tp('orders', 0), tp('orders', 1)] });
    // While the markers are in flight: retries of the same end wait, anything else is refused.
    expect(await h.coordinator.endTransaction(TXN, producer, 'commit')).toBe(ErrorCode.CONCURRENT_TRANSACTIONS);
    expect(await h.coordinator.addPartitionsToTransaction(TXN, producer, [tp('orders', 0)])).toBe(ErrorCode.CONCURRENT_TRANSACTIONS);
    h.writer.release();
    await settle();
    expect(metadata.state).toBe(TransactionState.CompleteCommit);
    expect(metadata.topicPartitions).toEqual([]);
    expect(await h.coordinator.endTransaction(TXN, producer, 'commit')).toBe(ErrorCode.NONE);
    expect(await h.coordinator.endTransaction(TXN, producer, 'abort')).toBe(ErrorCode.INVALID_TXN_STATE);
    // The next transaction starts from CompleteCommit with the same producer.
    expect(await h.coordinator.addPartitionsToTransaction(TXN, producer, [tp('orders', 3)])).toBe(ErrorCode.NONE);
    expect(metadata.state).toBe(TransactionState.Ongoing);
  });

  it('aborts with abort markers and CompleteAbort', async () => {
    const h = newTxnHarness();
    const producer = await begin(h);
    expect(await h.coordinator.endTransaction(TXN, producer, 'abort')).toBe(ErrorCode.NONE);
    await settle();
    expect(h.writer.writes.map((write) => write.result)).toEqual(['abort']);
    expect(h.coordinator.transaction(TXN)!.state).toBe(TransactionState.CompleteAbort);
  });

  it('checks the producer: INVALID_PRODUCER_ID_MAPPING for an unknown id or producer id, PRODUCER_FENCED for another epoch, INVALID_TXN_STATE with no transaction', async () => {
    const h = newTxnHarness();
    expect(await h.coordinator.addPartitionsToTransaction('unknown', { producerId: 1, producerEpoch: 0 }, [tp('t', 0)])).toBe(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    const init = await h.coordinator.initProducerId(TXN, 60_000, null);
    expect(await h.coordinator.addPartitionsToTransaction(TXN, { producerId: init.producerId + 1, producerEpoch: 0 }, [tp('t', 0)])).toBe(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    expect(await h.coordinator.addPartitionsToTransaction(TXN, { producerId: init.producerId, producerEpoch: 1 }, [tp('t', 0)])).toBe(ErrorCode.PRODUCER_FENCED);
    expect(await h.coordinator.endTransaction(TXN, { producerId: init.producerId, producerEpoch: 0 }, 'commit')).toBe(ErrorCode.INVALID_TXN_STATE);
  });

  it('verify-only AddPartitionsToTxn (KIP-890): NONE for partitions in the transaction, TRANSACTION_ABORTABLE for others', async () => {
    const h = newTxnHarness();
    const producer = await begin(h);
    expect(h.coordinator.verifyPartitionsInTransaction(TXN, producer, [tp('orders', 1), tp('orders', 9)]))
      .toEqual([ErrorCode.NONE, ErrorCode.TRANSACTION_ABORTABLE]);
    expect(h.coordinator.verifyPartitionsInTransaction(TXN, { ...producer, producerEpoch: 5 }, [tp('orders', 1)])).toEqual([ErrorCode.PRODUCER_FENCED]);
  });

  it('answers COORDINATOR_NOT_AVAILABLE when __transaction_state cannot take the record, and changes nothing', async () => {
    const h = newTxnHarness();
    const init = await h.coordinator.initProducerId(TXN, 60_000, null);
    h.log.failAppendsWith = ErrorCode.NOT_ENOUGH_REPLICAS;
    const producer = { producerId: init.producerId, producerEpoch: init.producerEpoch };
    expect(await h.coordinator.addPartitionsToTransaction(TXN, producer, [tp('t', 0)])).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    expect(h.coordinator.transaction(TXN)!.state).toBe(TransactionState.Empty);
    expect(h.coordinator.transaction(TXN)!.pendingState).toBeNull();
    h.log.failAppendsWith = null;
    expect(await h.coordinator.addPartitionsToTransaction(TXN, producer, [tp('t', 0)])).toBe(ErrorCode.NONE);
  });
});

describe('markers', () => {
  it('are sent again to the partitions that failed, until every one is written', async () => {
    const h = newTxnHarness();
    const producer = await begin(h);
    let failures = 2;
    h.writer.answer = (entry) => entry.partitions.map((ref) => (ref.partition === 1 && failures-- > 0 ? ErrorCode.NOT_LEADER_OR_FOLLOWER : ErrorCode.NONE));
    await h.coordinator.endTransaction(TXN, producer, 'commit');
    await settle();
    for (let round = 0; round < 5; round++) {
      h.time.advance(1_000);
      await settle();
    }
    expect(h.writer.writes.map((write) => write.partitions)).toEqual([[tp('orders', 0), tp('orders', 1)], [tp('orders', 1)], [tp('orders', 1)]]);
    expect(h.coordinator.transaction(TXN)!.state).toBe(TransactionState.CompleteCommit);
  });

  it('stop when a partition leader says a newer coordinator wrote there (TRANSACTION_COORDINATOR_FENCED): no completion from this one', async () => {
    const h = newTxnHarness();
    const producer = await begin(h);
    h.writer.answer = (entry) => entry.partitions.map(() => ErrorCode.TRANSACTION_COORDINATOR_FENCED);
    await h.coordinator.endTransaction(TXN, producer, 'commit');
    await settle();
    h.time.advance(5_000);
    await settle();
    expect(h.writer.writes).toHaveLength(1);
    expect(h.coordinator.transaction(TXN)!.state).toBe(TransactionState.PrepareCommit);
  });

  it('a coordinator that takes over a partition finishes the commit its predecessor prepared (failover)', async () => {
    const log = new InMemoryOffsetsTopic();
    const first = newTxnHarness({}, log);
    const producer = await begin(first);
    first.writer.hold = true;
    expect(await first.coordinator.endTransaction(TXN, producer, 'commit')).toBe(ErrorCode.NONE);
    first.coordinator.onResignation(first.coordinator.partitionFor(TXN)); // the broker lost the partition mid-commit
    first.writer.release();
    await settle();

    const second = newTxnHarness({}, log);
    await settle();
    expect(second.writer.writes).toEqual([{ ...first.writer.writes[0], coordinatorEpoch: 1 }]);
    expect(second.coordinator.transaction(TXN)!.state).toBe(TransactionState.CompleteCommit);
    const third = newTxnHarness({}, log);
    expect(third.coordinator.transaction(TXN)!.state).toBe(TransactionState.CompleteCommit);
    expect(third.writer.writes).toEqual([]);
  });
});

describe('timeouts and expiry', () => {
  it('aborts a transaction past transaction.timeout.ms with an epoch bump that fences its producer', async () => {
    const h = newTxnHarness({ transactionAbortTimedOutTransactionCleanupIntervalMs: 1_000 });
    const init = await h.coordinator.initProducerId(TXN, 5_000, null);
    const producer = { producerId: init.producerId, producerEpoch: 0 };
    await h.coordinator.addPartitionsToTransaction(TXN, producer, [tp('orders', 0)]);
    h.time.advance(5_000);
    await settle();
    expect(h.coordinator.transaction(TXN)!.state).toBe(TransactionState.Ongoing);
    h.time.advance(1_000);
    await settle();
    expect(h.writer.writes).toEqual([{ producerId: producer.producerId, producerEpoch: 1, coordinatorEpoch: 1, result: 'abort', partitions: [tp('orders', 0)] }]);
    expect(h.coordinator.transaction(TXN)!.state).toBe(TransactionState.CompleteAbort);
    expect(await h.coordinator.endTransaction(TXN, producer, 'commit')).toBe(ErrorCode.PRODUCER_FENCED);
  });

  it('forgets a transactional id idle for transactional.id.expiration.ms, also after a reload', async () => {
    const h = newTxnHarness({ transactionalIdExpirationMs: 60_000, transactionRemoveExpiredTransactionCleanupIntervalMs: 10_000 });
    await h.coordinator.initProducerId(TXN, 5_000, null);
    const producer = await begin(h, 'busy');
    h.time.advance(70_000);
    await settle();
    expect(h.coordinator.transaction(TXN)).toBeUndefined();
    expect(h.coordinator.transaction('busy')).toBeDefined(); // an open transaction never expires
    await h.coordinator.endTransaction('busy', producer, 'abort');
    const reloaded = newTxnHarness({}, h.log);
    expect(reloaded.coordinator.transaction(TXN)).toBeUndefined();
    expect(reloaded.coordinator.transaction('busy')!.producerId).toBe(producer.producerId);
  });
});

describe('DescribeTransactions and ListTransactions', () => {
  it('describe the state, producer, timeout and partitions; list filters by state and producer id', async () => {
    const h = newTxnHarness();
    const producer = await begin(h);
    await h.coordinator.initProducerId('idle', 30_000, null);
    const [described, missing] = h.coordinator.describeTransactions([TXN, 'nobody']);
    expect(described).toEqual({
      errorCode: ErrorCode.NONE, transactionalId: TXN,
      description: {
        transactionalId: TXN, state: TransactionState.Ongoing, producerId: producer.producerId, producerEpoch: 0,
        transactionTimeoutMs: 60_000, transactionStartTimeMs: h.time.nowMs(), topicPartitions: [tp('orders', 0), tp('orders', 1)],
      },
    });
    expect(missing!.errorCode).toBe(ErrorCode.TRANSACTIONAL_ID_NOT_FOUND);
    const all = h.coordinator.listTransactions(new Set(), new Set());
    expect(all.transactions.map((t) => t.transactionalId).sort()).toEqual(['idle', TXN]);
    expect(h.coordinator.listTransactions(new Set([TransactionState.Ongoing]), new Set()).transactions.map((t) => t.transactionalId)).toEqual([TXN]);
    expect(h.coordinator.listTransactions(new Set(), new Set([producer.producerId])).transactions.map((t) => t.transactionalId)).toEqual([TXN]);
  });
});
