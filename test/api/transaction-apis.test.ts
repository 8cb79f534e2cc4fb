/**
 * The transaction API handlers over a real transaction coordinator and group coordinator (in
 * memory): version rules (PRODUCER_FENCED below v4/v2 is INVALID_PRODUCER_EPOCH), unknown topics
 * in AddPartitionsToTxn, AddOffsetsToTxn adding the group's `__consumer_offsets` partition,
 * TxnOffsetCommit pending until the marker, DescribeTransactions and ListTransactions.
 */
import { describe, expect, it } from 'vitest';
import type { ApiRequestContext } from '../../host/api/api-definition.js';
import { addOffsetsToTxnApi } from '../../host/api/add-offsets-to-txn-api.js';
import { addPartitionsToTxnApi } from '../../host/api/add-partitions-to-txn-api.js';
import { describeTransactionsApi } from '../../host/api/describe-transactions-api.js';
import { endTxnApi } from '../../host/api/end-txn-api.js';
import { initProducerIdApi } from '../../host/api/init-producer-id-api.js';
import { listTransactionsApi } from '../../host/api/list-transactions-api.js';
import { txnOffsetCommitApi } from '../../host/api/txn-offset-commit-api.js';
import { GroupCoordinator } from '../../host/coordinator/group-coordinator.js';
import { InMemoryOffsetsTopic } from '../../host/coordinator/in-memory-offsets-topic.js';
import { OFFSETS_TOPIC_NAME } from '../../host/coordinator/offsets-topic.js';
import { createLogger } from '../../host/observability/logger.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { newTxnHarness, settle } from '../coordinator/transaction-harness.js';

const TOPICS: Record<string, number> = { orders: 2, [OFFSETS_TOPIC_NAME]: 4 };

function setUp() {
  const txn = newTxnHarness();
  const offsetsTopic = new InMemoryOffsetsTopic();
  const groupCoordinator = new GroupCoordinator({ offsetsTopic, time: txn.time, random: { uuid: () => 'm' }, config: { offsetsTopicNumPartitions: 4 } });
  groupCoordinator.startup();
  groupCoordinator.loadAllPartitions();
  const metadata = {
    topic: (name: string) => (TOPICS[name] === undefined ? undefined : { name, partitions: Array.from({ length: TOPICS[name]! }, (_, partition) => ({ partition, leaderId: 1 })) }),
  };
  const broker = {
    metadata, groupCoordinator, transactionCoordinator: txn.coordinator, nowMs: () => txn.time.nowMs(), ensureOffsetsTopic: () => Promise.resolve(0),
  };
  const context = (apiVersion: number) => ({
    apiKey: 0, apiVersion, correlationId: 1, clientId: 'test', peer: '127.0.0.1:5000', listenerName: 'PLAINTEXT', broker,
    logger: createLogger({ level: 'silent' }),
  }) as unknown as ApiRequestContext;
  return { txn, groupCoordinator, offsetsTopic, context };
}

describe('transaction API handlers', () => {
  it('InitProducerId with a transactional id, then fencing: PRODUCER_FENCED from v4, INVALID_PRODUCER_EPOCH before', async () => {
    const { context } = setUp();
    const init = (version: number, producerId = -1, producerEpoch = -1) =>
      initProducerIdApi.handle({ transactionalId: 'tx', transactionTimeoutMs: 60_000, producerId, producerEpoch }, context(version));
    const first = await init(4);
    expect(first).toMatchObject({ errorCode: ErrorCode.NONE, producerEpoch: 0 });
    await init(4); // another producer: epoch 1
    expect(await init(4, first!.producerId, 7)).toMatchObject({ errorCode: ErrorCode.PRODUCER_FENCED });
    expect(await init(3, first!.producerId, 7)).toMatchObject({ errorCode: ErrorCode.INVALID_PRODUCER_EPOCH });
  });

  it('AddPartitionsToTxn: an unknown topic fails the request (OPERATION_NOT_ATTEMPTED for the rest); a known one joins the transaction', async () => {
    const { context, txn } = setUp();
    const init = await initProducerIdApi.handle({ transactionalId: 'tx', transactionTimeoutMs: 60_000, producerId: -1, producerEpoch: -1 }, context(1));
    const request = (topics: { name: string; partitions: number[] }[]) => ({
      transactions: [], v3AndBelowTransactionalId: 'tx', v3AndBelowProducerId: init!.producerId, v3AndBelowProducerEpoch: 0, v3AndBelowTopics: topics,
    });
    const refused = await addPartitionsToTxnApi.handle(request([{ name: 'orders', partitions: [0] }, { name: 'nope', partitions: [0] }]), context(0));
    expect(refused!.resultsByTopicV3AndBelow).toEqual([
      { name: 'orders', resultsByPartition: [{ partitionIndex: 0, partitionErrorCode: ErrorCode.OPERATION_NOT_ATTEMPTED }] },
      { name: 'nope', resultsByPartition: [{ partitionIndex: 0, partitionErrorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION }] },
    ]);
    const added = await addPartitionsToTxnApi.handle(request([{ name: 'orders', partitions: [0, 1] }]), context(0));
    expect(added!.resultsByTopicV3AndBelow![0]!.resultsByPartition.map((p) => p.partitionErrorCode)).toEqual([ErrorCode.NONE, ErrorCode.NONE]);
    expect(txn.coordinator.transaction('tx')!.topicPartitions).toEqual([{ topic: 'orders', partition: 0 }, { topic: 'orders', partition: 1 }]);
  });

  it('sendOffsetsToTransaction end to end: AddOffsetsToTxn, TxnOffsetCommit pending, EndTxn commit makes the offset visible', async () => {
    const { context, txn, groupCoordinator } = setUp();
    const init = await initProducerIdApi.handle({ transactionalId: 'tx', transactionTimeoutMs: 60_000, producerId: -1, producerEpoch: -1 }, context(4));
    const producer = { producerId: init!.producerId, producerEpoch: init!.producerEpoch };
    expect(await addOffsetsToTxnApi.handle({ transactionalId: 'tx', ...producer, groupId: 'etl' }, context(0))).toEqual({ throttleTimeMs: 0, errorCode: ErrorCode.NONE });
    const offsetsPartition = groupCoordinator.partitionFor('etl');
    expect(txn.coordinator.transaction('tx')!.topicPartitions).toEqual([{ topic: OFFSETS_TOPIC_NAME, partition: offsetsPartition }]);
    const committed = await txnOffsetCommitApi.handle({
      transactionalId: 'tx', groupId: 'etl', ...producer, generationId: -1, memberId: '', groupInstanceId: null,
      topics: [{ name: 'orders', partitions: [{ partitionIndex: 1, committedOffset: 99, committedLeaderEpoch: -1, committedMetadata: null }] }],
    }, context(3));
    expect(committed!.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
    expect(groupCoordinator.classic.committedOffset('etl', 'orders', 1)).toBeUndefined();
    // The marker writer of the broker tells the group coordinator; here the scripted writer's marker is replayed by hand.
    expect(await endTxnApi.handle({ transactionalId: 'tx', ...producer, committed: true }, context(1))).toEqual({ throttleTimeMs: 0, errorCode: ErrorCode.NONE });
    await settle();
    expect(txn.writer.writes[0]).toMatchObject({ result: 'commit', partitions: [{ topic: OFFSETS_TOPIC_NAME, partition: offsetsPartition }] });
    groupCoordinator.onTransactionCompleted(producer.producerId, [offsetsPartition], 'commit');
    expect(groupCoordinator.classic.committedOffset('etl', 'orders', 1)!.offset).toBe(99);
    expect(await endTxnApi.handle({ transactionalId: 'tx', ...producer, producerEpoch: 9, committed: true }, context(1)))
      .toEqual({ throttleTimeMs: 0, errorCode: ErrorCode.INVALID_PRODUCER_EPOCH });
  });

  it('TxnOffsetCommit with a producer id no producer can have answers INVALID_PRODUCER_ID_MAPPING per partition (found by the fuzzer)', async () => {
    const { context, groupCoordinator } = setUp();
    for (const producerId of [-2, -Number.MAX_SAFE_INTEGER, 2 ** 60]) {
      const answer = await txnOffsetCommitApi.handle({
        transactionalId: 'tx', groupId: 'etl', producerId, producerEpoch: 0, generationId: -1, memberId: '', groupInstanceId: null,
        topics: [{ name: 'orders', partitions: [{ partitionIndex: 1, committedOffset: 5, committedLeaderEpoch: -1, committedMetadata: null }] }],
      }, context(3));
      expect(answer!.topics[0]!.partitions).toEqual([{ partitionIndex: 1, errorCode: ErrorCode.INVALID_PRODUCER_ID_MAPPING }]);
    }
    expect(groupCoordinator.classic.committedOffset('etl', 'orders', 1)).toBeUndefined();
  });

  it('DescribeTransactions and ListTransactions show state names, partitions, producers; unknown state filters are echoed', async () => {
    const { context } = setUp();
    const init = await initProducerIdApi.handle({ transactionalId: 'tx', transactionTimeoutMs: 30_000, producerId: -1, producerEpoch: -1 }, context(4));
    await addPartitionsToTxnApi.handle({
      transactions: [], v3AndBelowTransactionalId: 'tx', v3AndBelowProducerId: init!.producerId, v3AndBelowProducerEpoch: 0,
      v3AndBelowTopics: [{ name: 'orders', partitions: [1, 0] }],
    }, context(2));
    const described = await describeTransactionsApi.handle({ transactionalIds: ['tx', 'other'] }, context(0));
    expect(described!.transactionStates[0]).toMatchObject({
      errorCode: ErrorCode.NONE, transactionState: 'Ongoing', transactionTimeoutMs: 30_000, producerId: init!.producerId, producerEpoch: 0,
      topics: [{ topic: 'orders', partitions: [0, 1] }],
    });
    expect(described!.transactionStates[1]!.errorCode).toBe(ErrorCode.TRANSACTIONAL_ID_NOT_FOUND);
    const listed = await listTransactionsApi.handle({ stateFilters: ['Ongoing', 'Bogus'], producerIdFilters: [], durationFilter: -1 }, context(1));
    expect(listed).toEqual({
      throttleTimeMs: 0, errorCode: ErrorCode.NONE, unknownStateFilters: ['Bogus'],
      transactionStates: [{ transactionalId: 'tx', producerId: init!.producerId, transactionState: 'Ongoing' }],
    });
  });
});
