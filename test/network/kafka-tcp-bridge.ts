/**
 * Test helper: a RequestHandler that forwards each frame to a running broker over TCP (one TCP
 * connection per gateway connection, Kafka framing, responses matched in order), so gateway tests
 * run against a real broker's dispatcher without reaching into startBroker. Produce with acks=0
 * expects no response, as the broker sends none.
 */
import { connect, type Socket } from 'node:net';
import type { ConnectionContext, RequestHandler, ResponseBytes } from '../../host/network/network-types.js';
import { decodeRequestHeader } from '../../host/protocol/headers.js';
import { decodeProduceRequest } from '../../host/protocol/generated/produce.js';
import { Reader } from '../../host/protocol/reader.js';

interface Waiting {
  resolve(response: ResponseBytes | null): void;
  reject(error: Error): void;
}

class Upstream {
  private readonly socket: Socket;
  private readonly waiting: Waiting[] = [];
  private buffered = Buffer.alloc(0);
  private readonly ready: Promise<void>;

  constructor(port: number, onClose: () => void) {
    this.socket = connect({ host: '127.0.0.1', port });
    this.ready = new Promise((resolve, reject) => {
      this.socket.once('connect', () => resolve());
      this.socket.once('error', reject);
    });
    this.ready.catch(() => undefined);
    this.socket.on('error', () => {});
    this.socket.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      while (this.buffered.length >= 4 && this.buffered.length >= 4 + this.buffered.readInt32BE(0)) {
        const size = this.buffered.readInt32BE(0);
        const frame = this.buffered.subarray(4, 4 + size);
        this.buffered = this.buffered.subarray(4 + size);
        this.waiting.shift()?.resolve(frame);
      }
    });
    this.socket.on('close', () => {
      for (const waiter of this.waiting.splice(0)) waiter.reject(new Error('broker closed the bridged connection'));
      onClose();
    });
  }

  async forward(frame: Buffer): Promise<ResponseBytes | null> {
    await this.ready;
    const prefix = Buffer.alloc(4);
    prefix.writeInt32BE(frame.length, 0);
    const expectsResponse = !isAcksZeroProduce(frame);
    const response = expectsResponse
      ? new Promise<ResponseBytes | null>((resolve, reject) => this.waiting.push({ resolve, reject }))
      : Promise.resolve(null);
    this.socket.write(Buffer.concat([prefix, frame]));
    return response;
  }

  close(): void {
    this.socket.destroy();
  }
}

function isAcksZeroProduce(frame: Buffer): boolean {
  if (frame.length < 4 || frame.readInt16BE(0) !== 0) return false;
  const reader = new Reader(frame);
  const header = decodeRequestHeader(reader);
  const request = decodeProduceRequest(reader, header.apiVersion);
  return reader.error === null && request.acks === 0;
}

/** A handler bridging to the broker on 127.0.0.1:`port`; `close()` drops every upstream connection. */
export function tcpBridgeHandler(port: number): RequestHandler & { close(): void } {
  const upstreams = new Map<ConnectionContext, Upstream>();
  const handler = ((frame: Buffer, connection: ConnectionContext) => {
    let upstream = upstreams.get(connection);
    if (upstream === undefined) {
      upstream = new Upstream(port, () => {
        upstreams.delete(connection);
        if (!connection.closed) connection.close('the broker closed the connection');
      });
      upstreams.set(connection, upstream);
    }
    return upstream.forward(frame);
  }) as RequestHandler & { close(): void };
  handler.close = () => {
    for (const upstream of upstreams.values()) upstream.close();
    upstreams.clear();
  };
  return handler;
}
