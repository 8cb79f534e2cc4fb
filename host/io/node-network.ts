/**
 * The real {@link Network}: TCP connections through `node:net`, with Nagle off (Kafka's
 * `socket.connection.setup` sends small request frames that must not wait for an ACK); and the
 * client-facing TCP listener the SocketServer accepts on ({@link createTcpListener}), so that
 * `node:net` is called from here only (network/ names its Socket type).
 */
import * as net from 'node:net';
import type { Network, NetworkConnection, NetworkConnectionHandlers } from './environment.js';

/** A `net.Socket` behind the {@link NetworkConnection} interface. */
class NodeConnection implements NetworkConnection {
  constructor(private readonly socket: net.Socket) {}

  get remoteAddress(): string {
    return this.socket.remoteAddress ?? '';
  }

  get remotePort(): number {
    return this.socket.remotePort ?? 0;
  }

  write(data: Uint8Array, callback?: (error?: Error | null) => void): boolean {
    return this.socket.write(data, callback);
  }

  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  end(): void {
    this.socket.end();
  }

  destroy(error?: Error): void {
    this.socket.destroy(error);
  }
}

/** Outgoing TCP connections (node-to-node traffic: controller quorum, replica fetchers). */
export class NodeNetwork implements Network {
  /**
   * Connects to `host:port`; the promise settles once the connection is established or failed
   * (ECONNREFUSED, EHOSTUNREACH, ...). After that, failures arrive once through `onClose`.
   */
  connect(host: string, port: number, handlers: NetworkConnectionHandlers): Promise<NetworkConnection> {
    return new Promise((resolve, reject) => {
      const socket = net.createConnection({ host, port, noDelay: true });
      let connected = false;
      let closeError: Error | undefined;
      socket.once('connect', () => {
        connected = true;
        socket.on('data', (data: Buffer) => handlers.onData(data));
        socket.on('drain', () => handlers.onDrain?.());
        resolve(new NodeConnection(socket));
      });
      socket.on('error', (error: Error) => {
        if (connected) closeError = error;
        else reject(error);
      });
      socket.once('close', () => {
        if (connected) handlers.onClose(closeError);
      });
    });
  }
}

/**
 * A TCP listener for the client-facing SocketServer: half-open connections allowed (a client
 * that ends its side still gets its answers), sockets flowing from the start. Not yet listening:
 * the caller binds it with `listen` and receives each accepted socket through `onSocket`.
 */
export function createTcpListener(onSocket: (socket: net.Socket) => void): net.Server {
  return net.createServer({ allowHalfOpen: true, pauseOnConnect: false }, onSocket);
}
