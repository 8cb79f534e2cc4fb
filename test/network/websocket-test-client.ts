/**
 * A tiny WebSocket client for tests, on node:net (Node 20 has no global WebSocket without a flag,
 * and uWebSockets.js is server-only). RFC 6455: the opening handshake (section 4.1), masked
 * client frames (5.3), fragmented messages (5.4), ping/pong (5.5.2-3) and the close handshake
 * (5.5.1, 7.1). It also writes raw bytes and unmasked or reserved frames so abuse tests can send
 * what a real client never would, and it can stop reading (`pauseReading`) like a stuck browser tab.
 */
import { createHash, randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';

export const OPCODE_CONTINUATION = 0x0;
export const OPCODE_TEXT = 0x1;
export const OPCODE_BINARY = 0x2;
export const OPCODE_CLOSE = 0x8;
export const OPCODE_PING = 0x9;
export const OPCODE_PONG = 0xa;

/** RFC 6455 section 1.3: the GUID appended to Sec-WebSocket-Key. */
const HANDSHAKE_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

export interface WebSocketMessage {
  opcode: number;
  data: Buffer;
}

export interface CloseInfo {
  /** Close code from the server's close frame; 1006 when the TCP connection ended without one. */
  code: number;
  reason: string;
}

export interface FrameOptions {
  fin?: boolean;
  /** Client frames must be masked (RFC 6455 5.3); false sends a protocol violation. */
  mask?: boolean;
  /** RSV1-3 bits (a violation without a negotiated extension). */
  rsv?: number;
}

/** The HTTP answer to an upgrade that was refused (no 101). */
export class UpgradeRefused extends Error {
  constructor(readonly status: number, readonly body: string) {
    super(`upgrade refused with HTTP ${status}: ${body}`);
  }
}

export class TestWebSocket {
  readonly messages: WebSocketMessage[] = [];
  /** Resolves with the close frame (or 1006) once the TCP connection has ended. */
  readonly closed: Promise<CloseInfo>;
  closeInfo: CloseInfo | null = null;
  private buffered: Buffer;
  private fragments: Buffer[] = [];
  private fragmentOpcode = 0;
  private waiters: Array<() => void> = [];
  private receivedClose: CloseInfo | null = null;

  private constructor(readonly socket: Socket, leftover: Buffer) {
    this.buffered = leftover;
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', () => {});
    this.closed = new Promise((resolve) =>
      socket.on('close', () => {
        this.closeInfo = this.receivedClose ?? { code: 1006, reason: '' };
        this.notify();
        resolve(this.closeInfo);
      }),
    );
    if (leftover.length > 0) queueMicrotask(() => this.parse());
  }

  /**
   * Connects and upgrades `ws://host:port{path}` (with an `Origin` header when `origin` is given,
   * as a browser page would).
   * @throws UpgradeRefused when the server answers anything but 101
   */
  static open(port: number, path: string, options: { host?: string; protocol?: string; origin?: string } = {}): Promise<TestWebSocket> {
    const host = options.host ?? '127.0.0.1';
    const key = randomBytes(16).toString('base64');
    const expectedAccept = createHash('sha1').update(key + HANDSHAKE_GUID).digest('base64');
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port });
      let response = Buffer.alloc(0);
      const onData = (chunk: Buffer): void => {
        response = Buffer.concat([response, chunk]);
        const end = response.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = response.subarray(0, end).toString('latin1');
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
        if (status !== 101) {
          // Let the body arrive (uWS answers small bodies in one write), then report.
          setTimeout(() => {
            socket.off('data', onData);
            socket.destroy();
            reject(new UpgradeRefused(status, response.subarray(end + 4).toString('utf8')));
          }, 20);
          return;
        }
        socket.off('data', onData);
        const accept = /\r\nsec-websocket-accept: *([^\r]+)/i.exec(head)?.[1];
        if (accept !== expectedAccept) {
          socket.destroy();
          reject(new Error(`bad Sec-WebSocket-Accept ${accept}`));
          return;
        }
        resolve(new TestWebSocket(socket, response.subarray(end + 4)));
      };
      socket.on('data', onData);
      socket.once('error', reject);
      socket.once('connect', () => {
        const lines = [
          `GET ${path} HTTP/1.1`,
          `Host: ${host}:${port}`,
          'Upgrade: websocket',
          'Connection: Upgrade',
          `Sec-WebSocket-Key: ${key}`,
          'Sec-WebSocket-Version: 13',
        ];
        if (options.protocol !== undefined) lines.push(`Sec-WebSocket-Protocol: ${options.protocol}`);
        // Browsers always send the page's origin on an upgrade; other clients usually do not.
        if (options.origin !== undefined) lines.push(`Origin: ${options.origin}`);
        socket.write(`${lines.join('\r\n')}\r\n\r\n`);
      });
    });
  }

  /** Encodes one frame (masked unless told otherwise). */
  static encodeFrame(opcode: number, payload: Uint8Array, options: FrameOptions = {}): Buffer {
    const fin = options.fin ?? true;
    const mask = options.mask ?? true;
    const length = payload.length;
    const extended = length < 126 ? 0 : length <= 0xffff ? 2 : 8;
    const header = Buffer.alloc(2 + extended + (mask ? 4 : 0));
    header[0] = (fin ? 0x80 : 0) | ((options.rsv ?? 0) << 4) | opcode;
    const lengthCode = extended === 0 ? length : extended === 2 ? 126 : 127;
    header[1] = (mask ? 0x80 : 0) | lengthCode;
    if (extended === 2) header.writeUInt16BE(length, 2);
    if (extended === 8) header.writeBigUInt64BE(BigInt(length), 2);
    const body = Buffer.from(payload);
    if (mask) {
      const key = randomBytes(4);
      key.copy(header, 2 + extended);
      for (let i = 0; i < body.length; i++) body[i]! ^= key[i & 3]!;
    }
    return Buffer.concat([header, body]);
  }

  sendBinary(payload: Uint8Array): void {
    this.socket.write(TestWebSocket.encodeFrame(OPCODE_BINARY, payload));
  }

  sendText(text: string): void {
    this.socket.write(TestWebSocket.encodeFrame(OPCODE_TEXT, Buffer.from(text, 'utf8')));
  }

  sendJson(value: unknown): void {
    this.sendText(JSON.stringify(value));
  }

  /** Sends several text messages in one TCP write, so the server reads them in one go. */
  sendTextsTogether(texts: string[]): void {
    this.socket.write(Buffer.concat(texts.map((text) => TestWebSocket.encodeFrame(OPCODE_TEXT, Buffer.from(text, 'utf8')))));
  }

  sendFrame(opcode: number, payload: Uint8Array, options: FrameOptions = {}): void {
    this.socket.write(TestWebSocket.encodeFrame(opcode, payload, options));
  }

  /** Writes bytes as they are, e.g. garbage instead of a frame. */
  writeRaw(bytes: Uint8Array): boolean {
    return this.socket.write(bytes);
  }

  /** Sends a close frame (RFC 6455 5.5.1). */
  sendClose(code = 1000, reason = ''): void {
    const payload = Buffer.alloc(2 + Buffer.byteLength(reason));
    payload.writeUInt16BE(code, 0);
    payload.write(reason, 2);
    this.sendFrame(OPCODE_CLOSE, payload);
  }

  /** Stops reading from the socket: the kernel buffers fill and the server sees backpressure. */
  pauseReading(): void {
    this.socket.pause();
  }

  /** Waits for the next data message (text or binary) not yet taken. @throws if the socket closes first */
  async next(): Promise<WebSocketMessage> {
    while (this.messages.length === 0) {
      if (this.closeInfo !== null) throw new Error(`socket closed (${this.closeInfo.code} ${this.closeInfo.reason}) while waiting for a message`);
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    return this.messages.shift()!;
  }

  /** The next message, parsed as JSON. */
  async nextJson(): Promise<Record<string, unknown>> {
    const message = await this.next();
    if (message.opcode !== OPCODE_TEXT) throw new Error(`expected a text message, got opcode ${message.opcode}`);
    return JSON.parse(message.data.toString('utf8')) as Record<string, unknown>;
  }

  /** Waits until `predicate` holds for some message (messages before it are discarded). */
  async nextJsonMatching(predicate: (message: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
    for (;;) {
      const message = await this.nextJson();
      if (predicate(message)) return message;
    }
  }

  destroy(): void {
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    this.parse();
  }

  private parse(): void {
    for (;;) {
      const b = this.buffered;
      if (b.length < 2) return;
      const fin = (b[0]! & 0x80) !== 0;
      const opcode = b[0]! & 0x0f;
      const masked = (b[1]! & 0x80) !== 0;
      let length = b[1]! & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (b.length < 4) return;
        length = b.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (b.length < 10) return;
        length = Number(b.readBigUInt64BE(2));
        offset = 10;
      }
      const maskKey = masked ? b.subarray(offset, offset + 4) : null;
      if (masked) offset += 4;
      if (b.length < offset + length) return;
      const payload = Buffer.from(b.subarray(offset, offset + length));
      if (maskKey !== null) for (let i = 0; i < payload.length; i++) payload[i]! ^= maskKey[i & 3]!;
      this.buffered = b.subarray(offset + length);
      this.onFrame(fin, opcode, payload);
    }
  }

  private onFrame(fin: boolean, opcode: number, payload: Buffer): void {
    if (opcode === OPCODE_PING) {
      if (!this.socket.destroyed) this.sendFrame(OPCODE_PONG, payload);
      return;
    }
    if (opcode === OPCODE_PONG) return;
    if (opcode === OPCODE_CLOSE) {
      this.receivedClose = {
        code: payload.length >= 2 ? payload.readUInt16BE(0) : 1005,
        reason: payload.subarray(2).toString('utf8'),
      };
      if (!this.socket.destroyed) {
        this.socket.write(TestWebSocket.encodeFrame(OPCODE_CLOSE, payload.subarray(0, 2)));
        this.socket.end();
      }
      return;
    }
    if (opcode === OPCODE_CONTINUATION) {
      this.fragments.push(payload);
    } else {
      this.fragments = [payload];
      this.fragmentOpcode = opcode;
    }
    if (!fin) return;
    this.messages.push({ opcode: this.fragmentOpcode, data: Buffer.concat(this.fragments) });
    this.fragments = [];
    this.notify();
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter();
  }
}

/** Polls `condition` until it holds (tests wait for events, never for durations). */
export function waitUntil(condition: () => boolean, pollMs = 5): Promise<void> {
  return new Promise((resolve) => {
    const check = (): void => {
      if (condition()) resolve();
      else setTimeout(check, pollMs);
    };
    check();
  });
}

/** GET `path` over plain HTTP/1.1; resolves with status and body. */
export function httpGet(port: number, path: string, method = 'GET'): Promise<{ status: number; body: string; headers: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.write(`${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
    });
    let response = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      response = Buffer.concat([response, chunk]);
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const text = response.toString('utf8');
      const end = text.indexOf('\r\n\r\n');
      const head = end < 0 ? text : text.slice(0, end);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      let body = end < 0 ? '' : text.slice(end + 4);
      if (/\r\ntransfer-encoding: *chunked/i.test(head)) body = dechunk(body);
      resolve({ status, body, headers: head });
    });
  });
}

function dechunk(body: string): string {
  let out = '';
  let rest = body;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    if (lineEnd < 0) return out;
    const size = parseInt(rest.slice(0, lineEnd), 16);
    if (!(size > 0)) return out;
    out += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
}
