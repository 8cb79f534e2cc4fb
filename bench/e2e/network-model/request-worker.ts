/**
 * Variant C's request thread: its own event loop, its own WebAssembly core (getCore() is per
 * isolate) and its own SocketServer, leading the partitions p with p % nodeCount === nodeId.
 * Node 20's worker_threads cannot be handed an accepted socket (only child processes can), so
 * "connections distributed over workers" is done the Kafka way: Metadata names every thread as a
 * broker with its own port and the client connects to the leader of each partition.
 *
 * Messages: → {port} once listening; ← {nodes} (every thread's address); ← 'times' → {times};
 * ← 'stop' → 'stopped'.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { BENCH_TOPICS, PartitionStore } from './partition-store.js';
import type { ProtoNode } from './proto-handler.js';
import { ProtoServer } from './proto-server.js';

const { nodeId, nodeCount, dir } = workerData as { nodeId: number; nodeCount: number; dir: string };
const store = new PartitionStore(dir, BENCH_TOPICS, (partition) => partition % nodeCount === nodeId, undefined, null);
const server = new ProtoServer(store, BENCH_TOPICS);
const port = await server.start();
parentPort!.on('message', (message: { nodes: ProtoNode[] } | 'times' | 'stop') => {
  if (message === 'times') {
    parentPort!.postMessage({ times: server.times.take() });
  } else if (message === 'stop') {
    void server.stop().then(() => parentPort!.postMessage('stopped'));
  } else {
    server.nodes.push(...message.nodes);
    parentPort!.postMessage('ready');
  }
});
parentPort!.postMessage({ port });
