/**
 * One prototype "broker thread": the real SocketServer on 127.0.0.1 (port 0) with the prototype
 * handler over a PartitionStore. Variant A and B run one in the main thread; variant C runs one
 * per request worker.
 */
import { SocketServer } from '../../../host/network/socket-server.js';
import type { PartitionStore, TopicSpec } from './partition-store.js';
import { createProtoHandler, ServiceTimes, type ProtoNode } from './proto-handler.js';

const quietLogger = { debug: () => {}, info: () => {}, warn: () => {}, error: (fields: object, message: string) => process.stderr.write(`${message} ${JSON.stringify(fields)}\n`) };

export class ProtoServer {
  readonly times = new ServiceTimes();
  readonly nodes: ProtoNode[] = [];
  private readonly server: SocketServer;

  constructor(readonly store: PartitionStore, topics: readonly TopicSpec[]) {
    this.server = new SocketServer({
      host: '127.0.0.1', port: 0, logger: quietLogger,
      handler: createProtoHandler({ store, topics, nodes: this.nodes, times: this.times }),
    });
  }

  /** Listens; returns the bound port. */
  async start(): Promise<number> {
    return (await this.server.start()).port;
  }

  async stop(): Promise<void> {
    await this.server.stop();
    this.store.close();
  }
}
