/**
 * Several BrokerServers of one controller quorum in this process, under ONE manual clock and ONE
 * seeded random source (real disk, loopback TCP): time moves only while {@link QuorumServers.advanceUntil}
 * waits, 5 ms of manual time per real millisecond.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { libraryBrokerConfig } from '../../host/broker.js';
import { NodeDisk } from '../../host/io/disk.js';
import { manualEnvironment, type ManualEnvironment } from '../../host/io/manual-environment.js';
import { NodeNetwork } from '../../host/io/node-network.js';
import { createLogger } from '../../host/observability/logger.js';
import { BrokerServer } from '../../host/server/broker-server.js';
import { getCore } from '../../host/wasm/core.js';
import { findFreePort } from '../helpers/broker-process.js';
import { RawKafkaClient } from '../integration/raw-kafka-client.js';

export interface QuorumNodeSpec {
  readonly id: number;
  /** process.roles; default broker,controller. */
  readonly roles?: string;
  /** This node's own config overrides (e.g. broker.rack), on top of the shared ones. */
  readonly overrides?: Record<string, string | number>;
}

export class QuorumServers {
  readonly servers: BrokerServer[] = [];
  private readonly dirs: string[] = [];
  private readonly clients: RawKafkaClient[] = [];

  private constructor(readonly environment: ManualEnvironment) {}

  /** Builds (not starts) one server per node; the controller-role nodes are the voters. */
  static async create(nodes: readonly QuorumNodeSpec[], seed = 9, overrides: Record<string, string | number> = {}): Promise<QuorumServers> {
    const cluster = new QuorumServers(manualEnvironment({ seed, disk: new NodeDisk(), network: new NodeNetwork() }));
    const ports = new Map<number, number>();
    const controllers = nodes.filter((node) => (node.roles ?? 'broker,controller').includes('controller'));
    for (const node of controllers) ports.set(node.id, await findFreePort());
    const voters = controllers.map((node) => `${node.id}@127.0.0.1:${ports.get(node.id)}`).join(',');
    for (const node of nodes) {
      const dir = mkdtempSync(join(tmpdir(), `tributary-quorum-${node.id}-`));
      cluster.dirs.push(dir);
      const roles = node.roles ?? 'broker,controller';
      const listeners = [
        ...(roles.includes('broker') ? ['PLAINTEXT://127.0.0.1:0'] : []),
        ...(roles.includes('controller') ? [`CONTROLLER://127.0.0.1:${ports.get(node.id)}`] : []),
      ];
      const config = libraryBrokerConfig({
        logDirs: [dir],
        listeners,
        overrides: { 'node.id': node.id, 'process.roles': roles, 'controller.listener.names': 'CONTROLLER', 'controller.quorum.voters': voters, ...overrides, ...node.overrides },
      });
      cluster.servers.push(new BrokerServer(config, cluster.environment, { core: getCore(), logger: createLogger({ level: 'silent' }) }));
    }
    return cluster;
  }

  /** The log directory of the server at `index`. */
  dirOf(index: number): string {
    return this.dirs[index]!;
  }

  /** Shuts the server at `index` down (cleanly). */
  stop(index: number): Promise<void> {
    return this.advanceUntil(this.servers[index]!.shutdown());
  }

  /** Starts the server at `index` again, a new BrokerServer on the same config and directory. */
  async restart(index: number): Promise<BrokerServer> {
    const old = this.servers[index]!;
    await this.advanceUntil(old.shutdown());
    const server = new BrokerServer(old.config, this.environment, { core: getCore(), logger: createLogger({ level: 'silent' }) });
    this.servers[index] = server;
    await this.advanceUntil(server.startup());
    return server;
  }

  /** Starts every server. */
  start(): Promise<void[]> {
    return this.advanceUntil(Promise.all(this.servers.map((server) => server.startup())));
  }

  /** The server whose controller is active, once there is one. */
  active(): Promise<BrokerServer> {
    return this.until(() => this.servers.find((server) => server.controller.isActive));
  }

  /** A raw client connected to `server`'s first client listener (closed by {@link close}). */
  async connect(server: BrokerServer): Promise<RawKafkaClient> {
    const client = await RawKafkaClient.connect(server.listeners[0]!.port);
    this.clients.push(client);
    return client;
  }

  /**
   * Advances the manual clock 5 ms per real millisecond until `promise` settles (the real pause
   * lets loopback TCP deliver between steps).
   */
  async advanceUntil<T>(promise: Promise<T>, limitMs = 60_000): Promise<T> {
    let settled = false;
    let outcome: { value?: T; error?: unknown } = {};
    promise.then((value) => { settled = true; outcome = { value }; }, (error: unknown) => { settled = true; outcome = { error }; });
    for (let advanced = 0; !settled; advanced += 5) {
      if (advanced > limitMs) throw new Error(`not settled after ${limitMs} ms of manual time`);
      this.environment.time.advance(5);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    if ('error' in outcome && outcome.error !== undefined) throw outcome.error;
    return outcome.value as T;
  }

  /** Advances time until `probe` returns something other than undefined. */
  until<T>(probe: () => T | undefined): Promise<T> {
    return this.advanceUntil((async () => {
      for (;;) {
        const value = probe();
        if (value !== undefined) return value;
        await new Promise((resolve) => setImmediate(resolve));
      }
    })());
  }

  /** Closes the clients, shuts every server down and removes the directories. */
  async close(): Promise<void> {
    for (const client of this.clients.splice(0)) client.socket.destroy();
    await this.advanceUntil(Promise.all(this.servers.splice(0).map((server) => server.shutdown())));
    for (const dir of this.dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  }
}
