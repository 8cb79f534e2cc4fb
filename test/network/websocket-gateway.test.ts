import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConnectionContext, NetworkLogger, RequestHandler, ResponseBytes } from '../../host/network/network-types.js';
import { lagReportPage, noLagReportNote } from '../../host/network/http-server.js';
import { OVERSIZE_GRACE_BYTES, WebSocketCloseCode, WebSocketGateway, type WebSocketGatewayOptions } from '../../host/network/websocket-gateway.js';
import { SystemTime } from '../../host/io/time.js';
import { httpGet, OPCODE_BINARY, TestWebSocket, UpgradeRefused, waitUntil } from './websocket-test-client.js';

// Test protocol: a request frame is a Kafka-shaped header (int16 apiKey, int16 apiVersion, int32
// correlationId) followed by an ASCII command; the response frame is int32 correlationId + 'ok:' +
// command unless the command says otherwise (see `scripted` below).

interface LogLine {
  level: string;
  fields: Record<string, unknown>;
  message: string;
}

function recordingLogger(lines: LogLine[]): NetworkLogger {
  const at = (level: string) => (fields: object, message: string) => lines.push({ level, fields: fields as Record<string, unknown>, message });
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

function request(correlationId: number, command: string, padding = 0): Buffer {
  const body = Buffer.concat([Buffer.from(command, 'ascii'), Buffer.alloc(padding)]);
  const frame = Buffer.alloc(8 + body.length);
  frame.writeInt16BE(18, 0);
  frame.writeInt16BE(0, 2);
  frame.writeInt32BE(correlationId, 4);
  body.copy(frame, 8);
  return frame;
}

function commandOf(frame: Buffer): string {
  const text = frame.subarray(8).toString('latin1');
  const nul = text.indexOf('\0');
  return nul < 0 ? text : text.slice(0, nul);
}

function ok(frame: Buffer): Buffer {
  return Buffer.concat([frame.subarray(4, 8), Buffer.from(`ok:${commandOf(frame)}`)]);
}

function parse(message: { data: Buffer }): { correlationId: number; text: string } {
  return { correlationId: message.data.readInt32BE(0), text: message.data.subarray(4).toString('latin1') };
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((res) => {
    resolve = res;
  });
  return { promise, resolve };
}

/**
 * `wait:<name>` completes when the test releases <name>; `none` answers nothing (acks=0);
 * `big:<n>` answers n bytes; `parts` answers a Buffer[]; `refuse` closes the connection the way
 * the dispatcher refuses a request; `throw` is a handler bug.
 */
function scripted(gates: Map<string, Deferred<void>> = new Map()): RequestHandler {
  return (frame: Buffer, connection: ConnectionContext): ResponseBytes | null | Promise<ResponseBytes | null> => {
    const command = commandOf(frame);
    if (command.startsWith('wait:')) {
      const name = command.slice(5);
      let gate = gates.get(name);
      if (gate === undefined) {
        gate = deferred<void>();
        gates.set(name, gate);
      }
      return gate.promise.then(() => ok(frame));
    }
    if (command === 'none') return null;
    if (command.startsWith('big:')) {
      const response = Buffer.alloc(Number(command.slice(4)), 0x61);
      frame.copy(response, 0, 4, 8);
      return response;
    }
    if (command === 'parts') return [frame.subarray(4, 8), Buffer.from('ok:'), Buffer.alloc(0), Buffer.from('pa'), Buffer.from('rts')];
    if (command === 'refuse') {
      connection.close('api key 99 is not supported');
      return null;
    }
    if (command === 'throw') throw new Error('handler bug');
    return ok(frame);
  };
}

const gateways: WebSocketGateway[] = [];
const sockets: TestWebSocket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(gateways.splice(0).map((gateway) => gateway.stop(1000)));
});

async function startGateway(
  options: Partial<WebSocketGatewayOptions> = {},
): Promise<{ gateway: WebSocketGateway; port: number; logs: LogLine[]; closed: ConnectionContext[] }> {
  const logs: LogLine[] = [];
  const closed: ConnectionContext[] = [];
  const gateway = new WebSocketGateway({
    host: '127.0.0.1',
    port: 0,
    handler: scripted(),
    logger: recordingLogger(logs),
    onConnectionClosed: (connection) => closed.push(connection),
    ...options,
  });
  gateways.push(gateway);
  const { port } = await gateway.start();
  return { gateway, port, logs, closed };
}

/** A port that was free a moment ago (bound to 0 by node:net, then released). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function open(port: number, path = '/kafka'): Promise<TestWebSocket> {
  const socket = await TestWebSocket.open(port, path);
  sockets.push(socket);
  return socket;
}

/** One request on a fresh socket (proves the gateway is processing while another socket waits). */
async function roundTripElsewhere(port: number): Promise<string> {
  const socket = await open(port);
  return (await roundTrip(socket, 99, 'elsewhere')).text;
}

async function roundTrip(socket: TestWebSocket, correlationId: number, command: string): Promise<{ correlationId: number; text: string }> {
  socket.sendBinary(request(correlationId, command));
  return parse(await socket.next());
}

describe('WebSocketGateway GET /consumer-lag', () => {
  it('answers the reports of the groups it coordinates, and for a named group it has none of, a note saying where to ask', async () => {
    const report = { groupId: 'mine', status: 'OK' };
    const { port } = await startGateway({ consumerLag: (group) => (group === null || group === 'mine' ? [report] : []) });
    const ask = async (query: string): Promise<unknown> => (await fetch(`http://127.0.0.1:${port}/consumer-lag${query}`)).json();
    expect(await ask('')).toEqual({ groups: [report], nextOffset: null });
    expect(await ask('?group=mine')).toEqual({ groups: [report] });
    expect(await ask('?group=elsewhere')).toEqual({ groups: [], note: noLagReportNote('elsewhere') });
    expect(noLagReportNote('elsewhere')).toContain('FindCoordinator');
  });

  it('answers all groups in pages of consumer.lag.max.page.partitions partitions, nextOffset leading through every group once', async () => {
    // 7 groups of 3, 3, 3, 9, 1, 1, 1 partitions; pages of at most 6 partitions (a 9-partition group is a page of its own).
    const sizes = [3, 3, 3, 9, 1, 1, 1];
    const reports = sizes.map((size, i) => ({ groupId: `g${i}`, partitions: Array.from({ length: size }, (_, partition) => ({ partition })) }));
    const { port } = await startGateway({ consumerLag: (group) => (group === null ? reports : []), consumerLagMaxPagePartitions: 6 });
    const pages: string[][] = [];
    for (let offset: number | null = 0, guard = 0; offset !== null && guard < 20; guard++) {
      const page = (await (await fetch(`http://127.0.0.1:${port}/consumer-lag?offset=${offset}`)).json()) as { groups: { groupId: string }[]; nextOffset: number | null };
      pages.push(page.groups.map((group) => group.groupId));
      offset = page.nextOffset;
    }
    expect(pages).toEqual([['g0', 'g1'], ['g2'], ['g3'], ['g4', 'g5', 'g6']]);
    expect(lagReportPage(reports, 99, 6)).toEqual({ groups: [], nextOffset: null });
  });
});

describe('WebSocketGateway /kafka', () => {
  it('binds a free port when asked for port 0 and answers one request frame per binary message', async () => {
    const { gateway, port } = await startGateway();
    expect(port).toBeGreaterThan(0);
    expect(gateway.address()).toEqual({ host: '127.0.0.1', port });
    const socket = await open(port);
    expect(await roundTrip(socket, 7, 'hello')).toEqual({ correlationId: 7, text: 'ok:hello' });
    expect(gateway.connectionCount).toBe(1);
  });

  it('sends a response given as several buffers as one binary message', async () => {
    const { port } = await startGateway();
    const socket = await open(port);
    socket.sendBinary(request(3, 'parts'));
    const message = await socket.next();
    expect(message.opcode).toBe(OPCODE_BINARY);
    expect(parse(message)).toEqual({ correlationId: 3, text: 'ok:parts' });
  });

  it('answers in request order when handlers complete out of order', async () => {
    const gates = new Map<string, Deferred<void>>();
    const { port } = await startGateway({ handler: scripted(gates) });
    const socket = await open(port);
    socket.sendBinary(request(1, 'wait:a'));
    socket.sendBinary(request(2, 'wait:b'));
    socket.sendBinary(request(3, 'now'));
    await waitUntil(() => gates.has('a') && gates.has('b'));
    gates.get('b')!.resolve();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(socket.messages).toHaveLength(0);
    gates.get('a')!.resolve();
    const answers = [parse(await socket.next()), parse(await socket.next()), parse(await socket.next())];
    expect(answers).toEqual([
      { correlationId: 1, text: 'ok:wait:a' },
      { correlationId: 2, text: 'ok:wait:b' },
      { correlationId: 3, text: 'ok:now' },
    ]);
  });

  it('sends nothing back for a request answered with null (acks=0) and keeps answering the rest in order', async () => {
    const { port } = await startGateway();
    const socket = await open(port);
    socket.sendBinary(request(1, 'none'));
    socket.sendBinary(request(2, 'after'));
    expect(parse(await socket.next())).toEqual({ correlationId: 2, text: 'ok:after' });
    socket.sendBinary(request(3, 'none'));
    socket.sendBinary(request(4, 'last'));
    expect(parse(await socket.next())).toEqual({ correlationId: 4, text: 'ok:last' });
    expect(socket.messages).toHaveLength(0);
  });

  it('copies each message out of uWebSockets.js memory before the callback returns', async () => {
    const held: Buffer[] = [];
    const release = deferred<void>();
    const { port } = await startGateway({
      handler: async (frame) => {
        held.push(frame);
        await release.promise;
        return ok(frame);
      },
    });
    const socket = await open(port);
    for (let i = 0; i < 20; i++) socket.sendBinary(request(i, `message-${i}`, 64));
    await waitUntil(() => held.length === 20);
    release.resolve();
    for (let i = 0; i < 20; i++) expect(parse(await socket.next())).toEqual({ correlationId: i, text: `ok:message-${i}` });
    expect(held.every((frame, i) => frame.length === 8 + `message-${i}`.length + 64)).toBe(true);
  });

  it('closes with 1009 and the limit in the reason for a message above socket.request.max.bytes, harming no other socket', async () => {
    const { port, logs } = await startGateway({ socketRequestMaxBytes: 1024 });
    const bystander = await open(port);
    const socket = await open(port);
    socket.sendBinary(request(1, 'fits', 1024 - 12));
    expect(parse(await socket.next())).toEqual({ correlationId: 1, text: 'ok:fits' });
    socket.sendBinary(request(2, 'too big', 1024));
    const close = await socket.closed;
    expect(close.code).toBe(WebSocketCloseCode.MessageTooBig);
    expect(close.reason).toContain('socket.request.max.bytes 1024');
    expect(logs.some((line) => line.fields.event === 'connection.closed' && line.fields.code === 1009)).toBe(true);
    expect(await roundTrip(bystander, 9, 'still here')).toEqual({ correlationId: 9, text: 'ok:still here' });
  });

  it('drops a connection announcing a message far above the limit before buffering it, and logs why', async () => {
    const { port, logs, closed } = await startGateway({ socketRequestMaxBytes: 1024 });
    const socket = await open(port);
    // Only the frame header: uWS refuses on the announced length.
    const header = TestWebSocket.encodeFrame(OPCODE_BINARY, Buffer.alloc(0)).subarray(0, 2);
    const announced = Buffer.alloc(10 + 4);
    announced[0] = header[0]!;
    announced[1] = 0x80 | 127;
    announced.writeBigUInt64BE(BigInt(1024 + OVERSIZE_GRACE_BYTES + 1), 2);
    socket.writeRaw(announced);
    await socket.closed;
    await waitUntil(() => closed.length === 1);
    expect(logs.some((line) => line.fields.event === 'connection.closed' && /too big/i.test(String(line.fields.reason)))).toBe(true);
  });

  it('closes with 1003 for a text message on /kafka', async () => {
    const { port } = await startGateway();
    const socket = await open(port);
    socket.sendText('{"op":"listTopics"}');
    const close = await socket.closed;
    expect(close.code).toBe(WebSocketCloseCode.UnsupportedData);
    expect(close.reason).toContain('binary');
  });

  it('closes with 1008 and the broker reason when the handler refuses a frame, and with 1011 on a handler bug', async () => {
    const { port, logs } = await startGateway();
    const refused = await open(port);
    refused.sendBinary(request(1, 'refuse'));
    expect(await refused.closed).toEqual({ code: WebSocketCloseCode.PolicyViolation, reason: 'api key 99 is not supported' });
    const buggy = await open(port);
    buggy.sendBinary(request(1, 'throw'));
    expect((await buggy.closed).code).toBe(WebSocketCloseCode.InternalError);
    expect(logs.some((line) => line.level === 'error' && line.fields.event === 'request.failed')).toBe(true);
  });

  it('closes only the socket that sends bytes that are not WebSocket frames', async () => {
    const { port, closed } = await startGateway();
    const bystander = await open(port);
    const garbage = await open(port);
    garbage.writeRaw(Buffer.from('GET / HTTP/1.1\r\n\r\n this is not a websocket frame \xff\xfe'));
    await garbage.closed;
    await waitUntil(() => closed.length === 1);
    expect(await roundTrip(bystander, 5, 'unharmed')).toEqual({ correlationId: 5, text: 'ok:unharmed' });
  });

  it('cuts off a client that never reads while another client keeps being answered, with bounded memory', async () => {
    const maxBufferedBytes = 1024 * 1024;
    const { gateway, port, logs, closed } = await startGateway({
      maxPendingResponseBytesPerConnection: 256 * 1024,
      maxBufferedBytesPerConnection: maxBufferedBytes,
    });
    const reader = await open(port);
    const stuck = await open(port);
    stuck.pauseReading();
    let sent = 0;
    // Each request asks for 64 KiB and carries 16 KiB: once the kernel buffers are full, uWS
    // buffers, dispatch pauses, and the unprocessed requests pile up to the hard limit.
    while (closed.length === 0 && sent < 5000) {
      stuck.sendBinary(request(sent++, 'big:65536', 16 * 1024));
      if (sent % 50 === 0) {
        expect(await roundTrip(reader, sent, `alive-${sent}`)).toEqual({ correlationId: sent, text: `ok:alive-${sent}` });
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    await waitUntil(() => closed.length === 1);
    expect(closed[0]!.closed).toBe(true);
    const line = logs.find((entry) => entry.fields.event === 'connection.closed' && String(entry.fields.reason).includes('not reading'));
    expect(line).toBeDefined();
    expect(gateway.connectionCount).toBe(1);
    expect(await roundTrip(reader, 100_000, 'after')).toEqual({ correlationId: 100_000, text: 'ok:after' });
  });

  it('cuts off the socket holding the most once all sockets together pass websocket.max.total.buffered.bytes, and keeps answering the others', async () => {
    const maxTotalBufferedBytes = 2 * 1024 * 1024;
    const { gateway, port, logs, closed } = await startGateway({
      maxPendingResponseBytesPerConnection: 256 * 1024,
      maxBufferedBytesPerConnection: 64 * 1024 * 1024,
      maxTotalBufferedBytes,
    });
    const reader = await open(port);
    const stuck = [await open(port), await open(port)];
    for (const socket of stuck) socket.pauseReading();
    let sent = 0;
    // Each socket stays far under its own bound (64 MiB); together they pass the total.
    while (closed.length === 0 && sent < 5000) {
      for (const socket of stuck) socket.sendBinary(request(sent, 'big:65536', 16 * 1024));
      sent++;
      if (sent % 50 === 0) expect(await roundTrip(reader, sent, `alive-${sent}`)).toEqual({ correlationId: sent, text: `ok:alive-${sent}` });
      await new Promise((resolve) => setImmediate(resolve));
    }
    await waitUntil(() => closed.length >= 1);
    expect(gateway.totalBufferedCutOffs).toBeGreaterThanOrEqual(1);
    const line = logs.find((entry) => entry.fields.event === 'connection.closed' && String(entry.fields.reason).includes('websocket.max.total.buffered.bytes'));
    expect(line?.level).toBe('warn');
    expect(await roundTrip(reader, 100_000, 'after')).toEqual({ correlationId: 100_000, text: 'ok:after' });
    expect(gateway.connectionCount).toBe(3 - closed.length);
  });

  it('cuts off a client whose output stays blocked for connections.max.idle.ms even when it stops sending', async () => {
    const { gateway, port, logs, closed } = await startGateway({
      connectionsMaxIdleMs: 300,
      maxPendingResponseBytesPerConnection: 64 * 1024,
      maxBufferedBytesPerConnection: 64 * 1024 * 1024,
    });
    const stuck = await open(port);
    stuck.pauseReading();
    let sent = 0;
    // Ask for responses until uWS itself buffers beyond the soft bound (the kernel buffers are full).
    while ((gateway.connectionStats()[0]?.bufferedAmount ?? 0) <= 64 * 1024 && closed.length === 0) {
      stuck.sendBinary(request(sent++, 'big:262144'));
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await waitUntil(() => closed.length === 1);
    expect(logs.some((line) => line.fields.event === 'connection.closed' && String(line.fields.reason).includes('read nothing'))).toBe(true);
  });

  it('dispatches at most maxInFlightRequestsPerConnection requests at once and the rest as answers go out', async () => {
    const gates = new Map<string, Deferred<void>>();
    const seen: string[] = [];
    const inner = scripted(gates);
    const { port } = await startGateway({
      maxInFlightRequestsPerConnection: 2,
      handler: (frame, connection) => {
        seen.push(commandOf(frame));
        return inner(frame, connection);
      },
    });
    const socket = await open(port);
    socket.sendBinary(request(1, 'wait:one'));
    socket.sendBinary(request(2, 'wait:two'));
    socket.sendBinary(request(3, 'three'));
    await waitUntil(() => gates.has('one') && gates.has('two'));
    expect(await roundTripElsewhere(port)).toBe('ok:elsewhere');
    expect(seen.filter((command) => command !== 'elsewhere')).toEqual(['wait:one', 'wait:two']);
    gates.get('one')!.resolve();
    gates.get('two')!.resolve();
    expect([parse(await socket.next()), parse(await socket.next()), parse(await socket.next())].map((m) => m.correlationId)).toEqual([1, 2, 3]);
    expect(seen.filter((command) => command !== 'elsewhere')).toEqual(['wait:one', 'wait:two', 'three']);
  });

  it('runs one socket\'s pipelined requests only for connection.max.dispatch.ms.per.turn per turn: another socket is answered in between', async () => {
    // A clock on which every request takes 20 ms: the 10 ms budget is spent by each request.
    // Deferred turns are held until the test runs them, so how far the pipeline got when the other
    // socket was answered does not depend on how the machine schedules the two processes.
    const system = new SystemTime();
    let nowMs = 0;
    const held: (() => void)[] = [];
    const time = {
      nowMs: () => system.nowMs(), setTimeout: system.setTimeout.bind(system), clearTimeout: system.clearTimeout.bind(system),
      monotonicMs: () => (nowMs += 20), defer: (task: () => void) => { held.push(task); },
    };
    const busy = async (maxDispatchMsPerTurn: number): Promise<number> => {
      const { port } = await startGateway({ time, maxDispatchMsPerTurn, sharedDispatchBudget: null });
      const pipeliner = await open(port);
      const other = await open(port);
      // 100 requests in one TCP write: uWS delivers them in one read.
      pipeliner.writeRaw(Buffer.concat(Array.from({ length: 100 }, (_, i) => TestWebSocket.encodeFrame(OPCODE_BINARY, request(i, 'x'.repeat(100))))));
      await waitUntil(() => pipeliner.messages.length >= 1);
      expect((await roundTrip(other, 7, 'me too')).text).toBe('ok:me too');
      const seen = pipeliner.messages.length;
      for (let i = 0; i < 1000 && pipeliner.messages.length < 100; i++) {
        held.splice(0).forEach((task) => task());
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      await waitUntil(() => pipeliner.messages.length === 100);
      expect(pipeliner.messages.map((m) => parse(m).correlationId)).toEqual(Array.from({ length: 100 }, (_, i) => i));
      return seen;
    };
    // With the budget the other socket is answered long before the pipeline is through; without it, after.
    expect(await busy(10)).toBeLessThan(100);
    expect(await busy(0)).toBe(100);
  });

  it('closes a socket idle for connections.max.idle.ms with 1001, but not while a request is in flight', async () => {
    const gates = new Map<string, Deferred<void>>();
    const { port } = await startGateway({ connectionsMaxIdleMs: 100, handler: scripted(gates) });
    const busy = await open(port);
    busy.sendBinary(request(1, 'wait:slow'));
    const idle = await open(port);
    const close = await idle.closed;
    expect(close.code).toBe(WebSocketCloseCode.GoingAway);
    expect(close.reason).toContain('connections.max.idle.ms');
    expect(busy.closeInfo).toBeNull();
    gates.get('slow')!.resolve();
    expect(parse(await busy.next())).toEqual({ correlationId: 1, text: 'ok:wait:slow' });
  });

  it('does not share its port with another listener (no SO_REUSEPORT): the second start fails', async () => {
    // A port asked for by number (port 0 binds differ: the kernel never joins them to a group).
    const { port } = await startGateway({ port: await freePort() });
    const second = new WebSocketGateway({ host: '127.0.0.1', port, handler: scripted(), logger: recordingLogger([]) });
    await expect(second.start()).rejects.toThrow(/cannot listen on 127\.0\.0\.1:\d+/);
    // The first still answers every connection.
    for (let i = 0; i < 4; i++) expect(await roundTripElsewhere(port)).toBe('ok:elsewhere');
  });

  it('refuses upgrades beyond max.connections with HTTP 503', async () => {
    const { port, logs } = await startGateway({ maxConnections: 1 });
    const first = await open(port);
    const refused = await TestWebSocket.open(port, '/kafka').then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(UpgradeRefused);
    expect((refused as UpgradeRefused).status).toBe(503);
    expect(logs.some((line) => line.fields.event === 'connection.refused')).toBe(true);
    expect(await roundTrip(first, 1, 'ok')).toEqual({ correlationId: 1, text: 'ok:ok' });
  });

  it('stops gracefully: in-flight requests are answered, then sockets end with 1001', async () => {
    const gates = new Map<string, Deferred<void>>();
    const { gateway, port } = await startGateway({ handler: scripted(gates) });
    const socket = await open(port);
    socket.sendBinary(request(1, 'wait:x'));
    await waitUntil(() => gates.has('x'));
    const stopped = gateway.stop(5000);
    gates.get('x')!.resolve();
    expect(parse(await socket.next())).toEqual({ correlationId: 1, text: 'ok:wait:x' });
    expect((await socket.closed).code).toBe(WebSocketCloseCode.GoingAway);
    await stopped;
    expect(gateway.connectionCount).toBe(0);
    await expect(TestWebSocket.open(port, '/kafka')).rejects.toThrow();
  });
});

describe('WebSocketGateway HTTP routes', () => {
  it('answers /health with 200 while up and /ready with 503 until the broker is ready', async () => {
    let ready = false;
    const { port } = await startGateway({ isReady: () => ready });
    const health = await httpGet(port, '/health');
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toEqual({ status: 'UP' });
    const notReady = await httpGet(port, '/ready');
    expect(notReady.status).toBe(503);
    expect(JSON.parse(notReady.body)).toEqual({ status: 'NOT_READY' });
    ready = true;
    const isReady = await httpGet(port, '/ready');
    expect(isReady.status).toBe(200);
    expect(JSON.parse(isReady.body)).toEqual({ status: 'READY' });
    expect((await httpGet(port, '/health', 'HEAD')).status).toBe(200);
  });

  it('answers /ready with 503 when the readiness callback throws, and 404 for unknown paths', async () => {
    const { port, logs } = await startGateway({
      isReady: () => {
        throw new Error('bug');
      },
    });
    expect((await httpGet(port, '/ready')).status).toBe(503);
    expect(logs.some((line) => line.level === 'error')).toBe(true);
    const missing = await httpGet(port, '/metrics-nope');
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body)).toMatchObject({ error: 'NOT_FOUND', path: '/metrics-nope' });
  });

  it('refuses a /json upgrade with 404 when no JSON sessions are configured', async () => {
    const { port } = await startGateway({ jsonSessions: null });
    const refused = await TestWebSocket.open(port, '/json').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UpgradeRefused);
    expect((refused as UpgradeRefused).status).toBe(404);
  });
});
