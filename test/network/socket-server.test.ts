import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  SocketServer,
  type ConnectionContext,
  type NetworkLogger,
  type RequestHandler,
  type ResponseBytes,
  type SocketServerOptions,
} from '../../host/network/socket-server.js';
import { getCore } from '../../host/wasm/core.js';
import { SystemTime } from '../../host/io/time.js';
import { SharedDispatchBudget } from '../../host/network/shared-dispatch-budget.js';

// Test protocol: a request frame is int32 correlationId + ASCII command; the response frame is
// int32 correlationId + 'ok:' + command, unless the command says otherwise.

interface LogLine {
  level: string;
  fields: Record<string, unknown>;
  message: string;
}

function recordingLogger(lines: LogLine[]): NetworkLogger {
  const at = (level: string) => (fields: object, message: string) =>
    lines.push({ level, fields: fields as Record<string, unknown>, message });
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

function requestFrame(correlationId: number, command: string): Buffer {
  const body = Buffer.from(command, 'ascii');
  const frame = Buffer.alloc(8 + body.length);
  frame.writeInt32BE(4 + body.length, 0);
  frame.writeInt32BE(correlationId, 4);
  body.copy(frame, 8);
  return frame;
}

function okResponse(frame: Buffer): Buffer {
  return Buffer.concat([frame.subarray(0, 4), Buffer.from('ok:'), frame.subarray(4)]);
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A raw TCP client collecting response frames. */
class RawClient {
  readonly frames: Buffer[] = [];
  private buffered = Buffer.alloc(0);
  private waiters: Array<() => void> = [];
  closed = false;
  readonly closedPromise: Promise<void>;
  /** The client's own port, i.e. the port in the server's `peer` string. */
  readonly localPort: number;

  private constructor(readonly socket: Socket) {
    this.localPort = socket.localPort!;
    socket.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      while (this.buffered.length >= 4 && this.buffered.length >= 4 + this.buffered.readInt32BE(0)) {
        const size = this.buffered.readInt32BE(0);
        this.frames.push(this.buffered.subarray(4, 4 + size));
        this.buffered = this.buffered.subarray(4 + size);
      }
      this.notify();
    });
    socket.on('error', () => {});
    this.closedPromise = new Promise((resolve) =>
      socket.on('close', () => {
        this.closed = true;
        this.notify();
        resolve();
      }),
    );
  }

  static open(port: number): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port }, () => resolve(new RawClient(socket)));
      socket.once('error', reject);
    });
  }

  write(bytes: Buffer): Promise<void> {
    return new Promise((resolve, reject) => this.socket.write(bytes, (error) => (error ? reject(error) : resolve())));
  }

  /** Resolves once `count` frames arrived; rejects if the socket closes first. */
  async waitForFrames(count: number): Promise<Buffer[]> {
    while (this.frames.length < count) {
      if (this.closed) throw new Error(`closed after ${this.frames.length} of ${count} frames`);
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    return this.frames.slice(0, count);
  }

  responses(): Array<{ correlationId: number; text: string }> {
    return this.frames.map((f) => ({ correlationId: f.readInt32BE(0), text: f.subarray(4).toString('ascii') }));
  }

  destroy(): void {
    this.socket.destroy();
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter();
  }
}

function waitUntil(condition: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = (): void => {
      if (condition()) resolve();
      else setTimeout(check, 2);
    };
    check();
  });
}

const servers: SocketServer[] = [];
const clients: RawClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.destroy();
  await Promise.all(servers.splice(0).map((server) => server.stop(1000)));
});

async function startServer(
  handler: RequestHandler,
  options: Partial<SocketServerOptions> = {},
): Promise<{ server: SocketServer; port: number; logs: LogLine[] }> {
  const logs: LogLine[] = [];
  const server = new SocketServer({ host: '127.0.0.1', port: 0, handler, logger: recordingLogger(logs), ...options });
  servers.push(server);
  const { port } = await server.start();
  return { server, port, logs };
}

async function openClient(port: number): Promise<RawClient> {
  const client = await RawClient.open(port);
  clients.push(client);
  return client;
}

const echo: RequestHandler = (frame) => okResponse(frame);

/** System timers, and a monotonic clock that moves `stepMs` at every reading (each request "takes" that long). */
function steppingClock(stepMs: number) {
  const system = new SystemTime();
  let nowMs = 0;
  const held: (() => void)[] = [];
  return {
    setTimeout: system.setTimeout.bind(system), clearTimeout: system.clearTimeout.bind(system),
    monotonicMs: () => (nowMs += stepMs),
    // Deferred turns wait until the test runs them (runTurnsUntil), so how far a pipeline got
    // when another client was answered does not depend on how the machine schedules processes.
    defer: (task: () => void) => { held.push(task); },
    /** Runs the held turns (and those they defer) until `done()`, letting I/O in between. */
    async runTurnsUntil(done: () => boolean): Promise<void> {
      for (let i = 0; i < 2000 && !done(); i++) {
        held.splice(0).forEach((task) => task());
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    },
  };
}

describe('SocketServer', () => {
  it('binds a free port when asked for port 0 and reports it', async () => {
    const { server, port } = await startServer(echo);
    expect(port).toBeGreaterThan(0);
    expect(server.address()).toMatchObject({ host: '127.0.0.1', port });
  });

  it('answers frames packed into one write and frames split across writes', async () => {
    const { port } = await startServer(echo);
    const client = await openClient(port);
    await client.write(Buffer.concat([requestFrame(1, 'a'), requestFrame(2, 'bb'), requestFrame(3, 'ccc')]));
    const split = requestFrame(4, 'split');
    for (let i = 0; i < split.length; i++) {
      await client.write(split.subarray(i, i + 1));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await client.waitForFrames(4);
    expect(client.responses()).toEqual([
      { correlationId: 1, text: 'ok:a' },
      { correlationId: 2, text: 'ok:bb' },
      { correlationId: 3, text: 'ok:ccc' },
      { correlationId: 4, text: 'ok:split' },
    ]);
  });

  it('reassembles a large frame that arrives in many chunks', async () => {
    const sizes: number[] = [];
    const { port } = await startServer((frame) => {
      sizes.push(frame.length);
      const sum = frame.subarray(4).reduce((a, b) => (a + b) & 0xffff, 0);
      return Buffer.concat([frame.subarray(0, 4), Buffer.from(`${frame.length}:${sum}`)]);
    });
    const client = await openClient(port);
    const payload = Buffer.alloc(3 * 1024 * 1024);
    for (let i = 0; i < payload.length; i++) payload[i] = (i * 7) & 0xff;
    const expectedSum = payload.reduce((a, b) => (a + b) & 0xffff, 0);
    const frame = Buffer.concat([Buffer.alloc(8), payload]);
    frame.writeInt32BE(frame.length - 4, 0);
    frame.writeInt32BE(11, 4);
    await client.write(Buffer.concat([frame, requestFrame(12, 'after')]));
    await client.waitForFrames(2);
    expect(client.responses()).toEqual([
      { correlationId: 11, text: `${payload.length + 4}:${expectedSum}` },
      { correlationId: 12, text: '9:' + Buffer.from('after').reduce((a, b) => a + b, 0) },
    ]);
  });

  it('gathers a large frame of api key 0 (Produce) into the core frame ring and releases it when the handler settles', async () => {
    const arena = getCore().frameArena;
    const pending = new Map<number, Deferred<ResponseBytes | null>>();
    const inArena: boolean[] = [];
    const { port } = await startServer((frame) => {
      inArena.push(arena.owns(frame));
      const command = frame.subarray(4, 9).toString();
      if (command === 'throw') throw new Error('boom');
      const d = deferred<ResponseBytes | null>();
      pending.set(frame.readInt32BE(0), d);
      const length = frame.length;
      return d.promise.then(() => Buffer.concat([frame.subarray(0, 4), Buffer.from(`${length}:${frame.at(-1)}`)]));
    });
    const big = (correlationId: number, command: string): Buffer => {
      const frame = Buffer.alloc(8 + 300_000, correlationId);
      frame.writeInt32BE(frame.length - 4, 0);
      frame.writeInt32BE(correlationId, 4);
      frame.write(command, 8, 'ascii');
      return frame;
    };
    const client = await openClient(port);
    // Pipelined: three large frames in flight at once, answered out of order.
    await client.write(Buffer.concat([big(1, 'wait1'), big(2, 'wait2'), big(3, 'wait3')]));
    await waitUntil(() => pending.size === 3);
    expect(inArena).toEqual([true, true, true]);
    expect(arena.liveBlocks).toBe(3);
    pending.get(2)!.resolve(null);
    pending.get(3)!.resolve(null);
    pending.get(1)!.resolve(null);
    await client.waitForFrames(3);
    expect(client.responses().map((r) => r.text)).toEqual(['300004:1', '300004:2', '300004:3']);
    expect(arena.liveBlocks).toBe(0);
    // A handler that throws gives its frame back too (its connection is closed as a bug).
    const thrower = await openClient(port);
    await thrower.write(big(4, 'throw'));
    await thrower.closedPromise;
    expect(inArena).toEqual([true, true, true, true]);
    expect(arena.liveBlocks).toBe(0);
  });

  it('gives the handler the connection context', async () => {
    const seen: ConnectionContext[] = [];
    const { port } = await startServer(
      (frame, connection) => {
        seen.push(connection);
        return okResponse(frame);
      },
      { listenerName: 'CLIENT' },
    );
    const client = await openClient(port);
    await client.write(requestFrame(1, 'x'));
    await client.waitForFrames(1);
    expect(seen[0]!.listenerName).toBe('CLIENT');
    expect(seen[0]!.peer).toBe(`127.0.0.1:${client.localPort}`);
    expect(seen[0]!.id).toBeGreaterThan(0);
  });

  it('writes pipelined responses in request order when handlers finish out of order', async () => {
    const pending = new Map<number, Deferred<ResponseBytes | null>>();
    const { port } = await startServer((frame) => {
      const d = deferred<ResponseBytes | null>();
      pending.set(frame.readInt32BE(0), d);
      return d.promise.then(() => okResponse(frame));
    });
    const client = await openClient(port);
    await client.write(Buffer.concat([1, 2, 3, 4, 5].map((id) => requestFrame(id, `r${id}`))));
    await waitUntil(() => pending.size === 5);
    for (const id of [5, 3, 4, 2]) pending.get(id)!.resolve(null);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(client.frames).toHaveLength(0);
    pending.get(1)!.resolve(null);
    await client.waitForFrames(5);
    expect(client.responses().map((r) => r.correlationId)).toEqual([1, 2, 3, 4, 5]);
  });

  it('sends nothing for a null response (acks=0) and keeps later responses in order', async () => {
    const { port } = await startServer((frame) => {
      const command = frame.subarray(4).toString();
      if (command === 'noack') return null;
      if (command === 'later') return Promise.resolve(okResponse(frame));
      return okResponse(frame);
    });
    const client = await openClient(port);
    await client.write(
      Buffer.concat([requestFrame(1, 'noack'), requestFrame(2, 'later'), requestFrame(3, 'noack'), requestFrame(4, 'x')]),
    );
    await client.waitForFrames(2);
    await client.write(requestFrame(5, 'y'));
    await client.waitForFrames(3);
    expect(client.responses().map((r) => r.correlationId)).toEqual([2, 4, 5]);
  });

  it('writes a Buffer[] response as one frame', async () => {
    const { port } = await startServer((frame) => [frame.subarray(0, 4), Buffer.from('part1-'), Buffer.alloc(0), Buffer.from('part2')]);
    const client = await openClient(port);
    await client.write(requestFrame(9, 'z'));
    await client.waitForFrames(1);
    expect(client.responses()).toEqual([{ correlationId: 9, text: 'part1-part2' }]);
  });

  it('closes only the connection that announces a frame above socket.request.max.bytes, naming the peer', async () => {
    const { port, logs } = await startServer(echo, { socketRequestMaxBytes: 1000 });
    const bad = await openClient(port);
    const good = await openClient(port);
    const oversized = Buffer.alloc(4);
    oversized.writeInt32BE(0x7fffffff, 0);
    await bad.write(oversized);
    await bad.closedPromise;
    await good.write(requestFrame(1, 'still here'));
    await good.waitForFrames(1);
    expect(good.responses()[0]!.text).toBe('ok:still here');
    const line = logs.find((l) => l.level === 'warn' && String(l.fields.reason).includes('socket.request.max.bytes'));
    expect(line?.fields.peer).toBe(`127.0.0.1:${bad.localPort}`);
  });

  it('closes a connection announcing a negative frame size', async () => {
    const { port, logs } = await startServer(echo);
    const bad = await openClient(port);
    await bad.write(Buffer.from([0xff, 0xff, 0xff, 0xff]));
    await bad.closedPromise;
    expect(logs.some((l) => l.level === 'warn' && String(l.fields.reason).includes('invalid frame size -1'))).toBe(true);
  });

  it('closes a connection that sends garbage (an HTTP request) and keeps serving others', async () => {
    const handled: Buffer[] = [];
    const { port } = await startServer((frame) => {
      handled.push(frame);
      return okResponse(frame);
    });
    const bad = await openClient(port);
    const good = await openClient(port);
    await bad.write(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
    await bad.closedPromise;
    expect(handled).toHaveLength(0);
    await good.write(requestFrame(1, 'fine'));
    await good.waitForFrames(1);
  });

  it('closes idle connections after connections.max.idle.ms', async () => {
    const { port, logs } = await startServer(echo, { connectionsMaxIdleMs: 30 });
    const client = await openClient(port);
    await client.write(requestFrame(1, 'x'));
    await client.waitForFrames(1);
    await client.closedPromise;
    expect(logs.some((l) => l.message.includes('idle'))).toBe(true);
  });

  it('keeps an idle connection open while a request is in flight', async () => {
    const gate = deferred<void>();
    const { port } = await startServer(async (frame) => {
      await gate.promise;
      return okResponse(frame);
    }, { connectionsMaxIdleMs: 20 });
    const client = await openClient(port);
    await client.write(requestFrame(1, 'slow'));
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(client.closed).toBe(false);
    gate.resolve();
    await client.waitForFrames(1);
  });

  it('does not let a never-answered request hold a connection whose peer ended its side (long poll of a departed client)', async () => {
    let handled = 0;
    const { server, port, logs } = await startServer(() => {
      handled++;
      return new Promise<Buffer | null>(() => {});
    }, { connectionsMaxIdleMs: 20, maxConnectionsPerIp: 3 });
    // More departed clients than max.connections.per.ip, one after another: each must free its place.
    for (let i = 0; i < 5; i++) {
      const client = await openClient(port);
      await client.write(requestFrame(i, 'long poll'));
      await waitUntil(() => handled === i + 1);
      client.socket.end();
      await client.closedPromise;
      await waitUntil(() => server.connectionCount === 0);
    }
    expect(logs.filter((l) => l.message.includes('ended its side'))).toHaveLength(5);
    expect(logs.some((l) => l.message.includes('max.connections.per.ip'))).toBe(false);
    const live = await openClient(port);
    await live.write(requestFrame(9, 'still accepted'));
    await waitUntil(() => handled === 6);
    expect(live.closed).toBe(false);
  });

  it('closes connections beyond max.connections at once and keeps the others', async () => {
    const { server, port, logs } = await startServer(echo, { maxConnections: 2 });
    const first = await openClient(port);
    const second = await openClient(port);
    await waitUntil(() => server.connectionCount === 2);
    const third = await openClient(port);
    await third.closedPromise;
    expect(logs.some((l) => l.message.includes('max.connections'))).toBe(true);
    await first.write(requestFrame(1, 'a'));
    await second.write(requestFrame(2, 'b'));
    await first.waitForFrames(1);
    await second.waitForFrames(1);
    first.destroy();
    await waitUntil(() => server.connectionCount === 1);
    const fourth = await openClient(port);
    await fourth.write(requestFrame(3, 'c'));
    await fourth.waitForFrames(1);
  });

  it('runs one connection\'s pipelined requests only for connection.max.dispatch.ms.per.turn per turn: another client is answered in between', async () => {
    // A clock on which every request takes 20 ms: the 10 ms budget is spent by each request.
    const time = steppingClock(20);
    const busy = async (maxDispatchMsPerTurn: number): Promise<number> => {
      // Only this connection's own bound (network.max.dispatch.ms.per.turn has its own test).
      const { port } = await startServer(echo, { time, maxDispatchMsPerTurn, sharedDispatchBudget: null });
      const pipeliner = await openClient(port);
      const other = await openClient(port);
      await pipeliner.write(Buffer.concat(Array.from({ length: 100 }, (_, i) => requestFrame(i, 'x'.repeat(100)))));
      await pipeliner.waitForFrames(1);
      await other.write(requestFrame(7, 'me too'));
      await other.waitForFrames(1);
      const seen = pipeliner.frames.length;
      await time.runTurnsUntil(() => pipeliner.frames.length >= 100);
      await pipeliner.waitForFrames(100);
      expect(pipeliner.responses().map((f) => f.correlationId)).toEqual(Array.from({ length: 100 }, (_, i) => i));
      return seen;
    };
    // With the budget the other client is answered long before the pipeline is through; without it, after.
    expect(await busy(10)).toBeLessThan(100);
    expect(await busy(0)).toBe(100);
  });

  it('bounds all connections\' dispatch in one turn by network.max.dispatch.ms.per.turn: past it each runs one request per turn', async () => {
    // Every request takes 20 ms on this clock; no per-connection bound, only the shared one.
    const time = steppingClock(20);
    const busy = async (sharedDispatchBudget: SharedDispatchBudget | null): Promise<number[]> => {
      const { port } = await startServer(echo, { time, maxDispatchMsPerTurn: 0, sharedDispatchBudget });
      const pipeliners = [await openClient(port), await openClient(port)];
      const other = await openClient(port);
      for (const pipeliner of pipeliners) await pipeliner.write(Buffer.concat(Array.from({ length: 100 }, (_, i) => requestFrame(i, 'x'.repeat(100)))));
      await Promise.all(pipeliners.map((pipeliner) => pipeliner.waitForFrames(1)));
      await other.write(requestFrame(7, 'me too'));
      await other.waitForFrames(1);
      const seen = pipeliners.map((pipeliner) => pipeliner.frames.length);
      await time.runTurnsUntil(() => pipeliners.every((pipeliner) => pipeliner.frames.length >= 100));
      for (const pipeliner of pipeliners) {
        await pipeliner.waitForFrames(100);
        expect(pipeliner.responses().map((f) => f.correlationId)).toEqual(Array.from({ length: 100 }, (_, i) => i));
      }
      return seen;
    };
    // With the shared bound the single request is answered while both pipelines are under way; without it, after them.
    for (const seen of await busy(new SharedDispatchBudget(10, time))) expect(seen).toBeLessThan(100);
    expect(await busy(null)).toEqual([100, 100]);
  });

  it('logs refused connections once per reason per interval, not once per attempt', async () => {
    const { server, port, logs } = await startServer(echo, { maxConnections: 1 });
    await openClient(port);
    await waitUntil(() => server.connectionCount === 1);
    for (let i = 0; i < 20; i++) await (await openClient(port)).closedPromise;
    // A reconnect loop against a full listener: 20 refusals, one warn line (the next one, 10 s on, would carry suppressed: 19).
    expect(logs.filter((l) => l.message.includes('refusing connection'))).toHaveLength(1);
  });

  it('enforces max.connections.per.ip', async () => {
    const { server, port } = await startServer(echo, { maxConnectionsPerIp: 1 });
    await openClient(port);
    await waitUntil(() => server.connectionCount === 1);
    const second = await openClient(port);
    await second.closedPromise;
  });

  it('closes only the connection whose handler throws, logging the peer', async () => {
    const { port, logs } = await startServer((frame) => {
      const command = frame.subarray(4).toString();
      if (command === 'throw') throw new Error('boom');
      if (command === 'reject') return Promise.reject(new Error('async boom'));
      return okResponse(frame);
    });
    const thrower = await openClient(port);
    const rejecter = await openClient(port);
    const good = await openClient(port);
    await thrower.write(requestFrame(1, 'throw'));
    await rejecter.write(requestFrame(1, 'reject'));
    await Promise.all([thrower.closedPromise, rejecter.closedPromise]);
    await good.write(requestFrame(2, 'ok'));
    await good.waitForFrames(1);
    const errors = logs.filter((l) => l.level === 'error');
    expect(errors.map((l) => l.fields.peer).sort()).toEqual(
      [`127.0.0.1:${thrower.localPort}`, `127.0.0.1:${rejecter.localPort}`].sort(),
    );
  });

  it('treats a handler result that is not a Buffer as a bug and closes the connection', async () => {
    const { port, logs } = await startServer(() => 'not bytes' as unknown as Buffer);
    const client = await openClient(port);
    await client.write(requestFrame(1, 'x'));
    await client.closedPromise;
    expect(logs.some((l) => l.level === 'error')).toBe(true);
  });

  it('lets a handler close its connection for unparseable input', async () => {
    const { port, logs } = await startServer((frame, connection) => {
      connection.close('cannot parse request header');
      return okResponse(frame);
    });
    const client = await openClient(port);
    await client.write(requestFrame(1, 'x'));
    await client.closedPromise;
    expect(client.frames).toHaveLength(0);
    expect(logs.some((l) => l.fields.reason === 'cannot parse request header')).toBe(true);
  });

  it('stops reading when the in-flight window is full and resumes when a response goes out', async () => {
    const pending: Array<Deferred<void>> = [];
    const { port } = await startServer(
      async (frame) => {
        const d = deferred<void>();
        pending.push(d);
        await d.promise;
        return okResponse(frame);
      },
      { maxInFlightRequestsPerConnection: 2 },
    );
    const client = await openClient(port);
    await client.write(Buffer.concat([1, 2, 3, 4, 5].map((id) => requestFrame(id, `r${id}`))));
    await waitUntil(() => pending.length === 2);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(pending).toHaveLength(2);
    pending[0]!.resolve();
    await waitUntil(() => pending.length === 3);
    for (let i = 1; i < 5; i++) {
      await waitUntil(() => pending.length > i);
      pending[i]!.resolve();
    }
    await client.waitForFrames(5);
    expect(client.responses().map((r) => r.correlationId)).toEqual([1, 2, 3, 4, 5]);
  });

  it('stops reading while completed responses wait behind a slow one beyond the byte bound', async () => {
    const slow = deferred<void>();
    let handled = 0;
    let completed = 0;
    const { port } = await startServer(
      async (frame) => {
        handled++;
        if (frame.subarray(4).toString() === 'slow') await slow.promise;
        completed++;
        return [frame.subarray(0, 4), Buffer.alloc(1000)];
      },
      { maxPendingResponseBytesPerConnection: 2500 },
    );
    const client = await openClient(port);
    await client.write(Buffer.concat([requestFrame(1, 'slow'), ...[2, 3, 4].map((id) => requestFrame(id, 'fast'))]));
    await waitUntil(() => completed === 3);
    // 3 x 1004 held bytes > 2500: the connection must not read these.
    await client.write(Buffer.concat([5, 6].map((id) => requestFrame(id, 'fast'))));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(handled).toBe(4);
    slow.resolve();
    await client.waitForFrames(6);
    expect(client.responses().map((r) => r.correlationId)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('answers requests a half-closed peer sent before its FIN', async () => {
    const { port } = await startServer(async (frame) => okResponse(frame));
    const client = await openClient(port);
    client.socket.end(Buffer.concat([requestFrame(1, 'a'), requestFrame(2, 'b')]));
    await client.closedPromise;
    expect(client.responses().map((r) => r.correlationId)).toEqual([1, 2]);
  });

  it('stops gracefully: refuses new connections, waits for in-flight responses, then closes', async () => {
    const gate = deferred<void>();
    let closedNotified = 0;
    let handled = 0;
    const { server, port } = await startServer(
      async (frame) => {
        handled++;
        await gate.promise;
        return okResponse(frame);
      },
      { onConnectionClosed: () => closedNotified++ },
    );
    const client = await openClient(port);
    await client.write(requestFrame(7, 'in flight'));
    await waitUntil(() => handled === 1);
    let stopped = false;
    const stopping = server.stop(5000).then(() => {
      stopped = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stopped).toBe(false);
    await expect(RawClient.open(port)).rejects.toThrow();
    gate.resolve();
    await stopping;
    await client.closedPromise;
    expect(client.responses()).toEqual([{ correlationId: 7, text: 'ok:in flight' }]);
    expect(closedNotified).toBe(1);
  });

  it('destroys connections still busy when the stop timeout passes', async () => {
    let handled = 0;
    const { server, port, logs } = await startServer(() => {
      handled++;
      return new Promise<Buffer | null>(() => {});
    });
    const client = await openClient(port);
    await client.write(requestFrame(1, 'never'));
    await waitUntil(() => handled === 1);
    await server.stop(30);
    await client.closedPromise;
    expect(logs.some((l) => l.message.includes('stop timed out'))).toBe(true);
  });
});
