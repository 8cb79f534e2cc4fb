/**
 * The console's JSON API (/console/api on the HTTP listener) over plain HTTP, on an in-process
 * broker with console.write.enable=true: pages of topics, browsing by offset and by time, and
 * the refusals a page can meet (unknown topic, wrong method, a write that is not JSON).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Producer } from '../../host/clients/producer.js';
import { startGatewayBroker, type GatewayBroker } from '../browser/gateway-broker.js';

let broker: GatewayBroker;
let base: string;

async function call(path: string, init: RequestInit = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${base}/console/api/${path}`, init);
  return { status: response.status, body: await response.json() as Record<string, unknown> };
}

beforeAll(async () => {
  broker = await startGatewayBroker({ 'console.write.enable': true, 'console.topics.page.size': 3, 'console.topics.max.page.size': 20 });
  base = `http://${broker.gatewayHostPort}`;
  const producer = new Producer({ bootstrapServers: [broker.tcpBootstrap] });
  try {
    for (const topic of ['alpha', 'beta', 'gamma']) await producer.send({ topic, messages: [{ value: `${topic}-0` }] });
    for (let i = 0; i < 10; i++) await producer.send({ topic: 'timeline', messages: [{ key: `k${i}`, value: `v${i}`, timestamp: 1_700_000_000_000 + i * 1000 }] });
  } finally {
    await producer.close();
  }
});

afterAll(async () => {
  await broker?.stop();
});

describe('The console API', () => {
  it('pages topics by name with a total, and filters them', async () => {
    const first = await call('topics?limit=2');
    expect(first.body['total']).toBe(4);
    expect((first.body['topics'] as { name: string }[]).map((t) => t.name)).toEqual(['alpha', 'beta']);
    expect(first.body['nextOffset']).toBe(2);
    const second = await call('topics?limit=2&offset=2');
    expect((second.body['topics'] as { name: string }[]).map((t) => t.name)).toEqual(['gamma', 'timeline']);
    expect(second.body['nextOffset']).toBe(null);
    const filtered = await call('topics?search=AMM');
    expect((filtered.body['topics'] as { name: string; messages: number }[])).toEqual([expect.objectContaining({ name: 'gamma', messages: 1 })]);
    expect((await call('topics?limit=100000')).status).toBe(400);
  });

  it('pages console.topics.page.size topics when the request gives no limit, and refuses a limit over console.topics.max.page.size', async () => {
    const page = await call('topics');
    expect(page.body).toMatchObject({ total: 4, offset: 0, limit: 3 });
    expect((page.body['topics'] as { name: string }[]).map((t) => t.name)).toEqual(['alpha', 'beta', 'gamma']);
    expect((await call('topics?limit=20')).body['limit']).toBe(20);
    const refused = await call('topics?limit=21');
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('between 1 and 20');
  });

  it('reads the topic list from the broker\'s metadata and logs (no Metadata or ListOffsets request), and the overview\'s counts from its metadata', async () => {
    const requests = (apiKey: number) => broker.broker.metrics.requestMetrics.apis().find((a) => a.apiKey === apiKey)?.requests ?? 0;
    const METADATA = 3;
    const LIST_OFFSETS = 2;
    const before = [requests(METADATA), requests(LIST_OFFSETS)];
    for (const path of ['topics', 'topics?offset=3', 'topics?internal=true&limit=20', 'topics?search=a']) expect((await call(path)).status).toBe(200);
    const timeline = (await call('topics?search=timeline')).body['topics'] as { messages: number; sizeBytes: number }[];
    expect(timeline).toEqual([expect.objectContaining({ messages: 10, partitions: 1 })]);
    expect(timeline[0]!.sizeBytes).toBeGreaterThan(0);
    expect([requests(METADATA), requests(LIST_OFFSETS)]).toEqual(before);
    expect((await call('overview')).body).toMatchObject({ topics: 4, partitions: 4, underReplicatedPartitions: 0, offlinePartitions: 0 });
    // The counters do see the console's own requests: one topic's detail still goes through its Admin client.
    expect((await call('topics/timeline')).status).toBe(200);
    expect(requests(METADATA)).toBeGreaterThan(before[0]!);
    expect(requests(LIST_OFFSETS)).toBeGreaterThan(before[1]!);
  });

  it('browses from an offset and from a time, newest first, within the limit', async () => {
    const fromOffset = await call('topics/timeline/messages?partition=0&offset=3&limit=4');
    expect((fromOffset.body['records'] as { offset: number }[]).map((r) => r.offset)).toEqual([6, 5, 4, 3]);
    const fromTime = await call(`topics/timeline/messages?partition=0&timestamp=${1_700_000_000_000 + 7500}&limit=50`);
    const records = fromTime.body['records'] as { offset: number; key: string }[];
    expect(records.map((r) => r.offset)).toEqual([9, 8]);
    expect(Buffer.from(records[0]!.key, 'base64').toString()).toBe('k9');
    const newest = await call('topics/timeline/messages?partition=0&limit=3');
    expect((newest.body['records'] as { offset: number }[]).map((r) => r.offset)).toEqual([9, 8, 7]);
  });

  it('answers an unknown topic with 404 and Kafka\'s error name, a wrong method with 405, and a write that is not JSON with 415', async () => {
    expect(await call('topics/nowhere')).toMatchObject({ status: 404, body: { error: 'UNKNOWN_TOPIC_OR_PARTITION' } });
    expect((await call('topics/alpha', { method: 'PUT' })).status).toBe(405);
    expect((await call('topics', { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: 'name=x' })).status).toBe(415);
    expect(await call('topics', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'alpha' }) }))
      .toMatchObject({ status: 409, body: { error: 'TOPIC_ALREADY_EXISTS', code: 36 } });
  });
});
