import { describe, expect, it } from 'vitest';
import { JsonSession } from '../../host/gateway/json-session.js';
import type { JsonSocket } from '../../host/network/json-socket.js';
import type { NetworkLogger } from '../../host/network/network-types.js';

const quiet: NetworkLogger = { debug() {}, info() {}, warn() {}, error() {} };

function fakeSocket(): JsonSocket & { sent: Record<string, unknown>[] } {
  const sent: Record<string, unknown>[] = [];
  return {
    id: 1,
    peer: 'test',
    closed: false,
    bufferedAmount: 0,
    sent,
    send(text: string) {
      sent.push(JSON.parse(text) as Record<string, unknown>);
    },
    end() {},
  };
}

describe('JsonSession', () => {
  it('answers SESSION_CLOSING once the gateway began stopping it, and is not busy without work', async () => {
    const socket = fakeSocket();
    const session = new JsonSession(socket, { handler: () => null, listenerName: 'PLAINTEXT', logger: quiet });
    expect(session.isBusy()).toBe(false);
    await session.stop();
    session.onMessage('{"id":9,"op":"listTopics"}');
    expect(socket.sent).toEqual([{ id: 9, op: 'error', error: { code: 'SESSION_CLOSING', kafkaErrorCode: null, message: 'the broker is shutting down' } }]);
  });

  it('echoes string ids and answers invalid JSON with a null id (replies are matched by id, not order)', async () => {
    const socket = fakeSocket();
    const session = new JsonSession(socket, { handler: () => null, listenerName: 'PLAINTEXT', logger: quiet });
    session.onMessage('{"id":"abc","op":"credit","n":1}');
    session.onMessage('{"op":');
    await new Promise((resolve) => setImmediate(resolve));
    expect(socket.sent).toHaveLength(2);
    expect(socket.sent).toEqual(expect.arrayContaining([
      { id: 'abc', op: 'error', error: { code: 'NOT_SUBSCRIBED', kafkaErrorCode: null, message: 'credit needs an active subscription' } },
      { id: null, op: 'error', error: expect.objectContaining({ code: 'INVALID_JSON', kafkaErrorCode: null }) },
    ]));
  });
});
