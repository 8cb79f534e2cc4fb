/**
 * Our transactional Producer against an in-process broker: commit and abort seen by a
 * read_committed Consumer, sendOffsetsToTransaction moving a group's offsets only on commit, a
 * zombie fenced with ProducerFencedError, and the state errors of misuse.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admin } from '../../host/clients/admin.js';
import { Consumer } from '../../host/clients/consumer.js';
import { ProducerFencedError, TransactionStateError } from '../../host/clients/errors.js';
import { Producer } from '../../host/clients/producer.js';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { startTestBroker, type TestBroker } from './broker-harness.js';
import { FaultInjector } from './fault-transport.js';

let broker: TestBroker;
let admin: Admin;
const closing: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  broker = await startTestBroker({ 'transaction.state.log.num.partitions': 3 });
  admin = new Admin({ bootstrapServers: [broker.bootstrap] });
  closing.push(admin);
});

afterAll(async () => {
  await Promise.allSettled(closing.map((client) => client.close()));
  await broker.stop();
});

function producer(transactionalId: string): Producer {
  const created = new Producer({ bootstrapServers: [broker.bootstrap], transactionalId, lingerMs: 1 });
  closing.push(created);
  return created;
}

/** The values a read_committed consumer reads from the start of `topic` (partition 0) until `count` or the end. */
async function readCommitted(topic: string, count: number): Promise<string[]> {
  const consumer = new Consumer({ bootstrapServers: [broker.bootstrap], isolationLevel: 'read_committed', maxWaitMs: 100 });
  try {
    consumer.assign([{ topic, partition: 0 }]);
    consumer.seek({ topic, partition: 0 }, 0);
    const values: string[] = [];
    for (let round = 0; round < 30 && values.length < count; round++) {
      for (const record of await consumer.poll(200)) values.push(record.value === null ? '<null>' : Buffer.from(record.value).toString());
    }
    return values;
  } finally {
    await consumer.close();
  }
}

describe('transactional Producer', { timeout: 60_000 }, () => {
  it('commits and aborts: a read_committed consumer reads exactly the committed records', async () => {
    await admin.createTopics({ topics: [{ topic: 'tp-out', numPartitions: 1 }] });
    const p = producer('tp-1');
    await p.initTransactions();
    p.beginTransaction();
    await p.send({ topic: 'tp-out', messages: [{ value: 'c1', partition: 0 }, { value: 'c2', partition: 0 }] });
    await p.commitTransaction();
    p.beginTransaction();
    await p.send({ topic: 'tp-out', messages: [{ value: 'gone', partition: 0 }] });
    await p.abortTransaction();
    p.beginTransaction();
    await p.send({ topic: 'tp-out', messages: [{ value: 'c3', partition: 0 }] });
    await p.commitTransaction();
    expect(await readCommitted('tp-out', 3)).toEqual(['c1', 'c2', 'c3']);
  });

  it('commits consumed offsets with the transaction only', async () => {
    await admin.createTopics({ topics: [{ topic: 'tp-in', numPartitions: 1 }, { topic: 'tp-sink', numPartitions: 1 }] });
    const p = producer('tp-2');
    await p.initTransactions();
    const group = { groupId: 'tp-group', generationId: -1, memberId: '', groupInstanceId: null };
    p.beginTransaction();
    await p.send({ topic: 'tp-sink', messages: [{ value: 'x', partition: 0 }] });
    await p.sendOffsetsToTransaction([{ topic: 'tp-in', partition: 0, offset: 7 }], group);
    await p.commitTransaction();
    p.beginTransaction();
    await p.sendOffsetsToTransaction([{ topic: 'tp-in', partition: 0, offset: 12 }], group);
    await p.abortTransaction();
    const offsets = await admin.fetchOffsets({ groupId: 'tp-group' });
    expect(offsets.find((o) => o.topic === 'tp-in' && o.partition === 0)?.offset).toBe(7);
  });

  it('a newer producer with the same transactional id fences the zombie (ProducerFencedError) and aborts its open transaction', async () => {
    await admin.createTopics({ topics: [{ topic: 'tp-zombie', numPartitions: 1 }] });
    const zombie = producer('tp-3');
    await zombie.initTransactions();
    zombie.beginTransaction();
    await zombie.send({ topic: 'tp-zombie', messages: [{ value: 'zombie', partition: 0 }] });
    const successor = producer('tp-3');
    await successor.initTransactions();
    await expect(zombie.commitTransaction()).rejects.toBeInstanceOf(ProducerFencedError);
    successor.beginTransaction();
    await successor.send({ topic: 'tp-zombie', messages: [{ value: 'alive', partition: 0 }] });
    await successor.commitTransaction();
    expect(await readCommitted('tp-zombie', 1)).toEqual(['alive']);
  });

  it('refuses send() outside a transaction and a commit without one', async () => {
    const p = producer('tp-4');
    await expect(p.send({ topic: 'tp-out', messages: [{ value: 'v' }] })).rejects.toBeInstanceOf(TransactionStateError);
    await p.initTransactions();
    await expect(p.commitTransaction()).rejects.toBeInstanceOf(TransactionStateError);
    expect(() => new Producer({ bootstrapServers: [broker.bootstrap], transactionalId: 'x', acks: 1 })).toThrow(RangeError);
  });

  it('finds the transaction coordinator again after losing its connection, and asks for metadata again after losing a Produce\'s', async () => {
    await admin.createTopics({ topics: [{ topic: 'tp-lost', numPartitions: 1 }] });
    const faults = new FaultInjector();
    const p = new Producer({ bootstrapServers: [broker.bootstrap], transactionalId: 'tp-5', lingerMs: 1, retryBackoffMs: 10, transportFactory: faults.factory });
    closing.push(p);
    await p.initTransactions();
    p.beginTransaction();
    await p.send({ topic: 'tp-lost', messages: [{ value: 'warm-up', partition: 0 }] });
    await p.commitTransaction();
    const sent = (apiKey: number): number => faults.sent.get(apiKey) ?? 0;
    const [finds, metadata] = [sent(ApiKey.FindCoordinator), sent(ApiKey.Metadata)];
    p.beginTransaction();
    // The requests take effect; their answers are lost with the connection.
    faults.dropResponses(ApiKey.AddPartitionsToTxn, 1);
    faults.dropResponses(ApiKey.Produce, 1);
    await p.send({ topic: 'tp-lost', messages: [{ value: 'kept', partition: 0 }] });
    faults.dropResponses(ApiKey.EndTxn, 1);
    await p.commitTransaction();
    expect(sent(ApiKey.FindCoordinator)).toBeGreaterThanOrEqual(finds + 2);
    expect(sent(ApiKey.Metadata)).toBeGreaterThan(metadata);
    expect(await readCommitted('tp-lost', 2)).toEqual(['warm-up', 'kept']);
  });
});
