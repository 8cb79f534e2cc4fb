import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ResponseMemoryPool } from '../../host/network/response-memory-pool.js';
import { SocketServer, type RequestHandler } from '../../host/network/socket-server.js';
import { defaultConnectionResources } from '../../host/network/tcp-connection.js';
import { waitFor } from '../helpers/wait-for.js';
import { silentLogger, testFrame } from '../helpers/test-frames.js';

// Test protocol: a frame is int32 correlation id + ASCII; 'big' is answered with BIG_BYTES bytes
// behind the correlation id, anything else with 'ok'.
const BIG_BYTES = 512 * 1024;
const silent = silentLogger;
const frame = testFrame;

/** A raw TCP client: the correlation ids of the answers, in arrival order. */
class Raw {
  readonly answers: number[] = [];
  private buffered = Buffer.alloc(0);
  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
      while (this.buffered.length >= 8 && this.buffered.length >= 4 + this.buffered.readInt32BE(0)) {
        this.answers.push(this.buffered.readInt32BE(4));
        this.buffered = this.buffered.subarray(4 + this.buffered.readInt32BE(0));
      }
    });
    socket.on('error', () => {});
  }
  static open(port: number): Promise<Raw> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port }, () => resolve(new Raw(socket)));
      socket.once('error', reject);
    });
  }
}

const servers: SocketServer[] = [];
const clients: Raw[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.socket.destroy();
  await Promise.all(servers.splice(0).map((server) => server.stop(1000)));
});

describe('ResponseMemoryPool (queued.max.response.bytes)', () => {
  it('reports over capacity past the budget and wakes the muted holders, in the order they were muted, once the total is back at it', () => {
    const tasks: (() => void)[] = [];
    const pool = new ResponseMemoryPool(100, (task) => tasks.push(task));
    const woken: string[] = [];
    const a = { resume: () => woken.push('a') };
    const b = { resume: () => woken.push('b') };
    pool.update(a, 80);
    pool.update(b, 30);
    expect(pool.overCapacity).toBe(true);
    pool.wait(b);
    pool.wait(a);
    pool.update(b, 25); // still over: nobody is woken
    expect(tasks).toHaveLength(0);
    pool.update(a, 75);
    expect(pool.overCapacity).toBe(false);
    expect(tasks).toHaveLength(1);
    tasks.shift()!();
    expect(woken).toEqual(['b', 'a']);
    expect(pool.waitingCount).toBe(0);
    pool.remove(a);
    pool.remove(b);
    expect(pool.usedBytes).toBe(0);
  });

  it('does not wake a holder that closed', () => {
    const tasks: (() => void)[] = [];
    const pool = new ResponseMemoryPool(10, (task) => tasks.push(task));
    const woken: string[] = [];
    const a = { resume: () => woken.push('a') };
    const b = { resume: () => woken.push('b') };
    pool.update(a, 20);
    pool.wait(a);
    pool.wait(b);
    pool.remove(a);
    for (const task of tasks.splice(0)) task();
    expect(woken).toEqual(['b']);
  });
});

/** A listener whose connections share `pool` as their queued.max.response.bytes. */
async function startServer(handler: RequestHandler, pool: ResponseMemoryPool): Promise<SocketServer> {
  const server = new SocketServer({
    host: '127.0.0.1', port: 0, handler, logger: silent, resources: { ...defaultConnectionResources(), responseMemory: pool },
  });
  servers.push(server);
  await server.start();
  return server;
}

/** A client that pipelines `count` requests for big answers (correlation ids 1..count) and reads nothing. */
async function nonReadingPipeline(server: SocketServer, count: number): Promise<Raw> {
  const slow = await Raw.open(server.address().port);
  clients.push(slow);
  slow.socket.pause();
  slow.socket.write(Buffer.concat(Array.from({ length: count }, (_, i) => frame(i + 1, 'big'))));
  return slow;
}

describe('Clients that do not read their responses cannot hold the broker\'s memory (issue 15)', () => {
  it('stops reading a non-reading client past queued.max.response.bytes while another client is still answered, then delivers everything in order once it reads', async () => {
    const dispatchedPerConnection = new Map<number, number>();
    const handler: RequestHandler = (request, connection) => {
      dispatchedPerConnection.set(connection.id, (dispatchedPerConnection.get(connection.id) ?? 0) + 1);
      const correlationId = request.subarray(0, 4);
      if (request.subarray(4).toString('ascii') === 'big') return [correlationId, Buffer.alloc(BIG_BYTES, 0x62)];
      // Asynchronous, like a Fetch that reads the log.
      return Promise.resolve(Buffer.concat([correlationId, Buffer.from('ok')]));
    };
    const pool = new ResponseMemoryPool(64 * 1024);
    const server = await startServer(handler, pool);

    // The slow client pipelines 64 requests for 512 KiB answers (32 MiB) and reads nothing.
    const sent = 64;
    const slow = await nonReadingPipeline(server, sent);
    const slowId = 1;
    await waitFor('the slow connection to be muted by queued.max.response.bytes', () =>
      (pool.overCapacity && pool.waitingCount === 1 ? true : undefined));
    const dispatchedWhenMuted = dispatchedPerConnection.get(slowId)!;
    // The kernel's socket buffers took a few answers; the rest of the requests are not read.
    expect(dispatchedWhenMuted).toBeLessThan(sent);

    // Another client (nothing pending) is answered, one request at a time, pipelined or not.
    const other = await Raw.open(server.address().port);
    clients.push(other);
    const otherRequests: Buffer[] = [];
    for (let id = 1000; id < 1020; id++) otherRequests.push(frame(id, 'small'));
    other.socket.write(Buffer.concat(otherRequests));
    await waitFor('the other client\'s 20 answers', () => (other.answers.length === 20 ? true : undefined));
    expect(other.answers).toEqual(Array.from({ length: 20 }, (_, i) => 1000 + i));
    expect(dispatchedPerConnection.get(slowId)).toBe(dispatchedWhenMuted);
    expect(pool.overCapacity).toBe(true);

    // The slow client reads: every answer arrives, in request order, and the pool empties.
    slow.socket.resume();
    await waitFor('all 64 answers of the slow client', () => (slow.answers.length === sent ? true : undefined));
    expect(slow.answers).toEqual(Array.from({ length: sent }, (_, i) => i + 1));
    await waitFor('the pool to be empty', () => (pool.usedBytes === 0 ? true : undefined));
    expect(pool.waitingCount).toBe(0);
  });

  it('gives a closed connection\'s pending responses back to the pool, and the muted connections read again', async () => {
    const handler: RequestHandler = (request) => [request.subarray(0, 4), Buffer.alloc(BIG_BYTES, 0x62)];
    const pool = new ResponseMemoryPool(64 * 1024);
    const server = await startServer(handler, pool);
    const slow = await nonReadingPipeline(server, 32);
    await waitFor('the slow connection to be muted', () => (pool.waitingCount === 1 ? true : undefined));
    slow.socket.destroy();
    await waitFor('its bytes to leave the pool', () => (server.connectionCount === 0 && pool.usedBytes === 0 ? true : undefined));
    expect(pool.waitingCount).toBe(0);
  });
});
