import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type RunningBroker } from '../../host/broker.js';
import type { NetworkLogger } from '../../host/network/network-types.js';
import { createJsonGateway, type JsonGatewayOptions } from '../../host/gateway/json-gateway.js';
import { WebSocketCloseCode, type WebSocketGateway } from '../../host/network/websocket-gateway.js';
import { tcpBridgeHandler } from '../network/kafka-tcp-bridge.js';
import { OPCODE_BINARY, TestWebSocket, waitUntil } from '../network/websocket-test-client.js';

// The /json subprotocol against a real broker (through a TCP bridge to its dispatcher): every
// message type, every error, credit-based flow control, commits through a consumer group, and a
// slow subscriber that must not grow memory or slow others.

type Json = Record<string, unknown>;

const quiet: NetworkLogger = { debug() {}, info() {}, warn() {}, error() {} };

let logDir: string;
let broker: RunningBroker;
let bridge: ReturnType<typeof tcpBridgeHandler>;
const gateways: WebSocketGateway[] = [];
const clients: JsonClient[] = [];

beforeAll(async () => {
  logDir = mkdtempSync(join(tmpdir(), 'tributary-ws-json-'));
  broker = await startBroker({
    logDirs: logDir,
    overrides: { 'num.partitions': 1, 'offsets.topic.num.partitions': 1, 'group.initial.rebalance.delay.ms': 0 },
  });
  bridge = tcpBridgeHandler(broker.port);
});

afterEach(async () => {
  for (const client of clients.splice(0)) client.socket.destroy();
  await Promise.all(gateways.splice(0).map((gateway) => gateway.stop(5000)));
});

afterAll(async () => {
  bridge?.close();
  await broker?.stop();
  rmSync(logDir, { recursive: true, force: true });
});

async function startGateway(options: Partial<JsonGatewayOptions> = {}): Promise<{ gateway: WebSocketGateway; port: number }> {
  const gateway = createJsonGateway({
    host: '127.0.0.1',
    port: 0,
    handler: bridge,
    logger: quiet,
    ...options,
    json: { autoCommitIntervalMs: 200, sessionTimeoutMs: 10_000, heartbeatIntervalMs: 500, ...options.json },
  });
  gateways.push(gateway);
  return { gateway, port: (await gateway.start()).port };
}

/** A /json client: replies by id, pushed records and events in arrival order. */
class JsonClient {
  private nextId = 1;
  private cursor = 0;
  readonly received: Json[] = [];
  /** Pushed records, flattened, in arrival order. */
  readonly pushed: Json[] = [];
  private waiters: Array<() => void> = [];

  constructor(readonly socket: TestWebSocket) {
    void this.pump();
  }

  static async open(port: number): Promise<JsonClient> {
    const client = new JsonClient(await TestWebSocket.open(port, '/json'));
    clients.push(client);
    return client;
  }

  private async pump(): Promise<void> {
    for (;;) {
      let message: Json;
      try {
        message = await this.socket.nextJson();
      } catch {
        this.notify();
        return;
      }
      this.received.push(message);
      if (message.op === 'records') this.pushed.push(...(message.records as Json[]));
      this.notify();
    }
  }

  private notify(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  /** Waits for the first message from the cursor on that matches, and moves the cursor past it. */
  async waitFor(predicate: (message: Json) => boolean): Promise<Json> {
    for (;;) {
      for (let i = this.cursor; i < this.received.length; i++) {
        if (predicate(this.received[i]!)) return this.received[i]!;
      }
      if (this.socket.closeInfo !== null) throw new Error(`socket closed (${this.socket.closeInfo.code} ${this.socket.closeInfo.reason})`);
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** Sends `message` with a fresh id and resolves with its reply (or error reply). */
  async request(message: Json): Promise<Json> {
    const id = message.id ?? this.nextId++;
    this.socket.sendJson({ ...message, id });
    return this.waitFor((reply) => reply.id === id);
  }

  sendRaw(text: string): void {
    this.socket.sendText(text);
  }

  /** Pushed records so far, flattened. */
  records(): Json[] {
    return [...this.pushed];
  }

  async waitForRecords(count: number): Promise<Json[]> {
    while (this.pushed.length < count) {
      if (this.socket.closeInfo !== null) throw new Error(`socket closed after ${this.pushed.length} of ${count} records`);
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    return this.records();
  }

  /** Records pushed before `message` arrived. */
  recordsBefore(message: Json): number {
    return this.received.slice(0, this.received.indexOf(message)).filter((m) => m.op === 'records').reduce((n, m) => n + (m.records as Json[]).length, 0);
  }
}

function errorOf(reply: Json): Json {
  expect(reply.op).toBe('error');
  return reply.error as Json;
}

async function produce(client: JsonClient, topic: string, values: string[], extra: Json = {}): Promise<Json> {
  const reply = await client.request({ op: 'produce', topic, records: values.map((value) => ({ key: `k-${value}`, value, ...extra })) });
  expect(reply.op).toBe('produced');
  return reply;
}

describe('JSON subprotocol operations', () => {
  it('produces records with keys, headers, explicit partitions and timestamps, and lists topics', async () => {
    const { port } = await startGateway();
    const client = await JsonClient.open(port);
    const reply = await client.request({
      op: 'produce',
      topic: 'json-produce',
      records: [
        { key: 'k', value: 'v', headers: { source: 'test', empty: null }, partition: 0, timestamp: 1_700_000_000_000 },
        { value: null },
      ],
    });
    expect(reply).toMatchObject({ op: 'produced', topic: 'json-produce' });
    expect(reply.results).toEqual([
      { partition: 0, offset: 0, timestamp: 1_700_000_000_000 },
      { partition: 0, offset: 1, timestamp: expect.any(Number) },
    ]);
    const topics = await client.request({ op: 'listTopics' });
    expect(topics.op).toBe('topics');
    expect(topics.topics).toContainEqual({ name: 'json-produce', partitions: 1 });
    expect((topics.topics as Json[]).some((topic) => String(topic.name).startsWith('__'))).toBe(false);
  });

  it('pushes records to a group subscriber, never more than the credits granted', async () => {
    const { port } = await startGateway();
    const producer = await JsonClient.open(port);
    await produce(producer, 'json-credits', ['a', 'b', 'c', 'd', 'e', 'f', 'g']);
    const consumer = await JsonClient.open(port);
    const subscribed = await consumer.request({ op: 'subscribe', topics: ['json-credits'], group: 'g-credits', fromBeginning: true, credits: 3 });
    expect(subscribed).toMatchObject({ op: 'subscribed', topics: ['json-credits'], group: 'g-credits', credits: 3 });
    const assigned = await consumer.waitFor((m) => m.op === 'assigned');
    expect(assigned.partitions).toEqual([{ topic: 'json-credits', partition: 0 }]);
    await consumer.waitForRecords(3);
    // Every record pushed before a reply is on the wire before it: never more than granted so far.
    const credited = await consumer.request({ op: 'credit', n: 2 });
    expect(credited.op).toBe('credited');
    expect(consumer.recordsBefore(credited)).toBeLessThanOrEqual(5);
    const records = await consumer.waitForRecords(5);
    expect(records.map((r) => r.value)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(records[0]).toMatchObject({ topic: 'json-credits', partition: 0, offset: 0, key: 'k-a', headers: {} });
    const more = await consumer.request({ op: 'credit', n: 1 });
    expect(consumer.recordsBefore(more)).toBeLessThanOrEqual(6);
    expect((await consumer.waitForRecords(6)).map((r) => r.value)).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    // Credits are used up: 'g' stays in Kafka even though it is there to be read.
    const after = await consumer.request({ op: 'listTopics' });
    expect(consumer.recordsBefore(after)).toBe(6);
    expect(consumer.records()).toHaveLength(6);
  });

  it('commits pushed offsets so a later subscriber of the group resumes after them', async () => {
    const { port } = await startGateway();
    const producer = await JsonClient.open(port);
    await produce(producer, 'json-commit', ['1', '2', '3', '4']);
    const first = await JsonClient.open(port);
    await first.request({ op: 'subscribe', topics: ['json-commit'], group: 'g-commit', fromBeginning: true, credits: 2, autoCommit: false });
    await first.waitForRecords(2);
    const committed = await first.request({ op: 'commit' });
    expect(committed).toEqual({ id: expect.any(Number), op: 'committed', offsets: [{ topic: 'json-commit', partition: 0, offset: 2 }] });
    expect(await first.request({ op: 'unsubscribe' })).toMatchObject({ op: 'unsubscribed' });

    const second = await JsonClient.open(port);
    await second.request({ op: 'subscribe', topics: ['json-commit'], group: 'g-commit', fromBeginning: true, credits: 10 });
    const records = await second.waitForRecords(2);
    expect(records.map((r) => r.value)).toEqual(['3', '4']);
    expect(records[0]!.offset).toBe(2);
  });

  it('auto-commits pushed offsets on unsubscribe for a group subscription', async () => {
    const { port } = await startGateway();
    const producer = await JsonClient.open(port);
    await produce(producer, 'json-autocommit', ['x', 'y', 'z']);
    const first = await JsonClient.open(port);
    await first.request({ op: 'subscribe', topics: ['json-autocommit'], group: 'g-auto', fromBeginning: true, credits: 1 });
    await first.waitForRecords(1);
    await first.request({ op: 'unsubscribe' });
    const second = await JsonClient.open(port);
    await second.request({ op: 'subscribe', topics: ['json-autocommit'], group: 'g-auto', fromBeginning: true, credits: 5 });
    expect((await second.waitForRecords(2)).map((r) => r.value)).toEqual(['y', 'z']);
  });

  it('reads every partition without a group, and carries bytes as base64 when asked', async () => {
    const { port } = await startGateway();
    const producer = await JsonClient.open(port);
    const bytes = Buffer.from([0, 255, 1, 254]).toString('base64');
    await producer.request({ op: 'produce', topic: 'json-base64', encoding: 'base64', records: [{ key: null, value: bytes, headers: { h: bytes } }] });
    const reader = await JsonClient.open(port);
    const subscribed = await reader.request({ op: 'subscribe', topics: ['json-base64'], fromBeginning: true, credits: 10, encoding: 'base64' });
    expect(subscribed).toMatchObject({ op: 'subscribed', group: null });
    const [record] = await reader.waitForRecords(1);
    expect(record).toMatchObject({ key: null, value: bytes, headers: { h: bytes } });
  });

  it('announces partitions revoked and assigned when a second member joins the group', async () => {
    const { port } = await startGateway();
    const admin = await JsonClient.open(port);
    await produce(admin, 'json-rebalance', ['r1']);
    const first = await JsonClient.open(port);
    await first.request({ op: 'subscribe', topics: ['json-rebalance'], group: 'g-rebalance', fromBeginning: true, credits: 10 });
    await first.waitFor((m) => m.op === 'assigned');
    await first.waitForRecords(1);
    const second = await JsonClient.open(port);
    await second.request({ op: 'subscribe', topics: ['json-rebalance'], group: 'g-rebalance', fromBeginning: true, credits: 10 });
    const revoked = await first.waitFor((m) => m.op === 'revoked');
    expect(revoked.partitions).toEqual([{ topic: 'json-rebalance', partition: 0 }]);
    // One partition, two members: exactly one of them owns it after the rebalance.
    await waitUntil(() => [first, second].some((c) => c.received.filter((m) => m.op === 'assigned').some((m) => (m.partitions as Json[]).length === 1) && c.received.filter((m) => m.op === 'assigned').length >= (c === first ? 2 : 1)));
  });
});

describe('JSON subprotocol errors', () => {
  it('answers malformed messages with INVALID_JSON, INVALID_MESSAGE and UNKNOWN_OP', async () => {
    const { port } = await startGateway();
    const client = await JsonClient.open(port);
    client.sendRaw('this is not json');
    expect(errorOf(await client.waitFor((m) => m.op === 'error'))).toMatchObject({ code: 'INVALID_JSON', kafkaErrorCode: null });
    const cases: Array<[Json, string]> = [
      [{ op: 'produce', records: [{ value: 'v' }] }, '"topic"'],
      [{ op: 'produce', topic: 't', records: [] }, '"records"'],
      [{ op: 'produce', topic: 't', records: [{ key: 'k' }] }, 'value is missing'],
      [{ op: 'produce', topic: 't', records: [{ value: 5 }] }, 'string or null'],
      [{ op: 'produce', topic: 't', encoding: 'base64', records: [{ value: 'not base64!' }] }, 'base64'],
      [{ op: 'produce', topic: 't', records: [{ value: 'v', partition: -1 }] }, 'partition'],
      [{ op: 'subscribe', topics: [] }, '"topics"'],
      [{ op: 'subscribe', topics: ['t'], credits: -5 }, '"credits"'],
      [{ op: 'subscribe', topics: ['t'], autoCommit: true }, 'group'],
      [{ op: 'credit', n: 0 }, '"n"'],
      [{ op: 'credit' }, '"n"'],
      [{ op: 42 }, '"op"'],
    ];
    for (const [index, [message, mentions]] of cases.entries()) {
      const error = errorOf(await client.request({ ...message, id: `case-${index}` }));
      expect(error.code, JSON.stringify(message)).toBe('INVALID_MESSAGE');
      expect(String(error.message), JSON.stringify(message)).toContain(mentions);
    }
    client.socket.sendJson({ id: { nested: true }, op: 'listTopics' });
    const badId = errorOf(await client.waitFor((m) => m.id === null && String((m.error as Json).message).includes('"id"')));
    expect(badId.code).toBe('INVALID_MESSAGE');
    client.sendRaw('[1,2]');
    client.sendRaw('{"id":7,"op":"teleport"}');
    const unknown = errorOf(await client.waitFor((m) => m.id === 7));
    expect(unknown).toMatchObject({ code: 'UNKNOWN_OP', kafkaErrorCode: null });
    expect(client.socket.closeInfo).toBeNull();
  });

  it('answers NOT_SUBSCRIBED, ALREADY_SUBSCRIBED and INVALID_GROUP_ID for operations out of place', async () => {
    const { port } = await startGateway();
    const client = await JsonClient.open(port);
    await produce(client, 'json-state', ['s']);
    for (const op of ['credit', 'commit', 'unsubscribe']) {
      const reply = await client.request(op === 'credit' ? { op, n: 1 } : { op });
      expect(errorOf(reply)).toMatchObject({ code: 'NOT_SUBSCRIBED', kafkaErrorCode: null });
    }
    await client.request({ op: 'subscribe', topics: ['json-state'], credits: 0 });
    expect(errorOf(await client.request({ op: 'subscribe', topics: ['json-state'] }))).toMatchObject({ code: 'ALREADY_SUBSCRIBED' });
    expect(errorOf(await client.request({ op: 'commit' }))).toMatchObject({ code: 'INVALID_GROUP_ID', kafkaErrorCode: 24 });
    // Two subscribes read together: the second must not race the first while it sets up.
    const racer = await JsonClient.open(port);
    racer.socket.sendTextsTogether([
      JSON.stringify({ id: 'first', op: 'subscribe', topics: ['json-state'] }),
      JSON.stringify({ id: 'second', op: 'subscribe', topics: ['json-state'] }),
    ]);
    expect(await racer.waitFor((m) => m.id === 'first')).toMatchObject({ op: 'subscribed' });
    expect(errorOf(await racer.waitFor((m) => m.id === 'second'))).toMatchObject({ code: 'ALREADY_SUBSCRIBED' });
  });

  it('answers Kafka errors with their Kafka name and code', async () => {
    const { port } = await startGateway({ json: { allowAutoTopicCreation: false } });
    const client = await JsonClient.open(port);
    const missing = errorOf(await client.request({ op: 'subscribe', topics: ['json-no-such-topic'], fromBeginning: true }));
    expect(missing).toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION', kafkaErrorCode: 3 });
    const produceMissing = errorOf(await client.request({ op: 'produce', topic: 'json-no-such-topic', records: [{ value: 'v' }] }));
    expect(produceMissing).toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION', kafkaErrorCode: 3 });
    const invalid = errorOf(await client.request({ op: 'produce', topic: 'bad topic name!', records: [{ value: 'v' }] }));
    expect(invalid).toMatchObject({ code: 'INVALID_TOPIC_EXCEPTION', kafkaErrorCode: 17 });
    await produce(await JsonClient.open((await startGateway()).port), 'json-one-partition', ['p']);
    const badPartition = errorOf(await client.request({ op: 'produce', topic: 'json-one-partition', records: [{ value: 'v', partition: 5 }] }));
    expect(badPartition).toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION', kafkaErrorCode: 3 });
  });

  it('refuses operations beyond the in-flight limit with TOO_MANY_REQUESTS', async () => {
    const { port } = await startGateway({ json: { maxInFlightRequests: 1 } });
    const client = await JsonClient.open(port);
    // One TCP write: the second message is read while the first waits for the broker.
    client.socket.sendTextsTogether([
      JSON.stringify({ id: 'a', op: 'produce', topic: 'json-limit', records: [{ value: '1' }] }),
      JSON.stringify({ id: 'b', op: 'listTopics' }),
    ]);
    expect(errorOf(await client.waitFor((m) => m.id === 'b'))).toMatchObject({ code: 'TOO_MANY_REQUESTS' });
    expect(await client.waitFor((m) => m.id === 'a')).toMatchObject({ op: 'produced' });
  });

  it('closes with 1003 for a binary message and with 1009 for a message above the /json limit', async () => {
    const { port } = await startGateway({ jsonMaxMessageBytes: 1024 });
    const binary = await TestWebSocket.open(port, '/json');
    binary.sendFrame(OPCODE_BINARY, Buffer.from('{}'));
    expect((await binary.closed).code).toBe(WebSocketCloseCode.UnsupportedData);
    const big = await TestWebSocket.open(port, '/json');
    big.sendText(JSON.stringify({ op: 'produce', topic: 't', records: [{ value: 'x'.repeat(2000) }] }));
    const close = await big.closed;
    expect(close.code).toBe(WebSocketCloseCode.MessageTooBig);
    expect(close.reason).toContain('1024');
  });
});

describe('JSON subprotocol lifecycle', () => {
  it('ends subscriptions and closes sockets with 1001 when the gateway stops', async () => {
    const { gateway, port } = await startGateway();
    const producer = await JsonClient.open(port);
    await produce(producer, 'json-stop', ['s1']);
    const subscriber = await JsonClient.open(port);
    await subscriber.request({ op: 'subscribe', topics: ['json-stop'], group: 'g-stop', fromBeginning: true, credits: 10 });
    await subscriber.waitForRecords(1);
    await gateway.stop(10_000);
    expect(await subscriber.socket.closed).toEqual({ code: WebSocketCloseCode.GoingAway, reason: 'broker shutting down' });
    // The group was left and the pushed offset committed: a new member starts after 's1'.
    const { port: nextPort } = await startGateway();
    const next = await JsonClient.open(nextPort);
    await produce(next, 'json-stop', ['s2']);
    await next.request({ op: 'subscribe', topics: ['json-stop'], group: 'g-stop', fromBeginning: true, credits: 10 });
    expect((await next.waitForRecords(1)).map((r) => r.value)).toEqual(['s2']);
  });
});

describe('JSON subprotocol idle sockets', () => {
  it('closes an idle /json socket with 1001 but keeps a subscribed one open', async () => {
    const { port } = await startGateway({ connectionsMaxIdleMs: 200 });
    const subscriber = await JsonClient.open(port);
    await subscriber.request({ op: 'subscribe', topics: ['json-idle'], group: 'g-idle', credits: 1 });
    await subscriber.waitFor((m) => m.op === 'assigned');
    const idle = await TestWebSocket.open(port, '/json');
    const close = await idle.closed;
    expect(close.code).toBe(WebSocketCloseCode.GoingAway);
    expect(close.reason).toContain('connections.max.idle.ms');
    // Quiet for longer than the idle socket was, yet still open: a subscription is work.
    expect(await subscriber.request({ op: 'listTopics' })).toMatchObject({ op: 'topics' });
  });
});

describe('JSON subprotocol backpressure', () => {
  it('stops pushing to a subscriber that does not read while others keep their throughput', async () => {
    const maxPendingPushBytes = 64 * 1024;
    const maxPushBytes = 16 * 1024;
    const { gateway, port } = await startGateway({ json: { maxPendingPushBytes, maxPushBytes, maxPollRecords: 100 } });
    const producer = await JsonClient.open(port);
    const value = 'v'.repeat(1024);
    for (let round = 0; round < 20; round++) await produce(producer, 'json-slow', Array.from({ length: 200 }, () => value));
    const slow = await JsonClient.open(port);
    await slow.request({ op: 'subscribe', topics: ['json-slow'], fromBeginning: true, credits: 1_000_000 });
    await slow.waitForRecords(1);
    slow.socket.pauseReading();
    const slowId = gateway.connectionStats().find((s) => s.route === 'json' && s.id === Math.max(...gateway.connectionStats().map((x) => x.id)))!.id;
    // Others keep working while the slow subscriber's socket is full (about 4.5 MB of records is
    // more than loopback kernel buffers take); what uWS buffers for it stays bounded.
    let maxBuffered = 0;
    for (let i = 0; i < 30; i++) {
      expect(await producer.request({ op: 'listTopics' })).toMatchObject({ op: 'topics' });
      const stats = gateway.connectionStats().find((s) => s.id === slowId);
      maxBuffered = Math.max(maxBuffered, stats?.bufferedAmount ?? 0);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(maxBuffered).toBeLessThanOrEqual(maxPendingPushBytes + 2 * maxPushBytes + 4096);
    slow.socket.socket.resume();
    const records = await slow.waitForRecords(4000);
    expect(records.map((r) => r.offset)).toEqual(Array.from({ length: 4000 }, (_, i) => i));
  });
});
