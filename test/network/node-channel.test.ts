import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Network, NetworkConnection, NetworkConnectionHandlers } from '../../host/io/environment.js';
import { NodeNetwork } from '../../host/io/node-network.js';
import { SeededRandom } from '../../host/io/random.js';
import { ManualTime, SystemTime } from '../../host/io/time.js';
import { NodeChannel, type RemoteApi } from '../../host/network/node-channel.js';
import { NodeChannels } from '../../host/network/node-channels.js';
import { ReconnectBackoff } from '../../host/network/reconnect-backoff.js';
import { encodeResponseFrame, readFrameSize } from '../../host/protocol/frame.js';
import {
  decodeApiVersionsResponse, encodeApiVersionsRequest, encodeApiVersionsResponse,
  type ApiVersionsRequestInit, type ApiVersionsResponse,
} from '../../host/protocol/generated/api-versions.js';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { decodeRequestHeader } from '../../host/protocol/headers.js';
import { Reader } from '../../host/protocol/reader.js';

const API_VERSIONS: RemoteApi<ApiVersionsRequestInit, ApiVersionsResponse> = {
  apiKey: ApiKey.ApiVersions, name: 'ApiVersions',
  encodeRequest: encodeApiVersionsRequest, decodeResponse: decodeApiVersionsResponse,
};

/** A frame answering correlation id `correlationId` with ApiVersions v3 carrying `errorCode`. */
function answer(correlationId: number, errorCode: number): Uint8Array {
  return Uint8Array.from(encodeResponseFrame(ApiKey.ApiVersions, 3, correlationId, (w) => encodeApiVersionsResponse(w, 3, {
    errorCode, apiKeys: [], throttleTimeMs: 0,
  })).toBuffer());
}

/** The request frames in `bytes`, as {correlationId, apiKey, clientId}. */
function requests(bytes: Uint8Array): Array<{ correlationId: number; apiKey: number; clientId: string | null }> {
  const out = [];
  let at = 0;
  while (at < bytes.length) {
    const size = readFrameSize(bytes, at);
    const header = decodeRequestHeader(new Reader(bytes, at + 4, at + 4 + size));
    out.push({ correlationId: header.correlationId, apiKey: header.apiKey, clientId: header.clientId });
    at += 4 + size;
  }
  return out;
}

/** An in-memory network whose one peer the test plays: it sees written bytes and can answer or close. */
class FakeNetwork implements Network {
  refuse = false;
  /** Connect attempts that never complete (the peer is silent). */
  hang = false;
  connects = 0;
  peer: { written: Uint8Array[]; handlers: NetworkConnectionHandlers; destroyed: boolean } | null = null;

  connect(host: string, port: number, handlers: NetworkConnectionHandlers): Promise<NetworkConnection> {
    this.connects += 1;
    if (this.refuse) return Promise.reject(new Error(`connect ECONNREFUSED ${host}:${port}`));
    if (this.hang) return new Promise(() => {});
    const peer = { written: [] as Uint8Array[], handlers, destroyed: false };
    this.peer = peer;
    return Promise.resolve({
      remoteAddress: host, remotePort: port,
      write: (data: Uint8Array) => { peer.written.push(Uint8Array.from(data)); return true; },
      pause: () => {}, resume: () => {}, end: () => { peer.destroyed = true; },
      destroy: () => { peer.destroyed = true; },
    });
  }

  writtenBytes(): Uint8Array {
    return Buffer.concat(this.peer?.written ?? []);
  }
}

function channelOn(network: Network, time: ManualTime, requestTimeoutMs = 1000): NodeChannel {
  return new NodeChannel({
    host: '10.0.0.2', port: 9093, clientId: 'raft-client-1', time, network, requestTimeoutMs,
    connectTimeoutMs: 500, maxResponseBytes: 1 << 20,
    backoff: new ReconnectBackoff(new SeededRandom(7), { baseMs: 50, maxMs: 1000, jitter: 0 }),
  });
}

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('NodeChannel', () => {
  it('connects on first send, frames the request with our client id and matches pipelined responses in order', async () => {
    const time = new ManualTime();
    const network = new FakeNetwork();
    const channel = channelOn(network, time);
    const first = channel.send(API_VERSIONS, 3, { clientSoftwareName: 'tributary', clientSoftwareVersion: '0' });
    const second = channel.send(API_VERSIONS, 3, { clientSoftwareName: 'tributary', clientSoftwareVersion: '0' });
    await flush();
    expect(network.connects).toBe(1);
    expect(channel.connected).toBe(true);
    const sent = requests(network.writtenBytes());
    expect(sent).toEqual([
      { correlationId: 0, apiKey: ApiKey.ApiVersions, clientId: 'raft-client-1' },
      { correlationId: 1, apiKey: ApiKey.ApiVersions, clientId: 'raft-client-1' },
    ]);
    // Both responses in one chunk, the second split across two chunks.
    const both = Buffer.concat([answer(0, 0), answer(1, 35)]);
    network.peer!.handlers.onData(both.subarray(0, both.length - 3));
    network.peer!.handlers.onData(both.subarray(both.length - 3));
    const a = await first;
    const b = await second;
    expect(a.kind === 'response' && a.body.errorCode).toBe(0);
    expect(b.kind === 'response' && b.body.errorCode).toBe(35);
  });

  it('a request timeout resolves as timeout, drops the connection, fails the rest and backs off before reconnecting', async () => {
    const time = new ManualTime();
    const network = new FakeNetwork();
    const channel = channelOn(network, time, 1000);
    const first = channel.send(API_VERSIONS, 3, {});
    await flush();
    time.advance(400);
    const second = channel.send(API_VERSIONS, 3, {});
    time.advance(600);
    expect(await first).toEqual({ kind: 'timeout' });
    const other = await second;
    expect(other.kind).toBe('disconnected');
    expect(network.peer!.destroyed).toBe(true);
    // During the backoff (50 ms, no jitter) a send fails at once without connecting.
    expect((await channel.send(API_VERSIONS, 3, {})).kind).toBe('disconnected');
    expect(network.connects).toBe(1);
    time.advance(50);
    const third = channel.send(API_VERSIONS, 3, {});
    await flush();
    expect(network.connects).toBe(2);
    network.peer!.handlers.onData(answer(2, 0));
    expect((await third).kind).toBe('response');
  });

  it('refused connects back off exponentially up to the maximum', async () => {
    const time = new ManualTime();
    const network = new FakeNetwork();
    network.refuse = true;
    const channel = channelOn(network, time);
    const waits: number[] = [];
    for (let attempt = 0; attempt < 7; attempt++) {
      const result = await channel.send(API_VERSIONS, 3, {});
      expect(result.kind).toBe('disconnected');
      let waited = 0;
      while ((await channel.send(API_VERSIONS, 3, {})).kind === 'disconnected' && network.connects === attempt + 1) {
        time.advance(10);
        waited += 10;
        if (waited > 5000) break;
      }
      waits.push(waited);
    }
    expect(waits.slice(0, 6)).toEqual([50, 100, 200, 400, 800, 1000]);
  });

  it('a connect that never completes times out and fails the queued requests', async () => {
    const time = new ManualTime();
    const network = new FakeNetwork();
    network.hang = true;
    const channel = channelOn(network, time);
    const pending = channel.send(API_VERSIONS, 3, {});
    time.advance(500);
    const result = await pending;
    expect(result.kind === 'disconnected' && result.reason).toMatch(/timed out/);
  });

  it('a response with an unexpected correlation id or an oversized frame closes the connection', async () => {
    const time = new ManualTime();
    const network = new FakeNetwork();
    const channel = channelOn(network, time);
    const first = channel.send(API_VERSIONS, 3, {});
    await flush();
    network.peer!.handlers.onData(answer(9, 0));
    const result = await first;
    expect(result.kind === 'disconnected' && result.reason).toMatch(/correlation id 9/);
    expect(network.peer!.destroyed).toBe(true);

    time.advance(50);
    const second = channel.send(API_VERSIONS, 3, {});
    await flush();
    network.peer!.handlers.onData(Uint8Array.from([0x7f, 0, 0, 0]));
    const big = await second;
    expect(big.kind === 'disconnected' && big.reason).toMatch(/outside/);
  });

  it('close() fails everything pending and later sends', async () => {
    const time = new ManualTime();
    const network = new FakeNetwork();
    const channel = channelOn(network, time);
    const pending = channel.send(API_VERSIONS, 3, {});
    await flush();
    channel.close();
    expect((await pending).kind).toBe('disconnected');
    expect((await channel.send(API_VERSIONS, 3, {})).kind).toBe('disconnected');
  });
});

describe('NodeChannels over real TCP', () => {
  let server: Server | null = null;
  afterEach(async () => {
    await new Promise<void>((resolve) => (server === null ? resolve() : server.close(() => resolve())));
    server = null;
  });

  it('sends to a node by id through NodeNetwork and answers unknown nodes as disconnected', async () => {
    const seen: number[] = [];
    server = createServer((socket: Socket) => {
      socket.on('data', (data) => {
        for (const request of requests(data)) {
          seen.push(request.correlationId);
          socket.write(answer(request.correlationId, 0));
        }
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()));
    const port = (server.address() as { port: number }).port;
    const channels = new NodeChannels({
      clientId: 'test', time: new SystemTime(), random: new SeededRandom(1), network: new NodeNetwork(), requestTimeoutMs: 5000,
    });
    channels.setEndpoint(2, { host: '127.0.0.1', port });
    const result = await channels.send(2, API_VERSIONS, 3, { clientSoftwareName: 'x', clientSoftwareVersion: '1' });
    expect(result.kind === 'response' && result.body.errorCode).toBe(0);
    expect(seen).toEqual([0]);
    const unknown = await channels.send(3, API_VERSIONS, 3, {});
    expect(unknown.kind === 'disconnected' && unknown.reason).toMatch(/no endpoint known for node 3/);
    channels.close();
  });
});
