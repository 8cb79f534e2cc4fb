/**
 * A TCP forwarder standing for one network link between two nodes (or a client and a node), which
 * a test can cut and heal, as a network partition would.
 *
 * - `cut('reset')`: existing connections are destroyed and new ones are accepted then destroyed at
 *   once (the peer sees ECONNRESET / a closed connection quickly).
 * - `cut('blackhole')`: connections stay open but every byte in either direction is dropped and new
 *   connections are accepted and then ignored, as when packets are lost on a real partition: the
 *   peer notices only through its own timeouts. Healing destroys the blackholed connections so both
 *   ends start over.
 * - `heal()`: forwarding resumes for new connections.
 *
 * Bytes are forwarded as they arrive, unchanged; the proxy knows nothing of Kafka's framing.
 */
import { createServer, Socket, type Server } from 'node:net';

export type CutMode = 'reset' | 'blackhole';

export class LinkProxy {
  private mode: CutMode | null = null;
  private readonly pairs = new Set<{ client: Socket; upstream: Socket | null }>();
  /** Connections accepted in total (diagnostics). */
  accepted = 0;

  private constructor(private readonly server: Server, readonly port: number, private target: { host: string; port: number }) {}

  /** Starts a proxy on 127.0.0.1 (a random free port, or `port`) forwarding to `target`. */
  static async start(target: { host: string; port: number }, port = 0): Promise<LinkProxy> {
    let proxy: LinkProxy | null = null;
    const server = createServer((client) => proxy!.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    proxy = new LinkProxy(server, (server.address() as { port: number }).port, target);
    return proxy;
  }

  /** Points new connections at `target` (a launcher binds its proxies before choosing the nodes' ports). */
  retarget(target: { host: string; port: number }): void {
    this.target = target;
  }

  /** True while the link is cut. */
  get isCut(): boolean {
    return this.mode !== null;
  }

  /** Cuts the link (see the file header for the two modes). */
  cut(mode: CutMode = 'reset'): void {
    this.mode = mode;
    if (mode === 'reset') this.destroyAll();
  }

  /** Restores the link; connections opened while blackholed are closed so both ends reconnect. */
  heal(): void {
    if (this.mode === 'blackhole') this.destroyAll();
    this.mode = null;
  }

  /** Stops listening and closes every connection. */
  async close(): Promise<void> {
    this.destroyAll();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    this.accepted += 1;
    client.on('error', () => {});
    if (this.mode === 'reset') {
      client.destroy();
      return;
    }
    const pair: { client: Socket; upstream: Socket | null } = { client, upstream: null };
    this.pairs.add(pair);
    client.once('close', () => {
      this.pairs.delete(pair);
      pair.upstream?.destroy();
    });
    if (this.mode === 'blackhole') {
      client.on('data', () => {});
      return;
    }
    const upstream = new Socket();
    pair.upstream = upstream;
    upstream.on('error', () => client.destroy());
    upstream.once('close', () => client.destroy());
    upstream.connect(this.target.port, this.target.host);
    upstream.setNoDelay(true);
    client.setNoDelay(true);
    client.on('data', (data) => {
      if (this.mode === null) upstream.write(data);
    });
    upstream.on('data', (data) => {
      if (this.mode === null) client.write(data);
    });
  }

  private destroyAll(): void {
    for (const pair of this.pairs) {
      pair.client.destroy();
      pair.upstream?.destroy();
    }
    this.pairs.clear();
  }
}
