/**
 * Variant B's storage thread (worker side of worker-disk.ts): waits on the submitted counter,
 * runs each described write in order on the shared file descriptors (fsyncs grouped, see below),
 * publishes the last completed sequence number (Atomics) and posts it to the event loop.
 */
import { fsyncSync, writeSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import {
  CONTROL_COMPLETED, CONTROL_FAILED, CONTROL_FSYNCS, CONTROL_STOP, CONTROL_SUBMITTED, DESCRIPTOR_FIELDS, DESCRIPTOR_SLOTS,
  FIELD_FD, FIELD_LENGTH, FIELD_OP, FIELD_POSITION, FIELD_RING_OFFSET, OP_FSYNC, OP_WRITE, type StorageWorkerData,
} from './worker-disk.js';

const data = workerData as StorageWorkerData;
const control = new Int32Array(data.control);
const descriptors = new Float64Array(data.descriptors);
const ring = new Uint8Array(data.ring);
let done = 0;
let fsyncs = 0;

function publish(seq: number): void {
  done = seq;
  Atomics.store(control, CONTROL_COMPLETED, done);
  Atomics.notify(control, CONTROL_COMPLETED);
  // One message per publication: a produce waiting on this write is answered at once, not after
  // the whole burst (the client may keep the burst going as long as it likes).
  parentPort!.postMessage(done);
}

for (;;) {
  const submitted = Atomics.load(control, CONTROL_SUBMITTED);
  if (submitted === done) {
    if (Atomics.load(control, CONTROL_STOP) !== 0) break;
    Atomics.wait(control, CONTROL_SUBMITTED, submitted);
    continue;
  }
  // Group commit: fsyncs requested in this window are deferred to its end and run once per file;
  // nothing at or after the first deferred fsync is reported done before they have run, so an
  // acknowledgement still implies the fsync of its bytes (flush.messages=1 semantics).
  const dirty = new Set<number>();
  try {
    for (let seq = done + 1; seq <= submitted; seq++) {
      const base = (seq % DESCRIPTOR_SLOTS) * DESCRIPTOR_FIELDS;
      const op = descriptors[base + FIELD_OP]!;
      const fd = descriptors[base + FIELD_FD]!;
      if (op === OP_WRITE) {
        const start = descriptors[base + FIELD_RING_OFFSET]!;
        const length = descriptors[base + FIELD_LENGTH]!;
        let position = descriptors[base + FIELD_POSITION]!;
        let written = 0;
        while (written < length) {
          const n = writeSync(fd, ring, start + written, length - written, position);
          written += n;
          position += n;
        }
      } else if (op === OP_FSYNC) {
        dirty.add(fd);
      }
      if (dirty.size === 0) publish(seq);
    }
    for (const fd of dirty) fsyncSync(fd);
  } catch (error) {
    Atomics.store(control, CONTROL_FAILED, 1);
    throw error;
  }
  fsyncs += dirty.size;
  Atomics.store(control, CONTROL_FSYNCS, fsyncs);
  if (done !== submitted) publish(submitted);
}
