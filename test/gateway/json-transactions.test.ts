/**
 * Transactions over the /json WebSocket subprotocol against one broker: a committed transaction's
 * records are read by a read_committed reader, an aborted one's are not; offsets sent to a
 * transaction become the group's only on commit; a second session initializing the same
 * transactional id fences the first (PRODUCER_FENCED); calls in the wrong state answer
 * INVALID_TXN_STATE.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { libraryBrokerConfig } from '../../host/broker.js';
import { Admin } from '../../host/clients/admin.js';
import { Consumer } from '../../host/clients/consumer.js';
import { systemEnvironment } from '../../host/io/environment.js';
import { createLogger } from '../../host/observability/logger.js';
import { BrokerServer } from '../../host/server/broker-server.js';
import { getCore } from '../../host/wasm/core.js';
import { TestWebSocket } from '../network/websocket-test-client.js';

type Json = Record<string, unknown>;

let logDir: string;
let server: BrokerServer;
let bootstrap: string;
let admin: Admin;
const sockets: TestWebSocket[] = [];

beforeAll(async () => {
  logDir = mkdtempSync(join(tmpdir(), 'tributary-json-txn-'));
  const config = libraryBrokerConfig({
    logDirs: logDir,
    overrides: {
      'http.listeners': '127.0.0.1:0', 'num.partitions': 1, 'offsets.topic.num.partitions': 1,
      'transaction.state.log.num.partitions': 1, 'group.initial.rebalance.delay.ms': 0,
    },
  });
  server = new BrokerServer(config, systemEnvironment(), { core: getCore(), logger: createLogger({ level: 'silent' }) });
  await server.startup();
  const listener = server.listeners[0]!;
  bootstrap = `${listener.host}:${listener.port}`;
  admin = new Admin({ bootstrapServers: [bootstrap] });
});

afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
});

afterAll(async () => {
  await admin?.close();
  await server?.shutdown();
  rmSync(logDir, { recursive: true, force: true });
});

async function open(): Promise<TestWebSocket> {
  const socket = await TestWebSocket.open(server.httpListeners[0]!.port, '/json');
  sockets.push(socket);
  return socket;
}

let nextId = 1;
/** Sends one operation and waits for the reply with its id. */
async function call(socket: TestWebSocket, message: Json): Promise<Json> {
  const id = nextId++;
  socket.sendJson({ id, ...message });
  return socket.nextJsonMatching((m) => m.id === id);
}

/** Values a read_committed Consumer reads from the start of partition 0 of `topic`, until `count` or 20 empty-ish polls. */
async function readCommitted(topic: string, count: number): Promise<string[]> {
  const consumer = new Consumer({ bootstrapServers: [bootstrap], isolationLevel: 'read_committed', maxWaitMs: 100 });
  try {
    consumer.assign([{ topic, partition: 0 }]);
    consumer.seek({ topic, partition: 0 }, 0);
    const values: string[] = [];
    for (let round = 0; round < 20 && values.length < count; round++) {
      for (const record of await consumer.poll(200)) values.push(Buffer.from(record.value as Uint8Array).toString());
    }
    return values;
  } finally {
    await consumer.close();
  }
}

describe('JSON transactions', { timeout: 60_000 }, () => {
  it('commits and aborts: a read_committed reader sees exactly the committed records', async () => {
    await admin.createTopics({ topics: [{ topic: 'jt-out', numPartitions: 1, replicationFactor: 1 }] });
    const socket = await open();
    expect(await call(socket, { op: 'initTransactions', transactionalId: 'jt-1' })).toMatchObject({ op: 'transactionsInitialized', transactionalId: 'jt-1' });

    expect(await call(socket, { op: 'beginTransaction' })).toMatchObject({ op: 'transactionBegun' });
    expect(await call(socket, { op: 'produce', topic: 'jt-out', records: [{ value: 'c1' }, { value: 'c2' }] })).toMatchObject({ op: 'produced' });
    expect(await call(socket, { op: 'commitTransaction' })).toMatchObject({ op: 'transactionCommitted' });

    expect(await call(socket, { op: 'beginTransaction' })).toMatchObject({ op: 'transactionBegun' });
    expect(await call(socket, { op: 'produce', topic: 'jt-out', records: [{ value: 'aborted' }] })).toMatchObject({ op: 'produced' });
    expect(await call(socket, { op: 'abortTransaction' })).toMatchObject({ op: 'transactionAborted' });

    expect(await call(socket, { op: 'beginTransaction' })).toMatchObject({ op: 'transactionBegun' });
    expect(await call(socket, { op: 'produce', topic: 'jt-out', records: [{ value: 'c3' }] })).toMatchObject({ op: 'produced' });
    expect(await call(socket, { op: 'commitTransaction' })).toMatchObject({ op: 'transactionCommitted' });

    // Read to the end: the aborted record (between c2 and c3) never appears.
    expect(await readCommitted('jt-out', 4)).toEqual(['c1', 'c2', 'c3']);
  });

  it('commits sent offsets with the transaction only', async () => {
    await admin.createTopics({ topics: [{ topic: 'jt-offsets', numPartitions: 1, replicationFactor: 1 }] });
    const socket = await open();
    await call(socket, { op: 'initTransactions', transactionalId: 'jt-offsets' });
    const offsets = [{ topic: 'jt-offsets', partition: 0, offset: 7 }];

    await call(socket, { op: 'beginTransaction' });
    expect(await call(socket, { op: 'sendOffsetsToTransaction', group: 'jt-group', offsets })).toMatchObject({ op: 'offsetsSentToTransaction', group: 'jt-group' });
    await call(socket, { op: 'abortTransaction' });
    const afterAbort = await admin.fetchOffsets({ groupId: 'jt-group' });
    expect(afterAbort.find((o) => o.topic === 'jt-offsets')?.offset ?? -1).toBe(-1);

    await call(socket, { op: 'beginTransaction' });
    await call(socket, { op: 'sendOffsetsToTransaction', group: 'jt-group', offsets });
    expect(await call(socket, { op: 'commitTransaction' })).toMatchObject({ op: 'transactionCommitted' });
    const afterCommit = await admin.fetchOffsets({ groupId: 'jt-group' });
    expect(afterCommit.find((o) => o.topic === 'jt-offsets')?.offset).toBe(7);
  });

  it('answers PRODUCER_FENCED to a session fenced by a newer one, INVALID_TXN_STATE to calls in the wrong state', async () => {
    await admin.createTopics({ topics: [{ topic: 'jt-fence', numPartitions: 1, replicationFactor: 1 }] });
    const first = await open();
    expect(await call(first, { op: 'beginTransaction' })).toMatchObject({ op: 'error', error: { code: 'INVALID_TXN_STATE', kafkaErrorCode: 48 } });
    await call(first, { op: 'initTransactions', transactionalId: 'jt-zombie' });
    expect(await call(first, { op: 'produce', topic: 'jt-fence', records: [{ value: 'outside' }] })).toMatchObject({ op: 'error', error: { code: 'INVALID_TXN_STATE' } });
    expect(await call(first, { op: 'initTransactions', transactionalId: 'jt-zombie' })).toMatchObject({ op: 'error', error: { code: 'INVALID_TXN_STATE' } });
    await call(first, { op: 'beginTransaction' });
    await call(first, { op: 'produce', topic: 'jt-fence', records: [{ value: 'zombie' }] });

    const second = await open();
    expect(await call(second, { op: 'initTransactions', transactionalId: 'jt-zombie' })).toMatchObject({ op: 'transactionsInitialized' });
    const fenced = await call(first, { op: 'commitTransaction' });
    expect(fenced).toMatchObject({ op: 'error', error: { code: 'PRODUCER_FENCED', kafkaErrorCode: 90 } });

    await call(second, { op: 'beginTransaction' });
    await call(second, { op: 'produce', topic: 'jt-fence', records: [{ value: 'new' }] });
    await call(second, { op: 'commitTransaction' });
    expect(await readCommitted('jt-fence', 2)).toEqual(['new']);
  });

  it('rejects malformed transaction messages', async () => {
    const socket = await open();
    expect(await call(socket, { op: 'initTransactions' })).toMatchObject({ op: 'error', error: { code: 'INVALID_MESSAGE' } });
    expect(await call(socket, { op: 'sendOffsetsToTransaction', group: 'g', offsets: [{ topic: 't', partition: -1, offset: 0 }] }))
      .toMatchObject({ op: 'error', error: { code: 'INVALID_MESSAGE' } });
  });
});
