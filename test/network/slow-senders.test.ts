import { connect, type Socket } from 'node:net';
import type { TimerHandle } from '../../host/io/environment.js';
import { afterEach, describe, expect, it } from 'vitest';
import { RequestMemoryPool } from '../../host/network/request-memory-pool.js';
import { SocketServer, type RequestHandler } from '../../host/network/socket-server.js';
import { defaultConnectionResources } from '../../host/network/tcp-connection.js';
import { waitFor } from '../helpers/wait-for.js';
import { silentLogger, testFrame } from '../helpers/test-frames.js';

// Test protocol: a frame is int32 correlation id + ASCII; the answer echoes it behind 'ok:'.
const echo: RequestHandler = (frame) => Buffer.concat([frame.subarray(0, 4), Buffer.from('ok:'), frame.subarray(4)]);
const silent = silentLogger;
const frame = testFrame;

/** A raw TCP client: counts answer frames, knows when the server closed it. */
class Raw {
  answers = 0;
  closed = false;
  private buffered = Buffer.alloc(0);
  readonly closedPromise: Promise<void>;
  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      while (this.buffered.length >= 4 && this.buffered.length >= 4 + this.buffered.readInt32BE(0)) {
        this.buffered = this.buffered.subarray(4 + this.buffered.readInt32BE(0));
        this.answers++;
      }
    });
    socket.on('error', () => {});
    this.closedPromise = new Promise((resolve) => socket.on('close', () => {
      this.closed = true;
      resolve();
    }));
  }
  static open(port: number): Promise<Raw> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port }, () => resolve(new Raw(socket)));
      socket.once('error', reject);
    });
  }
  write(bytes: Buffer): void {
    this.socket.write(bytes);
  }
}

const servers: SocketServer[] = [];
const clients: Raw[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.socket.destroy();
  await Promise.all(servers.splice(0).map((server) => server.stop(1000)));
});

async function start(options: Partial<ConstructorParameters<typeof SocketServer>[0]>): Promise<SocketServer> {
  const server = new SocketServer({ host: '127.0.0.1', port: 0, handler: echo, logger: silent, ...options });
  servers.push(server);
  await server.start();
  return server;
}

async function open(server: SocketServer): Promise<Raw> {
  const client = await Raw.open(server.address().port);
  clients.push(client);
  return client;
}

/** The first `bytes` bytes of a frame announcing `size` bytes: a half-sent request. */
function halfSent(size: number, bytes: number): Buffer {
  const prefix = Buffer.alloc(4 + bytes, 0x61);
  prefix.writeInt32BE(size, 0);
  return prefix;
}

describe('RequestMemoryPool (queued.max.request.bytes)', () => {
  it('makes a holder that would pass the capacity wait, and lets waiters in first come first served as memory frees', () => {
    const pool = new RequestMemoryPool(100);
    const events: string[] = [];
    const holder = (name: string) => ({ pause: () => events.push(`${name} paused`), resume: () => events.push(`${name} resumed`) });
    const a = holder('a');
    const b = holder('b');
    const c = holder('c');
    pool.update(a, 80);
    pool.update(b, 30);
    pool.update(c, 10);
    expect(events).toEqual(['b paused']);
    expect(pool.waitingCount).toBe(1);
    pool.update(a, 0);
    expect(events).toEqual(['b paused', 'b resumed']);
    pool.remove(b);
    pool.remove(c);
    expect(pool.usedBytes).toBe(0);
  });

  it('lets a frame larger than the whole pool through when nothing else holds memory', () => {
    const pool = new RequestMemoryPool(10);
    const paused: string[] = [];
    pool.update({ pause: () => paused.push('big'), resume() {} }, 50);
    expect(paused).toEqual([]);
  });
});

describe('Slow senders cannot hold the broker\'s request memory (issue 15)', () => {
  it('stops reading a connection while half-sent frames of others hold queued.max.request.bytes, and reads it again when they go', async () => {
    const pool = new RequestMemoryPool(1_000);
    const server = await start({ resources: { ...defaultConnectionResources(), requestMemory: pool }, partialRequestTimeoutMs: 0 });
    const slow = await open(server);
    slow.write(halfSent(900, 10)); // reserves 900 bytes, sends 10
    await waitFor('the half-sent frame to hold memory', () => (pool.usedBytes >= 900 ? true : undefined));
    // A request spanning socket chunks reserves its whole size (200 bytes): past the pool, it waits.
    const wellBehaved = await open(server);
    const request = frame(1, 'x'.repeat(196));
    wellBehaved.write(request.subarray(0, 14));
    await waitFor('the second connection to wait for memory', () => (pool.waitingCount === 1 ? true : undefined));
    wellBehaved.write(request.subarray(14));
    expect(wellBehaved.answers).toBe(0);
    slow.socket.destroy();
    await waitFor('the answer once the slow sender is gone', () => (wellBehaved.answers === 1 ? true : undefined));
    expect(pool.waitingCount).toBe(0);
  });

  it('closes a connection whose frame is not complete within socket.partial.request.timeout.ms, however it trickles bytes; others are answered', async () => {
    const server = await start({ partialRequestTimeoutMs: 300 });
    const slowloris = await open(server);
    slowloris.write(halfSent(1_000, 1));
    const trickle = setInterval(() => { if (!slowloris.closed) slowloris.write(Buffer.from('a')); }, 20);
    const wellBehaved = await open(server);
    try {
      wellBehaved.write(frame(1, 'hello'));
      await slowloris.closedPromise;
    } finally {
      clearInterval(trickle);
    }
    await waitFor('the well-behaved answer', () => (wellBehaved.answers === 1 ? true : undefined));
    expect(wellBehaved.closed).toBe(false);
  });

  it('counts the time a frame waits for queued.max.request.bytes: slow senders queued behind one holding the pool time out together, not in turns', async () => {
    // A clock whose timers fire only when the test says so.
    const timers = new Map<number, () => void>();
    let nextTimer = 1;
    const time = {
      setTimeout: (task: () => void): TimerHandle => {
        const id = nextTimer++;
        timers.set(id, task);
        return id as unknown as TimerHandle;
      },
      clearTimeout: (handle: TimerHandle): void => {
        timers.delete(handle as unknown as number);
      },
      monotonicMs: (): number => 0,
      defer: (task: () => void): void => {
        setImmediate(task);
      },
    };
    const pool = new RequestMemoryPool(1_000);
    const server = await start({ resources: { ...defaultConnectionResources(), requestMemory: pool }, partialRequestTimeoutMs: 400, time });
    const holder = await open(server);
    holder.write(halfSent(900, 10));
    await waitFor('the first slow sender to hold memory', () => (pool.usedBytes >= 900 ? true : undefined));
    const waiters = await Promise.all([1, 2, 3].map(() => open(server)));
    for (const waiter of waiters) waiter.write(halfSent(900, 10));
    await waitFor('three slow senders waiting for memory', () => (pool.waitingCount === 3 ? true : undefined));
    // Each waiter's frame has begun: its timer runs while it waits (before, only the holder's ran,
    // and each waiter got the pool for a whole timeout of its own once its turn came).
    expect(timers.size).toBe(4);
    for (const task of [...timers.values()]) task();
    await Promise.all([holder.closedPromise, ...waiters.map((waiter) => waiter.closedPromise)]);
    expect(pool.usedBytes).toBe(0);
    expect(pool.waitingCount).toBe(0);
    const wellBehaved = await open(server);
    const request = frame(1, 'x'.repeat(196));
    wellBehaved.write(request.subarray(0, 14));
    wellBehaved.write(request.subarray(14));
    await waitFor('the well-behaved answer', () => (wellBehaved.answers === 1 ? true : undefined));
  });

  it('gives back every byte of queued.max.request.bytes and every max.connections.per.ip place when connections die mid-frame', async () => {
    const pool = new RequestMemoryPool(1_000);
    const server = await start({ resources: { ...defaultConnectionResources(), requestMemory: pool }, partialRequestTimeoutMs: 0, maxConnectionsPerIp: 30 });
    for (let round = 0; round < 3; round++) {
      // 30 connections, each 10 bytes into a 400-byte frame: two hold the pool, the rest wait for it.
      const senders = await Promise.all(Array.from({ length: 30 }, () => open(server)));
      for (const sender of senders) sender.write(halfSent(400, 10));
      await waitFor('the pool to fill and the rest to wait', () => (pool.waitingCount > 0 && pool.usedBytes >= 800 ? true : undefined));
      // They go every way a peer can: FIN after a partial frame, FIN without a word more, RST.
      senders.forEach((sender, i) => {
        if (i % 3 === 0) sender.socket.end();
        else if (i % 3 === 1) sender.socket.destroy();
        else sender.socket.resetAndDestroy();
      });
      await waitFor('every connection to be gone', () => (server.connectionCount === 0 ? true : undefined));
      expect(pool.usedBytes).toBe(0);
      expect(pool.waitingCount).toBe(0);
    }
    // 90 connections came and went past a limit of 30 per address: a new one is accepted and answered.
    const after = await open(server);
    after.write(frame(3, 'after'));
    await waitFor('the answer after the churn', () => (after.answers === 1 ? true : undefined));
  });

  it('refuses connections past max.connections.per.ip', async () => {
    const server = await start({ maxConnectionsPerIp: 2 });
    const first = await open(server);
    await open(server);
    const third = await open(server);
    await third.closedPromise;
    first.write(frame(7, 'still served'));
    await waitFor('the first connection\'s answer', () => (first.answers === 1 ? true : undefined));
  });
});
