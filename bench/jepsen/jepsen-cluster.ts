/**
 * The cluster the Jepsen-style checker attacks: `n` combined broker+controller processes on
 * 127.0.0.1 (KRaft quick start: `process.roles`, `node.id`, `controller.quorum.voters`), with a
 * {@link LinkProxy} on every network path, so a fault can cut exactly one kind of traffic:
 *
 * ```
 *  clients ──► client proxy j ──► node j  PLAINTEXT   (advertised.listeners PLAINTEXT = proxy j)
 *  node i  ──► controller i→j ──► node j  CONTROLLER  (node i's controller.quorum.voters names the proxy)
 *  node i  ──► replication i→j ─► node j  FROM<i>     (node i's inter.broker.listener.name = FROM<i>;
 *                                                      node j advertises FROM<i> at the proxy i→j)
 * ```
 *
 * Replication is per ordered pair because a broker's replica fetcher looks up the leader's
 * endpoint by its *own* `inter.broker.listener.name` (Kafka's rule): every node registers one
 * listener FROM<i> per node i (its own FROM<j> advertised directly), so the leader j is reached by
 * follower i only through the proxy i→j. Cutting i↔j in both directions partitions exactly that
 * pair's replication, while clients and the controllers still see both.
 *
 * Ports: proxies bind first, then the nodes' ports are picked among the free ones left; logs and
 * data live under one work directory (kept on failure for diagnosis, removed by `close(true)`).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../e2e/server-process.js';
import { LinkProxy, type CutMode } from './link-proxy.js';
import { NodeProcess } from './node-process.js';

const HOST = '127.0.0.1';

/** Fast failure detection, as the replicated-cluster tests use, so a fault is noticed in seconds. */
export const FAST_FAILOVER_CONFIGS: Readonly<Record<string, string | number>> = {
  'controller.quorum.election.timeout.ms': 1000,
  'controller.quorum.fetch.timeout.ms': 2000,
  'broker.session.timeout.ms': 4000,
  'broker.heartbeat.interval.ms': 500,
  'replica.lag.time.max.ms': 4000,
  'replica.fetch.backoff.ms': 200,
  'replica.socket.timeout.ms': 5000,
  'group.initial.rebalance.delay.ms': 0,
};

export interface JepsenClusterOptions {
  /** The CLI entry point of the build under test. */
  readonly cliPath: string;
  /** Working directory for the processes (a build snapshot's root). */
  readonly cwd?: string;
  /** Number of nodes (ids 1..n), default 3. */
  readonly nodes?: number;
  /** Extra configs for every node (after {@link FAST_FAILOVER_CONFIGS}). */
  readonly overrides?: Readonly<Record<string, string | number>>;
  /** Parent of the work directory, default the OS temp directory. */
  readonly workParent?: string;
}

/** One link kind between nodes. */
export type LinkKind = 'controller' | 'replication';

/** A running cluster; see the file header. */
export class JepsenCluster {
  private constructor(
    readonly workDir: string,
    readonly nodes: readonly NodeProcess[],
    private readonly clientProxies: ReadonlyMap<number, LinkProxy>,
    /** `${kind}:${from}->${to}`. */
    private readonly links: ReadonlyMap<string, LinkProxy>,
  ) {}

  /** The `log.dirs` of node `id`. */
  logDir(id: number): string {
    return nodeLogDir(this.workDir, id);
  }

  /** Starts every node and waits until each answers Metadata. @throws Error with the failing node's log tail */
  static async start(options: JepsenClusterOptions): Promise<JepsenCluster> {
    const count = options.nodes ?? 3;
    const ids = Array.from({ length: count }, (_, i) => i + 1);
    const workDir = mkdtempSync(path.join(options.workParent ?? tmpdir(), 'tributary-jepsen-'));
    const placeholder = { host: HOST, port: 1 };
    const clientProxies = new Map<number, LinkProxy>();
    const links = new Map<string, LinkProxy>();
    for (const to of ids) {
      clientProxies.set(to, await LinkProxy.start(placeholder));
      for (const from of ids) {
        if (from === to) continue;
        links.set(`controller:${from}->${to}`, await LinkProxy.start(placeholder));
        links.set(`replication:${from}->${to}`, await LinkProxy.start(placeholder));
      }
    }
    const taken = new Set<number>([...clientProxies.values(), ...links.values()].map((proxy) => proxy.port));
    const fresh = async (): Promise<number> => {
      for (;;) {
        const port = await freePort();
        if (!taken.has(port)) {
          taken.add(port);
          return port;
        }
      }
    };
    const ports = new Map<number, { client: number; controller: number; from: Map<number, number> }>();
    for (const id of ids) {
      const from = new Map<number, number>();
      for (const other of ids) from.set(other, await fresh());
      ports.set(id, { client: await fresh(), controller: await fresh(), from });
    }
    for (const to of ids) {
      clientProxies.get(to)!.retarget({ host: HOST, port: ports.get(to)!.client });
      for (const from of ids) {
        if (from === to) continue;
        links.get(`controller:${from}->${to}`)!.retarget({ host: HOST, port: ports.get(to)!.controller });
        links.get(`replication:${from}->${to}`)!.retarget({ host: HOST, port: ports.get(to)!.from.get(from)! });
      }
    }
    const nodes = ids.map((id) => {
      const own = ports.get(id)!;
      const voters = ids.map((to) => `${to}@${HOST}:${to === id ? own.controller : links.get(`controller:${id}->${to}`)!.port}`).join(',');
      const fromNames = ids.map((from) => `FROM${from}`);
      const listeners = [`PLAINTEXT://${HOST}:${own.client}`, `CONTROLLER://${HOST}:${own.controller}`,
        ...ids.map((from) => `FROM${from}://${HOST}:${own.from.get(from)!}`)];
      const advertised = [`PLAINTEXT://${HOST}:${clientProxies.get(id)!.port}`,
        ...ids.map((from) => `FROM${from}://${HOST}:${from === id ? own.from.get(from)! : links.get(`replication:${from}->${id}`)!.port}`)];
      const dataDir = nodeLogDir(workDir, id);
      mkdirSync(dataDir, { recursive: true });
      return new NodeProcess(id, {
        cliPath: options.cliPath,
        cwd: options.cwd,
        logFile: path.join(workDir, `node-${id}.log`),
        probePort: own.client,
        overrides: {
          'process.roles': 'broker,controller',
          'node.id': id,
          'log.dirs': dataDir,
          listeners: listeners.join(','),
          'advertised.listeners': advertised.join(','),
          'listener.security.protocol.map': ['PLAINTEXT', 'CONTROLLER', ...fromNames].map((name) => `${name}:PLAINTEXT`).join(','),
          'controller.listener.names': 'CONTROLLER',
          'inter.broker.listener.name': `FROM${id}`,
          'controller.quorum.voters': voters,
          'http.listeners': '',
          ...FAST_FAILOVER_CONFIGS,
          ...options.overrides,
        },
      });
    });
    const cluster = new JepsenCluster(workDir, nodes, clientProxies, links);
    try {
      await Promise.all(nodes.map((node) => node.start()));
    } catch (error) {
      await cluster.close(false);
      throw error;
    }
    return cluster;
  }

  /** `host:port,...` of every node's client proxy, for `bootstrap.servers`. */
  get bootstrap(): string {
    return this.nodes.map((node) => `${HOST}:${this.clientProxies.get(node.id)!.port}`).join(',');
  }

  /** The node with id `id`. @throws Error for an unknown id */
  node(id: number): NodeProcess {
    const node = this.nodes.find((candidate) => candidate.id === id);
    if (node === undefined) throw new Error(`no node ${id}`);
    return node;
  }

  /** Cuts the clients' path to node `id`. */
  cutClients(id: number, mode: CutMode): void {
    this.clientProxies.get(id)!.cut(mode);
  }

  /** Cuts `kind` traffic between `a` and `b`, both directions. */
  cutPair(kind: LinkKind, a: number, b: number, mode: CutMode): void {
    this.link(kind, a, b).cut(mode);
    this.link(kind, b, a).cut(mode);
  }

  /** Cuts every path into and out of node `id`: clients, controllers and replication. */
  isolate(id: number, mode: CutMode): void {
    this.cutClients(id, mode);
    for (const other of this.nodes) {
      if (other.id === id) continue;
      this.cutPair('controller', id, other.id, mode);
      this.cutPair('replication', id, other.id, mode);
    }
  }

  /** Heals every cut link. */
  heal(): void {
    for (const proxy of [...this.clientProxies.values(), ...this.links.values()]) proxy.heal();
  }

  /**
   * Resumes paused nodes, stops every node (SIGKILL: nothing more is to be learned from a clean
   * stop here), closes the proxies, and removes the work directory when `removeWorkDir`.
   */
  async close(removeWorkDir: boolean): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.kill9()));
    await Promise.all([...this.clientProxies.values(), ...this.links.values()].map((proxy) => proxy.close()));
    if (removeWorkDir) rmSync(this.workDir, { recursive: true, force: true });
  }

  private link(kind: LinkKind, from: number, to: number): LinkProxy {
    const link = this.links.get(`${kind}:${from}->${to}`);
    if (link === undefined) throw new Error(`no ${kind} link ${from} -> ${to}`);
    return link;
  }
}

function nodeLogDir(workDir: string, id: number): string {
  return path.join(workDir, `node-${id}`);
}
