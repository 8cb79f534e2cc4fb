/**
 * Sends fuzz frames to a broker over `lanes` concurrent TCP connections. Each lane writes one
 * frame and waits until a whole response frame came back ('answered'), the broker closed the
 * connection ('closed', the usual answer to a malformed frame), or `answerWaitMs` passed
 * ('unanswered': an acks=0 Produce, a long poll, a frame whose size prefix claims more bytes than
 * were sent; the lane drops that connection). A lane whose connection was closed or dropped opens
 * a new one for its next frame, so the broker also sees a steady churn of connections. A frame
 * whose size prefix lies ('frame-lie') always ends its connection after it.
 *
 * Frames are taken in index order across lanes (frame i is `frames.frameAt(i)`); `rate` caps the
 * frames per second over all lanes; `pause()` holds every lane before its next frame.
 */
import { connect, type Socket } from 'node:net';
import type { FuzzFrames } from './fuzz-frames.js';

export type Outcome = 'answered' | 'closed' | 'unanswered' | 'refused';

export interface LaneOptions {
  readonly host: string;
  readonly port: number;
  readonly lanes: number;
  readonly answerWaitMs: number;
  /** Frames per second over all lanes; 0 for as fast as the broker answers. */
  readonly rate: number;
}

export interface LaneCounts {
  sent: number;
  answered: number;
  closed: number;
  unanswered: number;
  refused: number;
  /** Connections opened. */
  connections: number;
}

/** One lane's connection with a count of the whole response frames received on it. */
class LaneConnection {
  responses = 0;
  ended = false;
  private pending: Buffer = Buffer.alloc(0);
  private waiter: (() => void) | null = null;

  constructor(readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
      while (this.pending.length >= 4) {
        const size = this.pending.readInt32BE(0);
        if (size < 0 || this.pending.length < 4 + size) break;
        this.pending = this.pending.subarray(4 + size);
        this.responses++;
      }
      this.wake();
    });
    const end = (): void => {
      this.ended = true;
      this.wake();
    };
    socket.on('close', end);
    socket.on('error', end);
  }

  /** Resolves at the next change (a response, the end). */
  changed(): Promise<void> {
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.();
  }
}

export class FuzzLanes {
  readonly counts: LaneCounts = { sent: 0, answered: 0, closed: 0, unanswered: 0, refused: 0, connections: 0 };
  /** The index of the last frame handed to a lane (for the crash report). */
  lastIndex = -1;
  private next: number;
  private gate: Promise<void> | null = null;
  private openGate: (() => void) | null = null;
  private stopped = false;
  private readonly startedAtMs = performance.now();

  constructor(private readonly frames: FuzzFrames, private readonly options: LaneOptions, private readonly from: number, private readonly to: number) {
    this.next = from;
  }

  /** Runs every lane until frames [from, to) are sent or `stop()`; resolves with the counts. */
  async run(): Promise<LaneCounts> {
    await Promise.all(Array.from({ length: this.options.lanes }, () => this.lane()));
    return this.counts;
  }

  pause(): void {
    if (this.gate !== null) return;
    this.gate = new Promise((resolve) => {
      this.openGate = resolve;
    });
  }

  resume(): void {
    const open = this.openGate;
    this.gate = null;
    this.openGate = null;
    open?.();
  }

  stop(): void {
    this.stopped = true;
    this.resume();
  }

  private async lane(): Promise<void> {
    let connection: LaneConnection | null = null;
    while (!this.stopped && this.next < this.to) {
      if (this.gate !== null) {
        connection?.socket.destroy();
        connection = null;
        await this.gate;
        continue;
      }
      if (this.options.rate > 0) await this.pace();
      if (this.next >= this.to || this.stopped) break;
      const index = this.next++;
      this.lastIndex = index;
      const frame = this.frames.frameAt(index);
      if (connection === null || connection.ended) connection = await this.open();
      if (connection === null) {
        this.counts.refused++;
        continue;
      }
      const outcome = await this.exchange(connection, frame.bytes);
      this.counts.sent++;
      this.counts[outcome]++;
      if (outcome !== 'answered' || frame.kind === 'frame-lie') {
        connection.socket.destroy();
        connection = null;
      }
    }
    connection?.socket.destroy();
  }

  /** Waits until sending one more frame keeps the overall rate at or below `rate`. */
  private async pace(): Promise<void> {
    const dueAtMs = this.startedAtMs + ((this.next - this.from) * 1000) / this.options.rate;
    const waitMs = dueAtMs - performance.now();
    if (waitMs > 1) await new Promise((resolve) => setTimeout(resolve, waitMs));
  }

  private open(): Promise<LaneConnection | null> {
    return new Promise((resolve) => {
      const socket = connect({ host: this.options.host, port: this.options.port });
      const timer = setTimeout(() => fail(), 5_000);
      const fail = (): void => {
        clearTimeout(timer);
        socket.destroy();
        resolve(null);
      };
      socket.once('error', fail);
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.off('error', fail);
        this.counts.connections++;
        resolve(new LaneConnection(socket));
      });
    });
  }

  private async exchange(connection: LaneConnection, bytes: Buffer): Promise<Exclude<Outcome, 'refused'>> {
    const wanted = connection.responses + 1;
    connection.socket.write(bytes);
    const deadline = performance.now() + this.options.answerWaitMs;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.options.answerWaitMs);
    });
    try {
      for (;;) {
        if (connection.responses >= wanted) return 'answered';
        if (connection.ended) return 'closed';
        if (performance.now() >= deadline) return 'unanswered';
        await Promise.race([connection.changed(), timeout]);
      }
    } finally {
      clearTimeout(timer);
    }
  }
}
