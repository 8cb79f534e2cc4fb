import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchReadBuffers } from '../../host/log/read-buffer-pool.js';
import { SocketServer, type RequestHandler } from '../../host/network/socket-server.js';

// A fetch-like handler: each request (int32 correlationId + int32 fill byte) is answered with a
// small header chunk and a 256 KiB body read into the broker's fetch pool and filled with the
// request's byte, as LogSegment.read fills pooled buffers from the segment file. If the TCP
// connection gave a buffer back to the pool before the socket had written it, a later request
// would refill it while it still waits in the socket's queue and the slow reader would see
// another request's bytes.

const BODY_BYTES = 256 * 1024;
const REQUESTS = 48;

const servers: SocketServer[] = [];
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(servers.splice(0).map((server) => server.stop(1000)));
});

const fetchLikeHandler: RequestHandler = (frame) => {
  const correlationId = frame.readInt32BE(0);
  const fill = frame.readInt32BE(4);
  const body = fetchReadBuffers.acquire(BODY_BYTES);
  body.fill(fill, 0, BODY_BYTES);
  const header = Buffer.alloc(4);
  header.writeInt32BE(correlationId, 0);
  // Answer on a later turn, as a Fetch that went through the purgatory would.
  return new Promise((resolve) => setImmediate(() => resolve([header, body.subarray(0, BODY_BYTES)])));
};

function request(correlationId: number, fill: number): Buffer {
  const frame = Buffer.alloc(12);
  frame.writeInt32BE(8, 0);
  frame.writeInt32BE(correlationId, 4);
  frame.writeInt32BE(fill, 8);
  return frame;
}

/** Reads `count` size-prefixed frames, pausing the socket now and then (a slow consumer). */
function readFramesSlowly(socket: Socket, count: number): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const frames: Buffer[] = [];
    let pending = Buffer.alloc(0);
    let chunks = 0;
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
        const size = pending.readInt32BE(0);
        frames.push(Buffer.from(pending.subarray(4, 4 + size)));
        pending = pending.subarray(4 + size);
      }
      if (frames.length >= count) {
        resolve(frames);
        return;
      }
      if (++chunks % 8 === 0) {
        socket.pause();
        setTimeout(() => socket.resume(), 2);
      }
    });
    socket.once('error', reject);
    socket.once('close', () => reject(new Error(`closed after ${frames.length} of ${count} frames`)));
  });
}

describe('fetch buffers given back by the TCP connection', () => {
  it('a slow reader of pipelined fetches gets each response\'s own bytes while the pool reuses buffers', async () => {
    // Small in-flight and pending-bytes bounds make the connection dispatch later requests only
    // as earlier responses leave, so later reads take buffers that earlier responses gave back.
    const server = new SocketServer({
      host: '127.0.0.1',
      port: 0,
      handler: fetchLikeHandler,
      maxInFlightRequestsPerConnection: 4,
      maxPendingResponseBytesPerConnection: 3 * BODY_BYTES,
    });
    servers.push(server);
    const { port } = await server.start();
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = connect({ host: '127.0.0.1', port }, () => resolve(s));
      s.once('error', reject);
    });
    sockets.push(socket);
    socket.pause();
    const reusedBefore = fetchReadBuffers.reused;
    const frames = readFramesSlowly(socket, REQUESTS);
    const requests: Buffer[] = [];
    for (let i = 0; i < REQUESTS; i++) requests.push(request(i, 1 + (i % 250)));
    socket.write(Buffer.concat(requests));
    // Let the server fill the socket buffers before the reader starts.
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.resume();
    const received = await frames;
    expect(received).toHaveLength(REQUESTS);
    for (let i = 0; i < REQUESTS; i++) {
      const frame = received[i]!;
      expect(frame.readInt32BE(0)).toBe(i);
      expect(frame.length).toBe(4 + BODY_BYTES);
      const fill = 1 + (i % 250);
      const body = frame.subarray(4);
      const wrong = body.findIndex((byte) => byte !== fill);
      expect(wrong, `response ${i} holds another response's bytes at ${wrong}`).toBe(-1);
    }
    expect(fetchReadBuffers.reused - reusedBefore).toBeGreaterThan(0);
  });
});
