/**
 * The systems a user would pick instead, run on the same machine with their own fastest
 * clients: NATS JetStream (nats-server, file storage) and Redis Streams (redis-server, AOF).
 * Each is found on PATH; when missing, its rows are skipped with a printed note.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, ServerProcess } from './server-process.js';

/** `nats-server --version` / `redis-server --version`, or null when not installed. */
export function serverVersion(command: 'nats-server' | 'redis-server'): string | null {
  try {
    const text = execFileSync(command, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
    return command === 'redis-server' ? `redis-server ${/v=(\S+)/.exec(text)?.[1] ?? text}` : text;
  } catch {
    return null;
  }
}

/** A peer server with a temp data directory, removed by close(). */
export class PeerServer {
  private constructor(readonly process: ServerProcess, readonly port: number, private readonly dataDir: string) {}

  /**
   * nats-server with JetStream on a temp store_dir. 2.9.x writes each message to the OS (page
   * cache) before the ack and fsyncs in the background; it has no fsync-per-message setting
   * (`sync_interval: always` appeared in 2.10).
   */
  static async startNats(): Promise<PeerServer> {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'tributary-bench-nats-'));
    const port = await freePort();
    const server = new ServerProcess('nats-server', 'nats-server', ['-js', '-sd', dataDir, '-a', '127.0.0.1', '-p', String(port)]);
    return PeerServer.ready(server, port, dataDir);
  }

  /**
   * `nodes` nats-server processes with JetStream clustered on 127.0.0.1 (each its own store_dir,
   * server name and cluster port, routes to every other; cluster name `bench`), for streams with
   * num_replicas 3 (R3: a PubAck once a majority of the replicas stored the message). Resolves
   * when every client port listens; JetStream's meta leader may still be elected after that (the
   * stream creation retries).
   */
  static async startNatsCluster(nodes = 3): Promise<PeerServer[]> {
    const ports = await Promise.all(Array.from({ length: nodes }, async () => ({ client: await freePort(), cluster: await freePort() })));
    const routes = ports.map((p) => `nats://127.0.0.1:${p.cluster}`).join(',');
    const started = await Promise.allSettled(ports.map((p, i) => {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'tributary-bench-nats-'));
      const server = new ServerProcess(`nats-server-${i + 1}`, 'nats-server', [
        '-js', '-sd', dataDir, '-a', '127.0.0.1', '-p', String(p.client), '-n', `bench-${i + 1}`,
        '--cluster_name', 'bench', '--cluster', `nats://127.0.0.1:${p.cluster}`, '--routes', routes,
      ]);
      return PeerServer.ready(server, p.client, dataDir);
    }));
    const servers = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    const failed = started.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed !== undefined) {
      await Promise.all(servers.map((server) => server.close()));
      throw failed.reason;
    }
    return servers;
  }

  /** redis-server with AOF on (`appendfsync` everysec or always), no RDB snapshots. */
  static async startRedis(appendfsync: 'everysec' | 'always'): Promise<PeerServer> {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'tributary-bench-redis-'));
    const port = await freePort();
    const server = new ServerProcess('redis-server', 'redis-server', [
      '--port', String(port), '--bind', '127.0.0.1', '--dir', dataDir, '--save', '',
      '--appendonly', 'yes', '--appendfsync', appendfsync, '--protected-mode', 'no', '--daemonize', 'no',
    ]);
    return PeerServer.ready(server, port, dataDir);
  }

  private static async ready(server: ServerProcess, port: number, dataDir: string): Promise<PeerServer> {
    const peer = new PeerServer(server, port, dataDir);
    try {
      await Promise.race([waitForPort(port, 20_000), server.failOnExit()]);
    } catch (error) {
      await peer.close();
      throw error;
    }
    return peer;
  }

  async close(): Promise<void> {
    await this.process.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const connected = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port });
      socket.once('connect', () => { socket.destroy(); resolve(true); });
      socket.once('error', () => resolve(false));
    });
    if (connected) return;
    if (performance.now() > deadline) throw new Error(`nothing listening on 127.0.0.1:${port} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
