import { afterEach, describe, expect, it } from 'vitest';
import { Connection, DEFAULT_CONNECTION_OPTIONS } from '../../../host/clients/transport/connection.js';
import { tcpTransportFactory } from '../../../host/clients/transport/tcp-transport.js';
import { ConnectionError, KafkaTimeoutError, UnsupportedVersionError } from '../../../host/clients/errors.js';
import { ApiKey } from '../../../host/protocol/generated/api-keys.js';
import { Writer } from '../../../host/protocol/writer.js';
import { encodeApiVersionsResponse } from '../../../host/protocol/generated/api-versions.js';
import { FakeBroker, FAKE_API_VERSIONS } from '../fake-broker.js';

const brokers: FakeBroker[] = [];
const connections: Connection[] = [];

async function fake(): Promise<FakeBroker> {
  const broker = await new FakeBroker().start();
  brokers.push(broker);
  return broker;
}

function connectionTo(broker: FakeBroker, overrides: Partial<typeof DEFAULT_CONNECTION_OPTIONS> = {}): Connection {
  const connection = new Connection({ host: '127.0.0.1', port: broker.port }, {
    ...DEFAULT_CONNECTION_OPTIONS, ...overrides, transportFactory: tcpTransportFactory,
  });
  connections.push(connection);
  return connection;
}

afterEach(async () => {
  await Promise.all(connections.splice(0).map((c) => c.close()));
  await Promise.all(brokers.splice(0).map((b) => b.stop()));
});

describe('Connection', () => {
  it('negotiates each API at min(client max, broker max)', async () => {
    const broker = await fake();
    broker.on(ApiKey.ApiVersions, () => ({
      errorCode: 0,
      apiKeys: [
        { apiKey: ApiKey.ApiVersions, minVersion: 0, maxVersion: 3 },
        { apiKey: ApiKey.Metadata, minVersion: 0, maxVersion: 5 },
        { apiKey: ApiKey.Produce, minVersion: 0, maxVersion: 11 },
      ],
    }));
    const connection = connectionTo(broker);
    await connection.connect();
    expect(connection.versionFor(ApiKey.Metadata)).toBe(5);
    expect(connection.versionFor(ApiKey.Produce)).toBe(7);
    expect(() => connection.versionFor(ApiKey.Fetch)).toThrow(UnsupportedVersionError);
    expect(broker.received[0]!.header.apiVersion).toBe(3);
    expect(broker.received[0]!.body.clientSoftwareName).toBe('tributary-client');
  });

  it('refuses an API whose broker range lies above the client window', async () => {
    const broker = await fake();
    broker.on(ApiKey.ApiVersions, () => ({
      errorCode: 0,
      apiKeys: [{ apiKey: ApiKey.ApiVersions, minVersion: 0, maxVersion: 3 }, { apiKey: ApiKey.Metadata, minVersion: 9, maxVersion: 12 }],
    }));
    const connection = connectionTo(broker);
    await connection.connect();
    await expect(connection.request(ApiKey.Metadata, { topics: null })).rejects.toThrow(UnsupportedVersionError);
  });

  it('retries ApiVersions at the broker maximum after UNSUPPORTED_VERSION with a v0-shaped body', async () => {
    const broker = await fake();
    broker.on(ApiKey.ApiVersions, (_request, header) => {
      if (header.apiVersion > 2) {
        const w = new Writer();
        encodeApiVersionsResponse(w, 0, { errorCode: 35, apiKeys: [{ apiKey: ApiKey.ApiVersions, minVersion: 0, maxVersion: 2 }] });
        return { raw: Buffer.from(w.toBuffer()) };
      }
      return { errorCode: 0, apiKeys: FAKE_API_VERSIONS };
    });
    const connection = connectionTo(broker);
    await connection.connect();
    expect(broker.received.map((r) => r.header.apiVersion)).toEqual([3, 2]);
    expect(connection.isReady).toBe(true);
  });

  it('pipelines requests and matches each response to its request', async () => {
    const broker = await fake();
    let calls = 0;
    broker.on(ApiKey.Metadata, async (request: { topics: { name: string }[] }) => {
      calls++;
      // Later requests finish first; the server still answers in request order.
      await new Promise((resolve) => setTimeout(resolve, calls === 1 ? 50 : 1));
      return broker.metadata(request.topics.map((t) => ({ name: t.name, partitions: 1 })));
    });
    const connection = connectionTo(broker);
    const names = Array.from({ length: 20 }, (_, i) => `topic-${i}`);
    const responses = await Promise.all(names.map((name) => connection.request(ApiKey.Metadata, { topics: [{ name }] })));
    expect(responses.map((r) => r.topics[0]!.name)).toEqual(names);
    const correlationIds = broker.received.filter((r) => r.header.apiKey === ApiKey.Metadata).map((r) => r.header.correlationId);
    expect(new Set(correlationIds).size).toBe(20);
  });

  it('bounds the requests on the wire and queues the rest', async () => {
    const broker = await fake();
    let concurrent = 0;
    let maxConcurrent = 0;
    broker.on(ApiKey.Metadata, async () => {
      concurrent++;
      maxConcurrent = Math.max(maxConcurrent, concurrent);
      await new Promise((resolve) => setTimeout(resolve, 5));
      concurrent--;
      return broker.metadata([]);
    });
    const connection = connectionTo(broker, { maxInFlightRequests: 2 });
    await Promise.all(Array.from({ length: 10 }, () => connection.request(ApiKey.Metadata, { topics: [] })));
    expect(maxConcurrent).toBeLessThanOrEqual(2);
  });

  it('times out a request that gets no answer and fails the others on that connection', async () => {
    const broker = await fake();
    const releases: ((value: null) => void)[] = [];
    broker.on(ApiKey.Metadata, () => new Promise((resolve) => { releases.push(resolve); }));
    const connection = connectionTo(broker, { requestTimeoutMs: 200 });
    const first = connection.request(ApiKey.Metadata, { topics: [] });
    const second = connection.request(ApiKey.Metadata, { topics: [] }, { timeoutMs: 10_000 });
    await expect(first).rejects.toThrow(KafkaTimeoutError);
    await expect(second).rejects.toThrow(ConnectionError);
    expect(connection.isClosed).toBe(true);
    for (const release of releases) release(null);
  });

  it('rejects in-flight requests with ConnectionError when the broker closes the socket', async () => {
    const broker = await fake();
    broker.on(ApiKey.Metadata, (_request, _header, context) => {
      context.close('test closes');
      return null;
    });
    const connection = connectionTo(broker);
    await expect(connection.request(ApiKey.Metadata, { topics: [] })).rejects.toThrow(ConnectionError);
  });

  it('fails to connect with ConnectionError when nothing listens', async () => {
    const broker = await fake();
    const port = broker.port;
    await broker.stop();
    brokers.length = 0;
    const connection = new Connection({ host: '127.0.0.1', port }, { ...DEFAULT_CONNECTION_OPTIONS, transportFactory: tcpTransportFactory });
    await expect(connection.connect()).rejects.toThrow(ConnectionError);
  });

  it('sends a request without response and keeps the connection usable', async () => {
    const broker = await fake();
    broker.on(ApiKey.Produce, () => null);
    const connection = connectionTo(broker);
    await connection.sendWithoutResponse(ApiKey.Produce, { acks: 0, timeoutMs: 1000, topicData: [] });
    const metadata = await connection.request(ApiKey.Metadata, { topics: [] });
    expect(metadata.clusterId).toBe('fake-cluster');
    expect(broker.received.map((r) => r.header.apiKey)).toEqual([ApiKey.ApiVersions, ApiKey.Produce, ApiKey.Metadata]);
  });
});
