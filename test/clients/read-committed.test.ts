/**
 * read_committed end to end on one broker: transactional batches go in through the broker's
 * ReplicaManager (the transaction coordinator's Produce path is txn-coord's) and markers through
 * ReplicaManager.appendTxnMarkers (what the coordinator calls); our Consumer over TCP and a JSON
 * subscriber over WebSocket see exactly the committed records, never a control record, and are
 * held at the first record of an open transaction.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { libraryBrokerConfig } from '../../host/broker.js';
import { Admin } from '../../host/clients/admin.js';
import { Consumer, type ConsumerRecord } from '../../host/clients/consumer.js';
import { systemEnvironment } from '../../host/io/environment.js';
import { createLogger } from '../../host/observability/logger.js';
import { buildRecordBatch } from '../../host/record/batch-builder.js';
import { BrokerServer } from '../../host/server/broker-server.js';
import { getCore } from '../../host/wasm/core.js';
import { TestWebSocket } from '../network/websocket-test-client.js';

let logDir: string;
let server: BrokerServer;
let bootstrap: string;
const TOPIC = 'txn-read-committed';

beforeAll(async () => {
  logDir = mkdtempSync(join(tmpdir(), 'tributary-read-committed-'));
  const config = libraryBrokerConfig({
    logDirs: logDir,
    overrides: { 'http.listeners': '127.0.0.1:0', 'num.partitions': 1, 'offsets.topic.num.partitions': 1, 'group.initial.rebalance.delay.ms': 0 },
  });
  server = new BrokerServer(config, systemEnvironment(), { core: getCore(), logger: createLogger({ level: 'silent' }) });
  await server.startup();
  const listener = server.listeners[0]!;
  bootstrap = `${listener.host}:${listener.port}`;
  const admin = new Admin({ bootstrapServers: [bootstrap] });
  try {
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 1, replicationFactor: 1 }] });
  } finally {
    await admin.close();
  }
});

afterAll(async () => {
  await server?.shutdown();
  rmSync(logDir, { recursive: true, force: true });
});

const sequences = new Map<number, number>();

async function append(producerId: number, values: string[]): Promise<void> {
  const baseSequence = producerId < 0 ? -1 : sequences.get(producerId) ?? 0;
  if (producerId >= 0) sequences.set(producerId, baseSequence + values.length);
  const records = buildRecordBatch({
    records: values.map((value) => ({ value })), producerId, producerEpoch: producerId < 0 ? -1 : 0, baseSequence, isTransactional: producerId >= 0,
  });
  const [result] = await server.replicas.appendRecords({ requiredAcks: -1, timeoutMs: 5000, entries: [{ topic: TOPIC, partition: 0, records }] });
  expect(result!.errorCode).toBe(0);
}

async function end(producerId: number, commit: boolean): Promise<void> {
  const [result] = await server.replicas.appendTxnMarkers([{
    producerId, producerEpoch: 0, transactionResult: commit, coordinatorEpoch: 0, topics: [{ name: TOPIC, partitionIndexes: [0] }],
  }]);
  expect(result!.topics[0]!.partitions[0]!.errorCode).toBe(0);
}

async function pollValues(consumer: Consumer, count: number, polls = 40): Promise<string[]> {
  const values: string[] = [];
  for (let attempt = 0; attempt < polls && values.length < count; attempt++) {
    const records: ConsumerRecord[] = await consumer.poll(250);
    values.push(...records.map((r) => Buffer.from(r.value as Uint8Array).toString()));
  }
  return values;
}

describe('read_committed consumers', () => {
  it('see only committed records over TCP and WebSocket JSON, held at an open transaction', async () => {
    await append(-1, ['plain-1']);
    await append(101, ['aborted-1', 'aborted-2']);
    await append(102, ['committed-1']);
    await end(101, false);
    await append(-1, ['plain-2']);
    await end(102, true);
    await append(103, ['open-1']);      // open: holds readers here
    await append(-1, ['plain-3']);
    const expected = ['plain-1', 'committed-1', 'plain-2'];

    const consumer = new Consumer({ bootstrapServers: [bootstrap], isolationLevel: 'read_committed', autoOffsetReset: 'earliest' });
    const socket = await TestWebSocket.open(server.httpListeners[0]!.port, '/json');
    try {
      consumer.assign([{ topic: TOPIC, partition: 0 }]);
      expect(await pollValues(consumer, expected.length)).toEqual(expected);
      // Nothing past the open transaction's first offset, though plain-3 is above the HW.
      expect(await pollValues(consumer, 1, 3)).toEqual([]);
      expect(server.replicas.getPartition(TOPIC, 0)!.lastStableOffset).toBe(7);

      socket.sendJson({ id: 1, op: 'subscribe', topics: [TOPIC], fromBeginning: true, credits: 100, isolationLevel: 'read_committed' });
      expect(await socket.nextJsonMatching((m) => m.id === 1)).toMatchObject({ op: 'subscribed' });
      const pushed: string[] = [];
      while (pushed.length < expected.length) {
        const message = await socket.nextJsonMatching((m) => m.op === 'records');
        pushed.push(...(message.records as { value: string }[]).map((r) => r.value));
      }
      expect(pushed).toEqual(expected);

      // ListOffsets latest under read_committed is the LSO: a reader starting at "latest" now
      // begins at the open transaction's first record.
      const latest = new Consumer({ bootstrapServers: [bootstrap], isolationLevel: 'read_committed', autoOffsetReset: 'latest' });
      latest.assign([{ topic: TOPIC, partition: 0 }]);
      expect(await pollValues(latest, 1, 3)).toEqual([]);

      await end(103, true);
      expect(await pollValues(consumer, 2)).toEqual(['open-1', 'plain-3']);
      expect(await pollValues(latest, 2)).toEqual(['open-1', 'plain-3']);
      await latest.close();
      const after: string[] = [];
      while (after.length < 2) {
        const message = await socket.nextJsonMatching((m) => m.op === 'records');
        after.push(...(message.records as { value: string }[]).map((r) => r.value));
      }
      expect(after).toEqual(['open-1', 'plain-3']);
    } finally {
      socket.destroy();
      await consumer.close();
    }
  });

  it('rejects an unknown isolationLevel in a JSON subscribe', async () => {
    const socket = await TestWebSocket.open(server.httpListeners[0]!.port, '/json');
    try {
      socket.sendJson({ id: 1, op: 'subscribe', topics: [TOPIC], isolationLevel: 'serializable' });
      expect(await socket.nextJsonMatching((m) => m.id === 1)).toMatchObject({ op: 'error', error: { code: 'INVALID_MESSAGE' } });
    } finally {
      socket.destroy();
    }
  });
});
