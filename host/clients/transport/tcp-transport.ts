/**
 * The TCP transport (Node only: the one file of host/clients/ that imports node:net). Kafka
 * framing on a byte stream: every frame is preceded by its int32 big-endian size.
 */
import { Socket } from 'node:net';
import { ConnectionError } from '../errors.js';
import { formatBrokerAddress, type BrokerAddress, type Transport, type TransportHandlers, type TransportOptions } from './transport.js';

/** socket.write buffering above which `send` returns false, bytes. */
const HIGH_WATER_MARK_BYTES = 1024 * 1024;

export class TcpTransport implements Transport {
  private socket: Socket | null = null;
  private handlers: TransportHandlers | null = null;
  private closed = false;
  /** Received bytes not yet forming a whole frame. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(private readonly address: BrokerAddress, private readonly options: TransportOptions) {}

  get bufferedBytes(): number {
    return this.socket?.writableLength ?? 0;
  }

  connect(handlers: TransportHandlers): Promise<void> {
    if (this.socket !== null) throw new Error('TcpTransport.connect called twice');
    this.handlers = handlers;
    const peer = formatBrokerAddress(this.address);
    return new Promise((resolve, reject) => {
      const socket = new Socket();
      this.socket = socket;
      socket.setNoDelay(true);
      let connected = false;
      const timer = setTimeout(() => {
        socket.destroy(new ConnectionError(`connecting to ${peer} timed out after ${this.options.connectTimeoutMs} ms`));
      }, this.options.connectTimeoutMs);
      socket.once('connect', () => {
        connected = true;
        clearTimeout(timer);
        resolve();
      });
      socket.on('data', (chunk: Buffer) => this.onData(chunk));
      socket.on('error', (error) => {
        clearTimeout(timer);
        const wrapped = error instanceof ConnectionError ? error : new ConnectionError(`connection to ${peer} failed: ${error.message}`, { cause: error });
        if (!connected) reject(wrapped);
        this.finish(wrapped);
      });
      socket.on('close', () => {
        clearTimeout(timer);
        if (!connected) reject(new ConnectionError(`connection to ${peer} closed before it was established`));
        this.finish(this.closed ? undefined : new ConnectionError(`connection to ${peer} closed by the broker`));
      });
      socket.connect({ host: this.address.host, port: this.address.port });
    });
  }

  send(frame: Uint8Array): boolean {
    const socket = this.socket;
    if (socket === null || this.closed || socket.destroyed) return false;
    const size = Buffer.allocUnsafe(4);
    size.writeInt32BE(frame.length, 0);
    socket.cork();
    socket.write(size);
    socket.write(frame);
    socket.uncork();
    return socket.writableLength < HIGH_WATER_MARK_BYTES;
  }

  close(): Promise<void> {
    const socket = this.socket;
    if (socket === null || socket.destroyed) {
      this.finish(undefined);
      return Promise.resolve();
    }
    this.closed = true;
    return new Promise((resolve) => {
      socket.once('close', () => resolve());
      socket.end();
      // A peer that never acknowledges the FIN must not hold close() forever.
      setTimeout(() => socket.destroy(), 1000).unref();
    });
  }

  private finish(error: Error | undefined): void {
    const handlers = this.handlers;
    if (handlers === null) return;
    this.handlers = null;
    this.closed = true;
    this.socket?.destroy();
    handlers.onClose(error);
  }

  private onData(chunk: Buffer): void {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    while (this.pendingBytes >= 4 && this.handlers !== null) {
      let head = this.pending[0]!;
      if (head.length < 4) {
        head = concatChunks(this.pending, this.pendingBytes);
        this.pending = [head];
      }
      const size = head.readInt32BE(0);
      if (size < 0 || size > this.options.maxFrameBytes) {
        this.finish(new ConnectionError(`broker ${formatBrokerAddress(this.address)} sent a frame of ${size} bytes (limit ${this.options.maxFrameBytes})`));
        return;
      }
      if (this.pendingBytes < 4 + size) return;
      if (head.length < 4 + size) {
        head = concatChunks(this.pending, this.pendingBytes);
        this.pending = [head];
      }
      const frame = head.subarray(4, 4 + size);
      const rest = head.subarray(4 + size);
      this.pending[0] = rest;
      if (rest.length === 0) this.pending.shift();
      this.pendingBytes -= 4 + size;
      this.handlers.onFrame(frame);
    }
  }
}

/**
 * Joins received chunks into one buffer. Not Buffer.concat: on Node 20 it is several times
 * slower for megabyte frames (measured 1 MiB of 64 KiB chunks: 2.5-14 ms vs 0.9-1.9 ms).
 */
function concatChunks(chunks: Buffer[], totalBytes: number): Buffer {
  const joined = Buffer.allocUnsafe(totalBytes);
  let at = 0;
  for (const chunk of chunks) {
    joined.set(chunk, at);
    at += chunk.length;
  }
  return joined;
}

/** TransportFactory for TCP. */
export function tcpTransportFactory(address: BrokerAddress, options: TransportOptions): Transport {
  return new TcpTransport(address, options);
}
