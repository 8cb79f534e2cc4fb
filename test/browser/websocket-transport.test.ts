/**
 * The WebSocket transport against the broker's real gateway: framing (one Kafka frame per binary
 * message, no size prefix), failures reported as ConnectionError with the gateway's close code,
 * frame limits on both sides, close(), and the URL helpers.
 */
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { ConnectionError } from '../../host/clients/errors.js';
import { Admin, Producer, viaNodeWebSocketGateway } from '../../host/clients/node.js';
import type { TransportHandlers, TransportOptions } from '../../host/clients/transport/transport.js';
import { nodeWebSocketOpener, nodeWebSocketTransportFactory } from '../../host/clients/transport/websocket-node-transport.js';
import { gatewayHostPort, webSocketUrlFor, WebSocketTransport, type WebSocketLike } from '../../host/clients/transport/websocket-transport.js';
import { startGatewayBroker, type GatewayBroker } from './gateway-broker.js';

/** The broker refuses requests above this many bytes (socket.request.max.bytes). */
const REQUEST_MAX_BYTES = 4096;
const OPTIONS: TransportOptions = { connectTimeoutMs: 5000, maxFrameBytes: 1024 * 1024 };

let broker: GatewayBroker;

beforeAll(async () => {
  broker = await startGatewayBroker({ 'socket.request.max.bytes': REQUEST_MAX_BYTES });
});

afterAll(async () => {
  await broker?.stop();
});

/** ApiVersions v0 request frame: header v1 (apiKey 18, version 0, correlation id, client id), empty body. */
function apiVersionsV0(correlationId: number): Uint8Array {
  const clientId = Buffer.from('ws-test');
  const frame = Buffer.alloc(10 + clientId.length);
  frame.writeInt16BE(18, 0);
  frame.writeInt16BE(0, 2);
  frame.writeInt32BE(correlationId, 4);
  frame.writeInt16BE(clientId.length, 8);
  clientId.copy(frame, 10);
  return frame;
}

interface Recorded {
  frames: Uint8Array[];
  closes: (Error | undefined)[];
  handlers: TransportHandlers;
  closed: Promise<Error | undefined>;
}

function recorder(): Recorded {
  const frames: Uint8Array[] = [];
  const closes: (Error | undefined)[] = [];
  let onClosed!: (error: Error | undefined) => void;
  const closed = new Promise<Error | undefined>((resolve) => { onClosed = resolve; });
  return {
    frames,
    closes,
    closed,
    handlers: {
      onFrame: (frame) => frames.push(frame),
      onClose: (error) => {
        closes.push(error);
        onClosed(error);
      },
    },
  };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A port that refuses connections (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('The WebSocket transport', () => {
  it('sends a request frame as one binary message and hands back the response frame without a size prefix', async () => {
    const transport = new WebSocketTransport(broker.kafkaUrl, broker.gatewayHostPort, OPTIONS, nodeWebSocketOpener);
    const seen = recorder();
    await transport.connect(seen.handlers);
    expect(transport.send(apiVersionsV0(41))).toBe(true);
    expect(transport.send(apiVersionsV0(42))).toBe(true);
    await until(() => seen.frames.length === 2, 'two responses');
    const [first, second] = seen.frames.map((frame) => Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength));
    expect(first!.readInt32BE(0)).toBe(41);
    expect(second!.readInt32BE(0)).toBe(42);
    expect(first!.readInt16BE(4)).toBe(0);
    // ApiVersions v0 body: errorCode, then the [apiKey, min, max] array that fills the rest exactly.
    expect(first!.length).toBe(4 + 2 + 4 + first!.readInt32BE(6) * 6);
    await transport.close();
    expect(seen.closes).toEqual([undefined]);
    expect(transport.send(apiVersionsV0(43))).toBe(false);
  });

  it('rejects connect with a ConnectionError when nothing listens', async () => {
    const port = await closedPort();
    const transport = new WebSocketTransport(`ws://127.0.0.1:${port}/kafka`, `127.0.0.1:${port}`, OPTIONS, nodeWebSocketOpener);
    const seen = recorder();
    const failure = await transport.connect(seen.handlers).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConnectionError);
    expect((failure as Error).message).toMatch(/cannot connect to ws:\/\/127\.0\.0\.1:\d+\/kafka.*ECONNREFUSED/);
    expect(seen.closes).toHaveLength(1);
  });

  it('gives up connecting after connectTimeoutMs when the upgrade is never answered', async () => {
    const silent: Server = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      const transport = new WebSocketTransport(`ws://127.0.0.1:${port}/kafka`, 'silent', { ...OPTIONS, connectTimeoutMs: 200 }, nodeWebSocketOpener);
      const failure = await transport.connect(recorder().handlers).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ConnectionError);
      expect((failure as Error).message).toMatch(/timed out after 200 ms/);
    } finally {
      silent.close();
    }
  });

  it('settles connect and close when closed while the upgrade is pending', async () => {
    const silent: Server = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      const transport = new WebSocketTransport(`ws://127.0.0.1:${port}/kafka`, 'silent', OPTIONS, nodeWebSocketOpener);
      const seen = recorder();
      const connecting = transport.connect(seen.handlers).catch((error: unknown) => error);
      await transport.close();
      expect(await connecting).toBeInstanceOf(ConnectionError);
      expect(seen.closes).toEqual([undefined]);
    } finally {
      silent.close();
    }
  });

  it('reports the gateway closing with 1009 for a request above socket.request.max.bytes', async () => {
    const transport = new WebSocketTransport(broker.kafkaUrl, broker.gatewayHostPort, OPTIONS, nodeWebSocketOpener);
    const seen = recorder();
    await transport.connect(seen.handlers);
    const oversized = new Uint8Array(REQUEST_MAX_BYTES + 100);
    oversized.set(apiVersionsV0(1));
    transport.send(oversized);
    const error = await seen.closed;
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error!.message).toMatch(/closed by the gateway \(1009 message too big/);
    expect(seen.frames).toEqual([]);
  });

  it('closes with a ConnectionError when a response exceeds maxFrameBytes, whether ws or the transport notices', async () => {
    const openers: [string, (url: string, max: number) => WebSocketLike][] = [
      ['ws maxPayload', nodeWebSocketOpener],
      ['the transport', (url) => new WebSocket(url, { perMessageDeflate: false }) as unknown as WebSocketLike],
    ];
    for (const [, opener] of openers) {
      const transport = new WebSocketTransport(broker.kafkaUrl, broker.gatewayHostPort, { ...OPTIONS, maxFrameBytes: 64 }, opener);
      const seen = recorder();
      await transport.connect(seen.handlers);
      transport.send(apiVersionsV0(5));
      const error = await seen.closed;
      expect(error).toBeInstanceOf(ConnectionError);
      expect(error!.message).toMatch(/Max payload size exceeded|frame of \d+ bytes \(limit 64\)/);
      expect(seen.frames).toEqual([]);
      expect(seen.closes).toHaveLength(1);
    }
  });

  it('carries Admin and Producer from the Node entry through viaNodeWebSocketGateway', async () => {
    const gateway = viaNodeWebSocketGateway(broker.kafkaUrl);
    expect(gateway.bootstrapServers).toEqual([broker.gatewayHostPort]);
    const admin = new Admin(gateway);
    const producer = new Producer({ ...gateway, lingerMs: 0 });
    try {
      await admin.createTopics({ topics: [{ topic: 'via-gateway', numPartitions: 2 }] });
      const sent = await producer.send({ topic: 'via-gateway', messages: [{ value: 'a', partition: 1 }] });
      expect(sent).toMatchObject([{ topic: 'via-gateway', partition: 1, offset: 0 }]);
      expect(await admin.listTopics()).toContain('via-gateway');
    } finally {
      await producer.close();
      await admin.close();
    }
  });

  it('fails a client with the unreachable gateway URL in the error', async () => {
    const port = await closedPort();
    const admin = new Admin({ bootstrapServers: ['127.0.0.1:1'], transportFactory: nodeWebSocketTransportFactory({ url: `ws://127.0.0.1:${port}/kafka` }), requestTimeoutMs: 500 });
    try {
      // The client retries until its request timeout, then names the URL it could not reach.
      const failure = await admin.listTopics().catch((error: unknown) => error as Error);
      expect(failure).toBeInstanceOf(Error);
      expect((failure as Error).message).toContain(`cannot connect to ws://127.0.0.1:${port}/kafka`);
      expect((failure as Error).cause).toBeInstanceOf(ConnectionError);
    } finally {
      await admin.close();
    }
  });
});

describe('WebSocket URLs', () => {
  it('maps broker addresses to gateway URLs', () => {
    expect(webSocketUrlFor({ host: '10.1.2.3', port: 8080 })).toBe('ws://10.1.2.3:8080/kafka');
    expect(webSocketUrlFor({ host: '::1', port: 8080 }, { secure: true })).toBe('wss://[::1]:8080/kafka');
    expect(webSocketUrlFor({ host: 'a', port: 1 }, { url: 'ws://gateway:9/kafka' })).toBe('ws://gateway:9/kafka');
    expect(webSocketUrlFor({ host: 'b1', port: 9092 }, { url: (address) => `wss://${address.host}.example/kafka` })).toBe('wss://b1.example/kafka');
  });

  it('derives the bootstrap host:port of a gateway URL and refuses other schemes', () => {
    expect(gatewayHostPort('ws://127.0.0.1:8080/kafka')).toBe('127.0.0.1:8080');
    expect(gatewayHostPort('wss://kafka.example.com/kafka')).toBe('kafka.example.com:443');
    expect(gatewayHostPort('ws://[::1]/kafka')).toBe('[::1]:80');
    expect(() => gatewayHostPort('http://127.0.0.1:8080/kafka')).toThrow(RangeError);
    expect(() => gatewayHostPort('not a url')).toThrow(RangeError);
  });
});
