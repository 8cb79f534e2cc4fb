/**
 * A network-model prototype broker as its own process (so its CPU time is read apart from the
 * load generator's): `node server-main.js <A|B|C> <dataDir> [requestThreads]`.
 *
 *   A  one event loop: socket → frame → WebAssembly validate/stamp → fs.writeSync (today's broker)
 *   B  A, but the writes/fsyncs of the stamped bytes go to one storage worker (worker-disk.ts)
 *   G  A with group commit of fsyncs on the loop (group-commit-disk.ts): the control for B's W5 case
 *   C  `requestThreads` request workers, each a whole A for its share of the partitions; the main
 *      thread only starts them
 *
 * Protocol on stdio: prints one JSON line `{"port":N}` when ready (the bootstrap port); reads
 * lines: `times` → one JSON line of service times since the last `times` (ms per request, plus
 * fsync requested/done counters for B and G, the handoff copy and blocking waits for B); `stop` → stops cleanly and exits 0.
 */
import { createInterface } from 'node:readline';
import { Worker } from 'node:worker_threads';
import { BENCH_TOPICS, PartitionStore } from './partition-store.js';
import type { ProtoNode } from './proto-handler.js';
import { ProtoServer } from './proto-server.js';
import { GroupCommitDisk } from './group-commit-disk.js';
import { WorkerDisk } from './worker-disk.js';

type Times = { produce: number[]; fetch: number[] };

const [mode, dir, threadsArg] = process.argv.slice(2);
if ((mode !== 'A' && mode !== 'B' && mode !== 'C' && mode !== 'G') || dir === undefined) {
  process.stderr.write('usage: server-main.js <A|B|C|G> <dataDir> [requestThreads]\n');
  process.exit(2);
}

let takeTimes: () => Promise<Times & Record<string, unknown>>;
let stop: () => Promise<void>;
let port: number;

if (mode === 'A' || mode === 'B' || mode === 'G') {
  const workerDisk = mode === 'B' ? new WorkerDisk(new URL('./storage-worker.js', import.meta.url)) : undefined;
  const groupDisk = mode === 'G' ? new GroupCommitDisk() : undefined;
  const disk = workerDisk ?? groupDisk;
  const store = new PartitionStore(dir, BENCH_TOPICS, () => true, disk, disk ?? null);
  const server = new ProtoServer(store, BENCH_TOPICS);
  port = await server.start();
  server.nodes.push({ nodeId: 0, host: '127.0.0.1', port });
  takeTimes = async () => ({
    ...server.times.take(),
    ...(disk === undefined ? {} : { fsyncRequests: disk.fsyncRequests, fsyncsDone: disk.fsyncsDone }),
    ...(workerDisk === undefined ? {} : { copiedBytes: workerDisk.copiedBytes, blockingWaits: workerDisk.blockingWaits }),
  });
  stop = async () => {
    await server.stop();
    await workerDisk?.stop();
  };
} else {
  const count = Number(threadsArg ?? 2);
  const workers = Array.from({ length: count }, (_, nodeId) => new Worker(new URL('./request-worker.js', import.meta.url), { workerData: { nodeId, nodeCount: count, dir } }));
  const next = (worker: Worker): Promise<unknown> => new Promise((resolve, reject) => {
    const onMessage = (message: unknown): void => {
      worker.off('error', onError);
      resolve(message);
    };
    const onError = (error: Error): void => {
      worker.off('message', onMessage);
      reject(error);
    };
    worker.once('message', onMessage);
    worker.once('error', onError);
  });
  const ports = await Promise.all(workers.map(async (worker) => ((await next(worker)) as { port: number }).port));
  const nodes: ProtoNode[] = ports.map((p, nodeId) => ({ nodeId, host: '127.0.0.1', port: p }));
  await Promise.all(workers.map((worker) => { const ready = next(worker); worker.postMessage({ nodes }); return ready; }));
  port = ports[0]!;
  takeTimes = async () => {
    const all = await Promise.all(workers.map((worker) => { const reply = next(worker); worker.postMessage('times'); return reply; }));
    const merged: Times = { produce: [], fetch: [] };
    for (const { times } of all as { times: Times }[]) {
      merged.produce.push(...times.produce);
      merged.fetch.push(...times.fetch);
    }
    return merged;
  };
  stop = async () => {
    await Promise.all(workers.map((worker) => { const stopped = next(worker); worker.postMessage('stop'); return stopped; }));
    await Promise.all(workers.map((worker) => worker.terminate()));
  };
}

process.stdout.write(`${JSON.stringify({ port })}\n`);
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (line === 'times') {
    void takeTimes().then((times) => process.stdout.write(`${JSON.stringify(times)}\n`));
  } else if (line === 'stop') {
    lines.close();
    void stop().then(() => process.exit(0));
  }
});
