import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { decodeApiVersionsResponse, encodeApiVersionsRequest } from '../../host/protocol/generated/api-versions.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { decodeFindCoordinatorResponse } from '../../host/protocol/generated/find-coordinator.js';
import { decodeHeartbeatResponse } from '../../host/protocol/generated/heartbeat.js';
import { Reader } from '../../host/protocol/reader.js';
import { startTestBroker, type TestBroker } from './in-process-broker.js';
import { RawKafkaClient } from './raw-kafka-client.js';

function frame(body: Buffer): Buffer {
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length);
  return Buffer.concat([size, body]);
}

/** Request header v1 (api key, version, correlation id, client id "bad") followed by `body`. */
function request(apiKey: number, version: number, correlationId: number, body: Buffer = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(13);
  header.writeInt16BE(apiKey, 0);
  header.writeInt16BE(version, 2);
  header.writeInt32BE(correlationId, 4);
  header.writeInt16BE(3, 8);
  header.write('bad', 10);
  return frame(Buffer.concat([header, body]));
}

describe('bad client input', () => {
  let broker: TestBroker;
  let bystander: RawKafkaClient;

  beforeAll(async () => {
    broker = await startTestBroker({}, { captureLogs: true });
    bystander = await RawKafkaClient.connect(broker.broker.port);
  });
  afterAll(async () => {
    bystander.close();
    await broker.close();
  });

  /** The untouched connection still gets answers: bad input never disturbs other connections. */
  async function bystanderStillServed(): Promise<void> {
    const response = await bystander.request(ApiKey.ApiVersions, 0, encodeApiVersionsRequest, decodeApiVersionsResponse, {});
    expect(response.errorCode).toBe(ErrorCode.NONE);
  }

  /** Sends `bytes` on a new connection, waits for the broker to close it; returns the client's port. */
  async function expectClosed(bytes: Buffer, endAfter = false): Promise<number> {
    const client = await RawKafkaClient.connect(broker.broker.port);
    const port = client.socket.localPort!;
    client.writeRaw(bytes);
    if (endAfter) client.socket.end();
    await client.closed;
    expect(client.isClosed).toBe(true);
    await bystanderStillServed();
    return port;
  }

  function refusals(): Record<string, unknown>[] {
    return broker.logLines.filter((line) => line.event === 'request.refused' || line.event === 'connection.closed' || line.event === 'connection.refused');
  }

  it('closes a connection that sends garbage (an HTTP request)', async () => {
    await expectClosed(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
  });

  it('closes a connection announcing a 2^31-1 byte frame before buffering it', async () => {
    const size = Buffer.alloc(4);
    size.writeInt32BE(0x7fffffff);
    await expectClosed(Buffer.concat([size, Buffer.alloc(16)]));
  });

  it('closes a connection announcing a negative frame size', async () => {
    await expectClosed(Buffer.from([0xff, 0xff, 0xff, 0xfe, 1, 2, 3]));
  });

  it('closes a connection whose last frame is truncated when the peer ends it', async () => {
    const whole = request(ApiKey.ApiVersions, 0, 1);
    await expectClosed(whole.subarray(0, whole.length - 3), true);
  });

  it('closes a connection whose frame is too short to hold a request header, and logs the peer', async () => {
    const port = await expectClosed(frame(Buffer.from([0, 18, 0])));
    expect(refusals().some((line) => String(line.peer).endsWith(`:${port}`))).toBe(true);
  });

  it('closes a connection that sends an unknown api key, and logs the peer, api key and reason', async () => {
    const port = await expectClosed(request(999, 0, 5));
    const line = refusals().find((l) => l.event === 'request.refused' && l.apiKey === 999 && String(l.peer).endsWith(`:${port}`));
    expect(line).toBeDefined();
    expect(String(line!.reason)).toContain('not supported');
  });

  it('closes a connection that sends an api the broker does not advertise (SaslHandshake)', async () => {
    await expectClosed(request(ApiKey.SaslHandshake, 1, 6, Buffer.from([0, 5, 0x50, 0x4c, 0x41, 0x49, 0x4e])));
  });

  it('closes a connection that sends an unsupported version of a known api', async () => {
    const port = await expectClosed(request(ApiKey.Produce, 99, 7));
    expect(refusals().some((l) => l.apiKey === ApiKey.Produce && l.apiVersion === 99 && String(l.peer).endsWith(`:${port}`))).toBe(true);
  });

  it('closes a connection whose Metadata body does not decode (no top-level error to answer with)', async () => {
    await expectClosed(request(ApiKey.Metadata, 1, 8, Buffer.from([0, 0, 0, 5, 0])));
  });

  it('answers an undecodable FindCoordinator body with INVALID_REQUEST and keeps the connection', async () => {
    const client = await RawKafkaClient.connect(broker.broker.port);
    try {
      client.writeRaw(request(ApiKey.FindCoordinator, 1, 9, Buffer.from([0, 10, 0x61])));
      const response = await client.nextFrame();
      const r = new Reader(response);
      expect(r.int32()).toBe(9);
      const body = decodeFindCoordinatorResponse(r, 1);
      expect(body.errorCode).toBe(ErrorCode.INVALID_REQUEST);
      expect(body.nodeId).toBe(-1);
      // and the same connection still works
      const versions = await client.request(ApiKey.ApiVersions, 0, encodeApiVersionsRequest, decodeApiVersionsResponse, {});
      expect(versions.errorCode).toBe(ErrorCode.NONE);
    } finally {
      client.close();
    }
    const line = refusals().find((l) => l.event === 'request.refused' && l.apiKey === ApiKey.FindCoordinator);
    expect(line?.errorCode).toBe(ErrorCode.INVALID_REQUEST);
  });

  it('answers an undecodable Heartbeat body with INVALID_REQUEST', async () => {
    const client = await RawKafkaClient.connect(broker.broker.port);
    try {
      client.writeRaw(request(ApiKey.Heartbeat, 0, 10, Buffer.from([0xff])));
      const r = new Reader(await client.nextFrame());
      expect(r.int32()).toBe(10);
      expect(decodeHeartbeatResponse(r, 0).errorCode).toBe(ErrorCode.INVALID_REQUEST);
    } finally {
      client.close();
    }
  });

  it('keeps serving after a burst of bad connections', async () => {
    const bursts = Array.from({ length: 20 }, (_, i) => expectClosed(i % 2 === 0 ? Buffer.from('\x7f\xff\xff\xffjunk') : request(4242, 0, i)));
    await Promise.all(bursts);
    await bystanderStillServed();
  });
});
