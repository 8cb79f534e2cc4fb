/**
 * The loopback TCP baseline: one socket pair between two Node processes on 127.0.0.1. The sink
 * counts bytes and answers one byte when it has them all; the sender writes `bytes` in
 * `chunkBytes` writes, honouring back-pressure, and times first write → the sink's answer.
 * This is the ceiling for anything a Node broker does over one connection on this machine.
 */
import { connect, createServer } from 'node:net';
import type { LoadResult } from './load-common.js';

/** Listens on a free port, prints `{"port":N}`, and serves one connection of `bytes` bytes. */
export async function runTcpSink(spec: { bytes: number }): Promise<void> {
  const server = createServer((socket) => {
    let received = 0;
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received >= spec.bytes) {
        socket.end(Buffer.of(1));
        server.close();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`);
  await new Promise((resolve) => server.once('close', resolve));
}

export async function runTcpSend(spec: { port: number; bytes: number; chunkBytes: number }): Promise<LoadResult> {
  const chunk = Buffer.alloc(spec.chunkBytes, 0x61);
  const socket = connect({ host: '127.0.0.1', port: spec.port });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const answered = new Promise<void>((resolve, reject) => {
    socket.once('data', () => resolve());
    socket.once('error', reject);
  });
  const startedAtMs = performance.now();
  let sent = 0;
  while (sent < spec.bytes) {
    const size = Math.min(chunk.length, spec.bytes - sent);
    sent += size;
    if (!socket.write(size === chunk.length ? chunk : chunk.subarray(0, size))) {
      await new Promise((resolve) => socket.once('drain', resolve));
    }
  }
  await answered;
  const elapsedMs = performance.now() - startedAtMs;
  socket.destroy();
  return { records: 0, bytes: spec.bytes, elapsedMs };
}
