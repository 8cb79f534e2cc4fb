import type { ConnectionContext } from '../../host/network/network-types.js';

/** A connection for calling the dispatcher directly: `closedWith` records the reason it was closed with, or null. */
export function fakeConnection(): ConnectionContext & { closedWith: string | null } {
  const connection = {
    id: 1, peer: '127.0.0.1:5555', listenerName: 'PLAINTEXT', closed: false, closedWith: null as string | null,
    close(reason: string) {
      connection.closedWith = reason;
      connection.closed = true;
    },
  };
  return connection;
}
