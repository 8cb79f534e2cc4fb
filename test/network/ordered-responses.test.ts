/**
 * The ordered-response pipeline on its own, with a fake owner; the TCP and WebSocket connections
 * that use it are covered end to end by socket-server.test.ts and websocket-gateway.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { ConnectionContext, RequestHandler, ResponseBytes } from '../../host/network/network-types.js';
import { OrderedResponses } from '../../host/network/ordered-responses.js';

interface Harness {
  responses: OrderedResponses;
  written: string[];
  failures: unknown[];
  context: { closed: boolean };
  /** How many more responses canWrite() lets through (Infinity = no backpressure). */
  budget: { left: number };
}

function harness(handler: RequestHandler): Harness {
  const written: string[] = [];
  const failures: unknown[] = [];
  const budget = { left: Infinity };
  const context = { id: 1, peer: 'test:1', listenerName: 'PLAINTEXT', closed: false, close: () => {} } satisfies ConnectionContext;
  const responses: OrderedResponses = new OrderedResponses(handler, context, {
    onCompleted: () => responses.flush(),
    onHandlerFailed: (error) => failures.push(error),
    canWrite: () => budget.left-- > 0,
    write: (response: ResponseBytes, bytes: number) => {
      const text = Buffer.isBuffer(response) ? response.toString() : Buffer.concat(response as readonly Buffer[]).toString();
      expect(text.length).toBe(bytes);
      written.push(text);
    },
  });
  return { responses, written, failures, context, budget };
}

function deferred(): { promise: Promise<ResponseBytes | null>; resolve: (value: ResponseBytes | null) => void } {
  let resolve!: (value: ResponseBytes | null) => void;
  const promise = new Promise<ResponseBytes | null>((r) => { resolve = r; });
  return { promise, resolve };
}

describe('OrderedResponses', () => {
  it('writes responses in request order when handlers complete out of order, skipping null ones', async () => {
    const pending = [deferred(), deferred(), deferred()];
    let next = 0;
    const h = harness(() => pending[next++]!.promise);
    for (let i = 0; i < 3; i++) h.responses.dispatch(Buffer.from(`r${i}`));
    pending[2]!.resolve([Buffer.from('th'), Buffer.from('ree')]);
    pending[1]!.resolve(null);
    await Promise.resolve();
    expect(h.written).toEqual([]);
    expect(h.responses.heldResponseBytes).toBe(5);
    pending[0]!.resolve(Buffer.from('one'));
    await new Promise((r) => setImmediate(r));
    expect(h.written).toEqual(['one', 'three']);
    expect(h.responses.inFlightRequests).toBe(0);
    expect(h.responses.heldResponseBytes).toBe(0);
  });

  it('holds completed responses while the owner refuses to write, and sends them on the next flush', () => {
    const h = harness((frame) => Buffer.from(`ok:${frame.toString()}`));
    h.budget.left = 1;
    h.responses.dispatch(Buffer.from('a'));
    h.responses.dispatch(Buffer.from('b'));
    expect(h.written).toEqual(['ok:a']);
    expect(h.responses.headCompleted).toBe(true);
    expect(h.responses.heldResponseBytes).toBe(4);
    h.budget.left = Infinity;
    expect(h.responses.flush()).toBe(1);
    expect(h.written).toEqual(['ok:a', 'ok:b']);
  });

  it('reports a handler that throws, rejects or returns a non-buffer as a failure', async () => {
    const results: Array<() => ResponseBytes | null | Promise<ResponseBytes | null>> = [
      () => { throw new Error('thrown'); },
      () => Promise.reject(new Error('rejected')),
      () => 'text' as unknown as Buffer,
      () => [Buffer.from('a'), 7] as unknown as Buffer[],
    ];
    let next = 0;
    const h = harness(() => results[next++]!());
    for (let i = 0; i < results.length; i++) h.responses.dispatch(Buffer.from('x'));
    await new Promise((r) => setImmediate(r));
    expect(h.failures.map((e) => (e as Error).message)).toEqual([
      'thrown',
      'request handler returned string, expected Buffer, Buffer[] or null',
      'request handler returned [object Array], expected Buffer, Buffer[] or null',
      'rejected',
    ]);
    expect(h.written).toEqual([]);
  });

  it('ignores completions and failures once the connection is closed', async () => {
    const pending = [deferred()];
    const h = harness(() => pending[0]!.promise);
    h.responses.dispatch(Buffer.from('a'));
    h.context.closed = true;
    h.responses.clear();
    pending[0]!.resolve(Buffer.from('late'));
    await new Promise((r) => setImmediate(r));
    expect(h.written).toEqual([]);
    expect(h.failures).toEqual([]);
    expect(h.responses.inFlightRequests).toBe(0);
  });
});
