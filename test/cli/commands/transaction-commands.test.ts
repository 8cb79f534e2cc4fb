/**
 * `tributary transactions list|describe|describe-producers|find-hanging|abort` against an
 * in-process broker with an open transaction of our transactional Producer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admin } from '../../../host/clients/admin.js';
import { ProducerFencedError } from '../../../host/clients/errors.js';
import { Producer } from '../../../host/clients/producer.js';
import { startTestBroker, type TestBroker } from '../../clients/broker-harness.js';
import { runInProcess } from './cli-harness.js';

let broker: TestBroker;
let b: string[];
let producer: Producer;

beforeAll(async () => {
  broker = await startTestBroker({ 'transaction.state.log.num.partitions': 3 });
  b = ['-b', broker.bootstrap];
  const admin = new Admin({ bootstrapServers: [broker.bootstrap] });
  await admin.createTopics({ topics: [{ topic: 'cli-txn', numPartitions: 1 }] });
  await admin.close();
  producer = new Producer({ bootstrapServers: [broker.bootstrap], transactionalId: 'cli-tx', lingerMs: 1 });
  await producer.initTransactions();
  producer.beginTransaction();
  await producer.send({ topic: 'cli-txn', messages: [{ value: 'open', partition: 0 }] });
});

afterAll(async () => {
  await producer?.close().catch(() => undefined);
  await broker?.stop();
});

describe('tributary transactions', () => {
  it('lists and describes an open transaction: state, producer, timeout, partitions', async () => {
    const listed = await runInProcess(['transactions', 'list', '--json', ...b]);
    expect(JSON.parse(listed.out)).toEqual([{ transactionalId: 'cli-tx', coordinatorId: 1, producerId: producer.producerIdAndEpoch.producerId, state: 'Ongoing' }]);
    const described = await runInProcess(['transactions', 'describe', 'cli-tx', ...b]);
    expect(described.out).toMatch(/cli-tx\s+1\s+\d+\s+0\s+Ongoing\s+60000\s+\S+Z\s+cli-txn-0/);
    const filtered = await runInProcess(['transactions', 'list', '--state', 'CompleteCommit', '--json', ...b]);
    expect(JSON.parse(filtered.out)).toEqual([]);
  });

  it('describe-producers: the partition leader shows the producer, its epoch, last sequence and the open transaction\'s start offset (DescribeProducers)', async () => {
    const described = await runInProcess(['transactions', 'describe-producers', '--topic', 'cli-txn', '--json', ...b]);
    expect(described.codes.filter((code) => code !== 0)).toEqual([]);
    expect(JSON.parse(described.out)).toEqual([{
      topic: 'cli-txn', partition: 0, leaderId: 1, producerId: producer.producerIdAndEpoch.producerId, producerEpoch: 0, lastSequence: 0,
      lastTimestamp: expect.any(Number), coordinatorEpoch: -1, currentTransactionStartOffset: 0,
    }]);
    const table = await runInProcess(['transactions', 'describe-producers', '-t', 'cli-txn', '--partition', '0', ...b]);
    expect(table.out).toMatch(new RegExp(`0\\s+1\\s+${producer.producerIdAndEpoch.producerId}\\s+0\\s+0\\s+\\d+\\s+-1\\s+0`));
    const unknown = await runInProcess(['transactions', 'describe-producers', '--topic', 'cli-txn', '--partition', '7', ...b]);
    expect(unknown.codes.filter((code) => code !== 0)).not.toEqual([]);
  });

  it('finds the transaction as hanging past the threshold, and aborts it by fencing its producer', async () => {
    const hanging = await runInProcess(['transactions', 'find-hanging', '--max-transaction-timeout', '0', '--json', ...b]);
    expect(JSON.parse(hanging.out).map((t: { transactionalId: string }) => t.transactionalId)).toEqual(['cli-tx']);
    const notYet = await runInProcess(['transactions', 'find-hanging', '--json', ...b]);
    expect(JSON.parse(notYet.out)).toEqual([]);
    const aborted = await runInProcess(['transactions', 'abort', 'cli-tx', ...b]);
    expect(aborted.codes.filter((code) => code !== 0)).toEqual([]);
    await expect(producer.commitTransaction()).rejects.toBeInstanceOf(ProducerFencedError);
    const described = await runInProcess(['transactions', 'describe', 'cli-tx', '--json', ...b]);
    expect(JSON.parse(described.out)[0]).toMatchObject({ transactionalId: 'cli-tx', partitions: [] });
    expect(['PrepareAbort', 'CompleteAbort']).toContain(JSON.parse(described.out)[0].state);
    // Once the abort marker is written the partition shows no open transaction and the marker's coordinator epoch.
    let producers: { currentTransactionStartOffset: number; coordinatorEpoch: number; producerEpoch: number }[] = [];
    for (let attempt = 0; attempt < 100 && producers[0]?.currentTransactionStartOffset !== -1; attempt++) {
      producers = JSON.parse((await runInProcess(['transactions', 'describe-producers', '--topic', 'cli-txn', '--json', ...b])).out);
    }
    expect(producers).toMatchObject([{ currentTransactionStartOffset: -1, producerEpoch: 1 }]);
    expect(producers[0]!.coordinatorEpoch).toBeGreaterThanOrEqual(0);
  });
});
