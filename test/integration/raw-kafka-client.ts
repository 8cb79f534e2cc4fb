/**
 * A raw Kafka protocol client for integration tests: frames requests with the generated encoders
 * and decodes responses with the generated decoders, so every byte on the wire is the broker's
 * own answer. Responses are matched FIFO, as kafka-python and Java do (a stray response fails).
 */
import { Socket, connect } from 'node:net';
import { decodeResponseHeader, encodeRequestHeader } from '../../host/protocol/headers.js';
import { Reader } from '../../host/protocol/reader.js';
import { Writer } from '../../host/protocol/writer.js';

export type Encoder<T> = (w: Writer, version: number, message: T) => void;
export type Decoder<T> = (r: Reader, version: number) => T;

interface Pending {
  resolve: (frame: Buffer) => void;
  reject: (error: Error) => void;
}

export class RawKafkaClient {
  private buffered: Buffer = Buffer.alloc(0);
  private readonly pending: Pending[] = [];
  private nextCorrelationId = 1;
  private closedError: Error | null = null;
  /** Resolves when the broker closes the connection (or it errors). */
  readonly closed: Promise<void>;

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.closed = new Promise((resolve) => {
      const finish = (error?: Error): void => {
        this.closedError ??= error ?? new Error('connection closed by the broker');
        for (const p of this.pending.splice(0)) p.reject(this.closedError);
        resolve();
      };
      socket.on('close', () => finish());
      socket.on('error', (error) => finish(error));
    });
  }

  static connect(port: number, host = '127.0.0.1'): Promise<RawKafkaClient> {
    return new Promise((resolve, reject) => {
      const socket = connect({ port, host });
      socket.once('connect', () => resolve(new RawKafkaClient(socket)));
      socket.once('error', reject);
    });
  }

  /** True once the broker closed the connection. */
  get isClosed(): boolean {
    return this.closedError !== null;
  }

  /** Writes raw bytes (garbage, hand-made frames). */
  writeRaw(bytes: Uint8Array): void {
    this.socket.write(bytes);
  }

  /** Frames and sends a request; returns its correlation id without waiting. */
  sendRequest<Req>(apiKey: number, version: number, encode: Encoder<Req>, request: Req, clientId: string | null = 'raw-test'): number {
    const correlationId = this.nextCorrelationId++;
    const w = new Writer();
    const start = w.reserveInt32();
    encodeRequestHeader(w, { apiKey, apiVersion: version, correlationId, clientId });
    encode(w, version, request);
    w.patchInt32(start, w.length - start - 4);
    this.socket.write(Buffer.from(w.toBuffer()));
    return correlationId;
  }

  /** The next response frame (header + body), in arrival order. */
  nextFrame(): Promise<Buffer> {
    if (this.closedError !== null) return Promise.reject(this.closedError);
    return new Promise((resolve, reject) => {
      this.pending.push({ resolve, reject });
      this.drain();
    });
  }

  /** Sends a request and decodes its response; asserts the correlation id matches (FIFO). */
  async request<Req, Res>(
    apiKey: number, version: number, encode: Encoder<Req>, decode: Decoder<Res>, request: Req,
  ): Promise<Res> {
    const correlationId = this.sendRequest(apiKey, version, encode, request);
    return this.readResponse(apiKey, version, decode, correlationId);
  }

  /** Reads the next frame as the response of `apiKey`/`version` with `correlationId`. */
  async readResponse<Res>(apiKey: number, version: number, decode: Decoder<Res>, correlationId: number): Promise<Res> {
    const frame = await this.nextFrame();
    const r = new Reader(frame);
    const header = decodeResponseHeader(r, apiKey, version);
    if (header.correlationId !== correlationId) {
      throw new Error(`correlation id ${header.correlationId} does not match the request's ${correlationId}`);
    }
    const response = decode(r, version);
    if (r.error !== null) throw new Error(`response does not decode: ${r.error}`);
    if (r.remaining !== 0) throw new Error(`${r.remaining} trailing bytes after the response`);
    return response;
  }

  close(): void {
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    this.drain();
  }

  private drain(): void {
    while (this.pending.length > 0 && this.buffered.length >= 4) {
      const size = this.buffered.readInt32BE(0);
      if (this.buffered.length < 4 + size) return;
      const frame = Buffer.from(this.buffered.subarray(4, 4 + size));
      this.buffered = this.buffered.subarray(4 + size);
      this.pending.shift()!.resolve(frame);
    }
  }
}
