/**
 * KafkaConnection, the connection state machine TCP and WebSocket share, driven directly through a
 * scripted transport: what it dispatches, writes, pauses, finishes and closes, and why. The
 * transports themselves are covered end to end by socket-server.test.ts and
 * websocket-gateway.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { FrameDecoder } from '../../host/network/frame-decoder.js';
import { KafkaConnection, type CloseCause, type ConnectionLimits, type ConnectionTransport, type FrameSource } from '../../host/network/kafka-connection.js';
import { MessageFrames } from '../../host/network/message-frames.js';
import type { NetworkLogger, RequestHandler, ResponseBytes } from '../../host/network/network-types.js';

interface LogLine {
  level: string;
  fields: Record<string, unknown>;
}

/** A transport that records what the connection asks of it. */
class ScriptedTransport implements ConnectionTransport {
  connection!: KafkaConnection;
  readonly written: string[] = [];
  readonly events: string[] = [];
  closedWith: { cause: CloseCause; reason: string } | null = null;
  unsent = 0;
  writable = true;

  unsentBytes(): number {
    return this.unsent;
  }
  canWrite(): boolean {
    return this.writable;
  }
  writeResponses(flush: () => number): void {
    this.events.push('cork');
    flush();
    this.events.push('uncork');
  }
  write(response: ResponseBytes): void {
    const bytes = Buffer.isBuffer(response) ? response : Buffer.concat(response as readonly Buffer[]);
    this.written.push(bytes.toString('utf8'));
  }
  pauseInput(): void {
    this.events.push('pause');
  }
  resumeInput(): void {
    this.events.push('resume');
  }
  finish(): void {
    this.events.push('finish');
    this.connection.transportClosed();
  }
  close(cause: CloseCause, reason: string): void {
    this.closedWith = { cause, reason };
    this.connection.transportClosed();
  }
}

const LIMITS: ConnectionLimits = {
  socketRequestMaxBytes: 1024,
  connectionsMaxIdleMs: 0,
  maxInFlightRequests: 8,
  maxPendingResponseBytes: 1 << 20,
};

function setup(handler: RequestHandler, options: { limits?: Partial<ConnectionLimits>; source?: FrameSource } = {}) {
  const transport = new ScriptedTransport();
  const logs: LogLine[] = [];
  const record = (level: string) => (fields: object) => logs.push({ level, fields: fields as Record<string, unknown> });
  const logger: NetworkLogger = { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };
  const source = options.source ?? new MessageFrames(LIMITS.socketRequestMaxBytes);
  let closedCount = 0;
  const connection = new KafkaConnection({
    id: 1,
    peer: '127.0.0.1:5000',
    listenerName: 'PLAINTEXT',
    handler,
    source,
    transport,
    limits: { ...LIMITS, ...options.limits },
    logger,
    onClosed: () => closedCount++,
  });
  transport.connection = connection;
  return { connection, transport, logs, source, closedCount: () => closedCount };
}

/** Queues `texts` as whole-message frames and tells the connection. */
function receive(connection: KafkaConnection, source: FrameSource, ...texts: string[]): void {
  for (const text of texts) {
    const bytes = Buffer.from(text);
    (source as MessageFrames).push(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer);
  }
  connection.inputArrived();
}

/** A handler whose answers the test releases one by one. */
function deferredHandler() {
  const pending = new Map<string, (response: ResponseBytes | null) => void>();
  const handler: RequestHandler = (frame) =>
    new Promise<ResponseBytes | null>((resolve) => pending.set(frame.toString('utf8'), resolve));
  const answer = async (request: string, response: string | null = `re:${request}`) => {
    pending.get(request)!(response === null ? null : Buffer.from(response));
    pending.delete(request);
    await Promise.resolve();
    await Promise.resolve();
  };
  return { handler, answer, pending };
}

describe('KafkaConnection', () => {
  it('answers pipelined requests in request order when their handlers complete out of order', async () => {
    const { handler, answer } = deferredHandler();
    const { connection, transport, source } = setup(handler);
    receive(connection, source, 'a', 'b', 'c');
    await answer('c');
    await answer('b');
    expect(transport.written).toEqual([]);
    await answer('a');
    expect(transport.written).toEqual(['re:a', 're:b', 're:c']);
    expect(connection.inFlightRequests).toBe(0);
  });

  it('sends nothing for a request answered with null and still keeps the order of the others', async () => {
    const { handler, answer } = deferredHandler();
    const { connection, transport, source } = setup(handler);
    receive(connection, source, 'a', 'b', 'c');
    await answer('b', null);
    await answer('c');
    await answer('a');
    expect(transport.written).toEqual(['re:a', 're:c']);
  });

  it('stops dispatching at maxInFlightRequests, pauses its input, and resumes once a response is written', async () => {
    const { handler, answer, pending } = deferredHandler();
    const { connection, transport, source } = setup(handler, { limits: { maxInFlightRequests: 2 } });
    receive(connection, source, 'a', 'b', 'c');
    expect([...pending.keys()]).toEqual(['a', 'b']);
    expect(transport.events).toContain('pause');
    await answer('a');
    expect([...pending.keys()]).toEqual(['b', 'c']);
    await answer('b');
    await answer('c');
    expect(transport.written).toEqual(['re:a', 're:b', 're:c']);
    expect(transport.events.lastIndexOf('resume')).toBeGreaterThan(transport.events.lastIndexOf('pause'));
  });

  it('holds dispatch while held and unsent response bytes exceed maxPendingResponseBytes, until the output drains', async () => {
    const { handler, answer, pending } = deferredHandler();
    const { connection, transport, source } = setup(handler, { limits: { maxPendingResponseBytes: 10 } });
    transport.unsent = 11;
    receive(connection, source, 'a');
    expect(pending.size).toBe(0);
    expect(transport.events).toEqual(['pause']);
    transport.unsent = 0;
    connection.outputDrained();
    expect([...pending.keys()]).toEqual(['a']);
    await answer('a');
    expect(transport.written).toEqual(['re:a']);
  });

  it('keeps completed responses while the transport refuses writes, and writes them on the next drain', async () => {
    const { handler, answer } = deferredHandler();
    const { connection, transport, source } = setup(handler);
    transport.writable = false;
    receive(connection, source, 'a');
    await answer('a');
    expect(transport.written).toEqual([]);
    expect(connection.heldBytes).toBe(4);
    transport.writable = true;
    connection.outputDrained();
    expect(transport.written).toEqual(['re:a']);
    expect(connection.heldBytes).toBe(0);
  });

  it('on beginStop dispatches nothing new, drops buffered frames, and finishes once the requests in flight are answered', async () => {
    const { handler, answer, pending } = deferredHandler();
    const { connection, transport, source, closedCount } = setup(handler, { limits: { maxInFlightRequests: 1 } });
    receive(connection, source, 'a', 'b');
    connection.beginStop();
    expect(source.bufferedBytes).toBe(0);
    expect(connection.accepting).toBe(false);
    receive(connection, source, 'c');
    expect(transport.events).not.toContain('finish');
    await answer('a');
    expect([...pending.keys()]).toEqual([]);
    expect(transport.written).toEqual(['re:a']);
    expect(transport.events.at(-1)).toBe('finish');
    expect(connection.closed).toBe(true);
    expect(closedCount()).toBe(1);
  });

  it('after the peer ends, answers the complete frames it sent and then finishes', async () => {
    const { handler, answer } = deferredHandler();
    const { connection, transport, source } = setup(handler);
    receive(connection, source, 'a', 'b');
    connection.peerEnded();
    await answer('a');
    expect(transport.events).not.toContain('finish');
    await answer('b');
    expect(transport.written).toEqual(['re:a', 're:b']);
    expect(transport.events.at(-1)).toBe('finish');
  });

  it('logs a truncated frame left behind by a peer that ended, then finishes', () => {
    const decoder = new FrameDecoder(LIMITS.socketRequestMaxBytes);
    const { connection, transport, logs } = setup(() => Buffer.from('x'), { source: decoder });
    decoder.push(Buffer.from([0, 0, 0, 9, 1, 2]));
    connection.inputArrived();
    connection.peerEnded();
    expect(logs.some((line) => line.level === 'warn' && line.fields.reason === 'truncated frame')).toBe(true);
    expect(transport.events.at(-1)).toBe('finish');
  });

  it('closes with invalid-frame when a size prefix is above socket.request.max.bytes, naming the limit', () => {
    const decoder = new FrameDecoder(LIMITS.socketRequestMaxBytes);
    const { connection, transport } = setup(() => Buffer.from('x'), { source: decoder });
    decoder.push(Buffer.from([0, 0, 0x10, 0]));
    connection.inputArrived();
    expect(transport.closedWith).toEqual({ cause: 'invalid-frame', reason: 'frame size 4096 exceeds socket.request.max.bytes 1024' });
    expect(connection.closed).toBe(true);
  });

  it('closes with refused and the reason when the handler refuses the connection', () => {
    const { connection, transport, source } = setup((_frame, context) => {
      context.close('cannot parse request header');
      return null;
    });
    receive(connection, source, 'a', 'b');
    expect(transport.closedWith).toEqual({ cause: 'refused', reason: 'cannot parse request header' });
    expect(connection.inFlightRequests).toBe(0);
  });

  it('treats a throwing handler as a bug: logged at error with the peer, closed with handler-failed, later answers dropped', async () => {
    const { handler, answer } = deferredHandler();
    let calls = 0;
    const { connection, transport, source, logs, closedCount } = setup((frame, context) => {
      calls++;
      if (frame.toString() === 'boom') throw new Error('bug');
      return handler(frame, context);
    });
    receive(connection, source, 'a', 'boom', 'c');
    expect(calls).toBe(2);
    expect(transport.closedWith?.cause).toBe('handler-failed');
    expect(logs.some((line) => line.level === 'error' && line.fields.event === 'request.failed' && line.fields.peer === '127.0.0.1:5000')).toBe(true);
    await answer('a');
    expect(transport.written).toEqual([]);
    expect(closedCount()).toBe(1);
  });

  it('treats a response that is not bytes as a bug', () => {
    const { connection, transport, source } = setup(() => 'not bytes' as unknown as Buffer);
    receive(connection, source, 'a');
    expect(transport.closedWith?.cause).toBe('handler-failed');
  });

  it('cuts off a connection holding more than maxBufferedBytes as overloaded', () => {
    const { connection, transport, source } = setup(() => new Promise<null>(() => {}), {
      limits: { maxInFlightRequests: 1, maxBufferedBytes: 7 },
    });
    receive(connection, source, 'aaaa');
    receive(connection, source, 'bbbb');
    expect(transport.closedWith).toBeNull();
    expect(connection.heldBytes).toBe(4);
    receive(connection, source, 'cccc');
    expect(transport.closedWith?.cause).toBe('overloaded');
    expect(transport.closedWith?.reason).toContain('the peer is not reading');
  });

  it('writes a synchronous answer given inside dispatch in order, in one corked batch per pump pass', () => {
    const { connection, transport, source } = setup((frame) => Buffer.from(`re:${frame.toString()}`));
    receive(connection, source, 'a', 'b', 'c');
    expect(transport.written).toEqual(['re:a', 're:b', 're:c']);
    expect(transport.events.filter((event) => event === 'cork').length).toBeGreaterThan(0);
    expect(connection.inFlightRequests).toBe(0);
  });

  it('runs none of the requests still queued when the connection closes, and writes nothing for the one running', async () => {
    const { handler, answer, pending } = deferredHandler();
    const { connection, transport, source } = setup(handler, { limits: { maxInFlightRequests: 1 } });
    receive(connection, source, 'a', 'b', 'c');
    expect([...pending.keys()]).toEqual(['a']);
    transport.connection.transportClosed(); // the peer went away
    await answer('a');
    expect([...pending.keys()]).toEqual([]);
    expect(transport.written).toEqual([]);
    expect(source.bufferedBytes).toBe(0);
  });

  it('runs none of the requests left for a deferred turn by connection.max.dispatch.ms.per.turn once the connection closed', () => {
    const deferred: (() => void)[] = [];
    let nowMs = 0;
    const clock = { monotonicMs: () => nowMs, defer: (task: () => void) => deferred.push(task) };
    const ran: string[] = [];
    const handler: RequestHandler = (frame) => {
      ran.push(frame.toString('utf8'));
      nowMs += 100; // each request spends the whole budget
      return Buffer.from('ok');
    };
    const { connection, transport, source } = setup(handler, { limits: { dispatchBudget: { maxMs: 50, clock } } });
    receive(connection, source, 'a', 'b', 'c');
    expect(ran).toEqual(['a']);
    transport.connection.transportClosed();
    for (const task of deferred.splice(0)) task();
    expect(ran).toEqual(['a']);
  });
});
