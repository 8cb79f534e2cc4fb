/**
 * The fuzzer of a campaign in its own worker thread, so generating and sending frames never
 * delays the well-behaved client's event loop in the main thread (its latencies are the broker's).
 *
 * workerData: `FuzzWorkerData`. Messages in: 'pause' | 'resume' | 'stop'. Messages out:
 * `{ type: 'progress', counts, lastIndex }` every 500 ms and `{ type: 'done', counts, lastIndex }`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { FuzzFrames, type ServedApi } from './fuzz-frames.js';
import { FuzzLanes, type LaneOptions } from './fuzz-lanes.js';

export interface FuzzWorkerData extends LaneOptions {
  readonly seed: number;
  readonly frames: number;
  readonly served: readonly ServedApi[];
  /** Start paused (the campaign opens the first fuzz window). */
  readonly paused: boolean;
}

const data = workerData as FuzzWorkerData;
const lanes = new FuzzLanes(new FuzzFrames(data.seed, data.served), data, 0, data.frames);
if (data.paused) lanes.pause();
parentPort!.on('message', (message: string) => {
  if (message === 'pause') lanes.pause();
  else if (message === 'resume') lanes.resume();
  else if (message === 'stop') lanes.stop();
});
const progress = setInterval(() => parentPort!.postMessage({ type: 'progress', counts: lanes.counts, lastIndex: lanes.lastIndex }), 500);
void lanes.run().then((counts) => {
  clearInterval(progress);
  parentPort!.postMessage({ type: 'done', counts, lastIndex: lanes.lastIndex });
});
