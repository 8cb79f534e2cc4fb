/**
 * Transactions against a real broker, with raw requests as a transactional client sends them:
 * FindCoordinator (key type 1) creates `__transaction_state`, InitProducerId gives the
 * transactional id its producer, AddPartitionsToTxn, a transactional Produce that holds
 * read_committed readers at the last stable offset, EndTxn commit (the marker makes the records
 * readable) and abort (listed in aborted_transactions), the zombie fenced by a new producer of the
 * same id, and DescribeTransactions / ListTransactions after all of it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeAddPartitionsToTxnResponse, encodeAddPartitionsToTxnRequest } from '../../host/protocol/generated/add-partitions-to-txn.js';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { decodeDescribeTransactionsResponse, encodeDescribeTransactionsRequest } from '../../host/protocol/generated/describe-transactions.js';
import { decodeEndTxnResponse, encodeEndTxnRequest } from '../../host/protocol/generated/end-txn.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { decodeFindCoordinatorResponse, encodeFindCoordinatorRequest } from '../../host/protocol/generated/find-coordinator.js';
import { decodeInitProducerIdResponse, encodeInitProducerIdRequest, type InitProducerIdResponse } from '../../host/protocol/generated/init-producer-id.js';
import { decodeListTransactionsResponse, encodeListTransactionsRequest } from '../../host/protocol/generated/list-transactions.js';
import { startTestBroker, type TestBroker } from './in-process-broker.js';
import { RawKafkaClient } from './raw-kafka-client.js';
import { batch, createTopic, decodeRecords, fetch, fetchRequest, produce } from './requests.js';

const TOPIC = 'txn-out';

/** Retries `attempt` (at most `rounds` times, 50 ms apart) until `done` holds; returns the last answer. */
async function until<T>(attempt: () => Promise<T>, done: (value: T) => boolean, rounds = 100): Promise<T> {
  let value = await attempt();
  for (let round = 0; round < rounds && !done(value); round++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await attempt();
  }
  return value;
}

describe('transactions on one broker', () => {
  let broker: TestBroker;
  let client: RawKafkaClient;

  beforeAll(async () => {
    broker = await startTestBroker({ 'transaction.state.log.num.partitions': 4 });
    client = await RawKafkaClient.connect(broker.broker.port);
    expect(await createTopic(client, TOPIC, 1)).toBe(ErrorCode.NONE);
  });

  afterAll(async () => {
    client.close();
    await broker.close();
  });

  const initProducerId = (transactionalId: string): Promise<InitProducerIdResponse> => until(
    () => client.request(ApiKey.InitProducerId, 4, encodeInitProducerIdRequest, decodeInitProducerIdResponse,
      { transactionalId, transactionTimeoutMs: 60_000, producerId: -1, producerEpoch: -1 }),
    (answer) => answer.errorCode !== ErrorCode.NOT_COORDINATOR && answer.errorCode !== ErrorCode.CONCURRENT_TRANSACTIONS);

  const addPartition = (transactionalId: string, producerId: number, producerEpoch: number) =>
    client.request(ApiKey.AddPartitionsToTxn, 2, encodeAddPartitionsToTxnRequest, decodeAddPartitionsToTxnResponse, {
      v3AndBelowTransactionalId: transactionalId, v3AndBelowProducerId: producerId, v3AndBelowProducerEpoch: producerEpoch,
      v3AndBelowTopics: [{ name: TOPIC, partitions: [0] }],
    }).then((response) => response.resultsByTopicV3AndBelow[0]!.resultsByPartition[0]!.partitionErrorCode);

  const endTxn = (transactionalId: string, producerId: number, producerEpoch: number, committed: boolean) =>
    client.request(ApiKey.EndTxn, 2, encodeEndTxnRequest, decodeEndTxnResponse, { transactionalId, producerId, producerEpoch, committed })
      .then((response) => response.errorCode);

  const readCommitted = () => fetch(client, 11, fetchRequest([{ topic: TOPIC, partition: 0, fetchOffset: 0 }], { isolationLevel: 1 }))
    .then((response) => response.responses[0]!.partitions[0]!);

  it('commits and aborts: read_committed readers wait at the LSO, see committed records and are told of aborted ones', async () => {
    const found = await client.request(ApiKey.FindCoordinator, 2, encodeFindCoordinatorRequest, decodeFindCoordinatorResponse, { key: 'etl-1', keyType: 1 });
    expect(found).toMatchObject({ errorCode: ErrorCode.NONE, nodeId: 1 });
    const init = await initProducerId('etl-1');
    expect(init).toMatchObject({ errorCode: ErrorCode.NONE, producerEpoch: 0 });
    const { producerId, producerEpoch } = init;

    expect(await addPartition('etl-1', producerId, producerEpoch)).toBe(ErrorCode.NONE);
    const written = await produce(client, 7, [{ topic: TOPIC, partition: 0, records: batch(['a', 'b'], { producerId, producerEpoch, baseSequence: 0, isTransactional: true }) }],
      { acks: -1, transactionalId: 'etl-1' });
    expect(written.responses[0]!.partitionResponses[0]!.errorCode).toBe(ErrorCode.NONE);
    const held = await readCommitted();
    expect(held.lastStableOffset).toBe(0);
    expect(decodeRecords(held.records).records).toEqual([]);

    expect(await endTxn('etl-1', producerId, producerEpoch, true)).toBe(ErrorCode.NONE);
    const committed = await until(readCommitted, (partition) => partition.lastStableOffset === partition.highWatermark);
    const read = decodeRecords(committed.records);
    expect(read.headers.map((header) => header.isControl)).toEqual([false, true]);
    expect(read.records.slice(0, 2).map((record) => record.value!.toString())).toEqual(['a', 'b']);
    expect(committed.abortedTransactions).toEqual([]);

    // The next transaction may start once the markers are written (CONCURRENT_TRANSACTIONS until then).
    expect(await until(() => addPartition('etl-1', producerId, producerEpoch), (error) => error !== ErrorCode.CONCURRENT_TRANSACTIONS)).toBe(ErrorCode.NONE);
    await produce(client, 7, [{ topic: TOPIC, partition: 0, records: batch(['x'], { producerId, producerEpoch, baseSequence: 2, isTransactional: true }) }],
      { acks: -1, transactionalId: 'etl-1' });
    expect(await endTxn('etl-1', producerId, producerEpoch, false)).toBe(ErrorCode.NONE);
    const aborted = await until(readCommitted, (partition) => partition.lastStableOffset === partition.highWatermark);
    expect(aborted.abortedTransactions).toEqual([{ producerId, firstOffset: 3 }]);
  });

  it('a new producer of the same transactional id fences the zombie and aborts its open transaction', async () => {
    const zombie = await initProducerId('etl-2');
    expect(await addPartition('etl-2', zombie.producerId, zombie.producerEpoch)).toBe(ErrorCode.NONE);
    await produce(client, 7, [{ topic: TOPIC, partition: 0, records: batch(['zombie'], { producerId: zombie.producerId, producerEpoch: zombie.producerEpoch, baseSequence: 0, isTransactional: true }) }],
      { acks: -1, transactionalId: 'etl-2' });

    const successor = await initProducerId('etl-2');
    expect(successor).toMatchObject({ errorCode: ErrorCode.NONE, producerId: zombie.producerId, producerEpoch: zombie.producerEpoch + 2 });
    expect(await endTxn('etl-2', zombie.producerId, zombie.producerEpoch, true)).toBe(ErrorCode.PRODUCER_FENCED);
    const late = await produce(client, 7, [{ topic: TOPIC, partition: 0, records: batch(['late'], { producerId: zombie.producerId, producerEpoch: zombie.producerEpoch, baseSequence: 1, isTransactional: true }) }],
      { acks: -1, transactionalId: 'etl-2' });
    expect(late.responses[0]!.partitionResponses[0]!.errorCode).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);

    const settled = await until(readCommitted, (partition) => partition.lastStableOffset === partition.highWatermark);
    expect(settled.abortedTransactions.map((txn) => txn.producerId)).toContain(zombie.producerId);

    const described = await client.request(ApiKey.DescribeTransactions, 0, encodeDescribeTransactionsRequest, decodeDescribeTransactionsResponse,
      { transactionalIds: ['etl-2'] });
    expect(described.transactionStates[0]).toMatchObject({ errorCode: ErrorCode.NONE, transactionState: 'Empty', producerEpoch: zombie.producerEpoch + 2 });
    const listed = await client.request(ApiKey.ListTransactions, 1, encodeListTransactionsRequest, decodeListTransactionsResponse,
      { stateFilters: [], producerIdFilters: [], durationFilter: -1 });
    expect(listed.transactionStates.map((txn) => txn.transactionalId).sort()).toEqual(['etl-1', 'etl-2']);
  });
});
