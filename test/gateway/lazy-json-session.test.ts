import { describe, expect, it } from 'vitest';
import { createLazyJsonSessionFactory } from '../../host/gateway/lazy-json-session.js';
import type { JsonSessionHandlers, JsonSocket } from '../../host/network/json-socket.js';
import type { NetworkLogger } from '../../host/network/network-types.js';

const quiet: NetworkLogger = { debug() {}, info() {}, warn() {}, error() {} };
const options = { handler: () => null, listenerName: 'PLAINTEXT', logger: quiet };

function fakeSocket(id: number): JsonSocket & { ended: [number, string][] } {
  const ended: [number, string][] = [];
  return { id, peer: `test#${id}`, closed: false, bufferedAmount: 0, ended, send() {}, end: (code, reason) => void ended.push([code, reason]) };
}

/** A session that records what it was called with. */
function recordingSession(calls: string[], socket: JsonSocket): JsonSessionHandlers {
  return {
    onMessage: (text) => void calls.push(`${socket.id}:message:${text}`),
    onDrain: () => void calls.push(`${socket.id}:drain`),
    onClose: () => void calls.push(`${socket.id}:close`),
    isBusy: () => true,
    stop: async () => void calls.push(`${socket.id}:stop`),
  };
}

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void } {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe('lazy /json sessions', () => {
  it('import the session module once, for the first socket, and replay what arrived while it loaded in order', async () => {
    const calls: string[] = [];
    const module = deferred<(socket: JsonSocket) => JsonSessionHandlers>();
    let imports = 0;
    const factory = createLazyJsonSessionFactory(options, () => (imports++, module.promise));
    const first = factory(fakeSocket(1));
    const second = factory(fakeSocket(2));
    first.onMessage('a');
    first.onDrain();
    second.onMessage('x');
    first.onMessage('b');
    expect(first.isBusy()).toBe(true);
    expect(calls).toEqual([]);
    module.resolve((socket) => recordingSession(calls, socket));
    await first.stop();
    second.onMessage('y');
    expect(imports).toBe(1);
    expect(calls).toEqual(['1:message:a', '1:drain', '1:message:b', '2:message:x', '1:stop', '2:message:y']);
  });

  it('never make a session for a socket closed before the module loaded', async () => {
    const calls: string[] = [];
    const module = deferred<(socket: JsonSocket) => JsonSessionHandlers>();
    const factory = createLazyJsonSessionFactory(options, () => module.promise);
    const session = factory(fakeSocket(1));
    session.onMessage('a');
    session.onClose();
    expect(session.isBusy()).toBe(false);
    module.resolve((socket) => recordingSession(calls, socket));
    await session.stop();
    expect(calls).toEqual([]);
  });

  it('close the waiting sockets with 1011 when the module cannot be loaded', async () => {
    const errors: unknown[] = [];
    const factory = createLazyJsonSessionFactory({ ...options, logger: { ...quiet, error: (fields) => void errors.push(fields) } }, () => Promise.reject(new Error('broken install')));
    const socket = fakeSocket(1);
    const session = factory(socket);
    session.onMessage('a');
    await session.stop();
    expect(socket.ended).toEqual([[1011, 'JSON sessions unavailable']]);
    expect(errors).toHaveLength(1);
    expect(session.isBusy()).toBe(false);
  });
});
