/**
 * What variant B's handoff costs per 1 MiB batch, measured in-process (medians of many
 * repetitions, so they hold up on a busy machine better than end-to-end rates): the copy of the
 * stamped bytes out of the (non-shared) WebAssembly memory into a SharedArrayBuffer, the write
 * it replaces on the loop (fs.writeSync into the page cache), and a wake-up round trip to a
 * worker by postMessage and by Atomics.notify/Atomics.wait.
 */
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

export interface HandoffCosts {
  copyMiBUs: number;
  writeSyncMiBUs: number;
  postMessageRoundTripUs: number;
  atomicsRoundTripUs: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}

const PING_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const control = new Int32Array(workerData);
parentPort.on('message', (m) => {
  if (m === 'atomics') {
    for (;;) {
      Atomics.wait(control, 0, 0);
      if (Atomics.load(control, 0) === 2) break;
      Atomics.store(control, 0, 0);
      Atomics.store(control, 1, 1);
      Atomics.notify(control, 1);
    }
    return;
  }
  parentPort.postMessage(m);
});
`;

/** Runs the measurements (about a second). */
export async function measureHandoffCosts(repetitions = 200): Promise<HandoffCosts> {
  const MiB = 1 << 20;
  const memory = new WebAssembly.Memory({ initial: 32, maximum: 32 });
  const source = Buffer.from(memory.buffer, 4096, MiB).fill(7);
  const ring = new Uint8Array(new SharedArrayBuffer(8 * MiB));
  const copies: number[] = [];
  for (let i = 0; i < repetitions; i++) {
    const start = performance.now();
    ring.set(source, (i % 8) * MiB);
    copies.push((performance.now() - start) * 1000);
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'tributary-handoff-'));
  const fd = openSync(path.join(dir, 'segment.log'), 'w');
  const writes: number[] = [];
  try {
    for (let i = 0; i < Math.min(repetitions, 64); i++) {
      const start = performance.now();
      writeSync(fd, source, 0, MiB, i * MiB);
      writes.push((performance.now() - start) * 1000);
    }
  } finally {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
  const control = new Int32Array(new SharedArrayBuffer(8));
  const worker = new Worker(PING_WORKER, { eval: true, workerData: control.buffer });
  const messages: number[] = [];
  for (let i = 0; i < repetitions; i++) {
    const start = performance.now();
    await new Promise<void>((resolve) => {
      worker.once('message', () => resolve());
      worker.postMessage(i);
    });
    messages.push((performance.now() - start) * 1000);
  }
  worker.postMessage('atomics');
  await new Promise((resolve) => setTimeout(resolve, 50));
  const atomics: number[] = [];
  for (let i = 0; i < repetitions; i++) {
    const start = performance.now();
    Atomics.store(control, 1, 0);
    Atomics.store(control, 0, 1);
    Atomics.notify(control, 0);
    Atomics.wait(control, 1, 0, 1000);
    atomics.push((performance.now() - start) * 1000);
  }
  Atomics.store(control, 0, 2);
  Atomics.notify(control, 0);
  await worker.terminate();
  return { copyMiBUs: median(copies), writeSyncMiBUs: median(writes), postMessageRoundTripUs: median(messages), atomicsRoundTripUs: median(atomics) };
}
