/**
 * Starts a cluster of real Tributary processes on 127.0.0.1, configured as Kafka's KRaft quick
 * start says (`process.roles`, `node.id`, `controller.quorum.voters`, a CONTROLLER listener), with
 * a {@link LinkProxy} on every network path a test may want to cut:
 *
 * - every ordered controller link i → j: node i's `controller.quorum.voters` names voter j at the
 *   port of the proxy (i → j), so cutting both directions of a pair partitions exactly those two
 *   controllers (the voters list is per-node configuration; only the ids must agree);
 * - every node's client listener: the node advertises its proxy (`advertised.listeners`), so
 *   clients and other brokers reach it only through that proxy; cutting it makes the node
 *   unreachable for them (its own outgoing connections to other brokers are not cut — a limit of
 *   one loopback address, named here so tests do not assume more).
 *
 * Ports are chosen first (free ports, then written into every node's config); logs live in temp
 * directories removed by `close()`.
 */
import { findFreePort, startBrokerProcess, type BrokerProcess, type OverrideValue } from '../helpers/broker-process.js';
import { LinkProxy, type CutMode } from '../../bench/jepsen/link-proxy.js';

export interface ClusterOptions {
  /** Number of combined broker+controller nodes (ids 1..n). Default 3. Ignored with {@link brokers}. */
  readonly nodes?: number;
  /**
   * Separate roles instead of combined nodes: `controllers` controller-only nodes (ids
   * 1..controllers, the voters; default 3) and `brokers` broker-only nodes after them. A
   * controller-only node has no client listener: its `clientProxy` leads nowhere.
   */
  readonly controllers?: number;
  readonly brokers?: number;
  /** Extra configs for every node. */
  readonly overrides?: Record<string, OverrideValue>;
  /** Extra configs for one node (after {@link overrides}), e.g. its own `http.listeners` port. */
  readonly nodeOverrides?: (id: number) => Record<string, OverrideValue>;
  /** ms to wait for each process to answer ApiVersions. Default 30 000. */
  readonly startTimeoutMs?: number;
}

/** One node of a {@link TestCluster}. */
export interface ClusterNode {
  readonly id: number;
  /** process.roles. */
  readonly roles: 'broker,controller' | 'controller' | 'broker';
  readonly process: BrokerProcess;
  /** Port the node's PLAINTEXT listener binds. */
  readonly clientPort: number;
  /** Port the node's CONTROLLER listener binds. */
  readonly controllerPort: number;
  /** The proxy clients reach the node through (its advertised listener). */
  readonly clientProxy: LinkProxy;
}

const HOST = '127.0.0.1';

/** A running cluster; see the file header. */
export class TestCluster {
  private constructor(
    readonly nodes: readonly ClusterNode[],
    /** Controller links by `${from}->${to}`. */
    private readonly links: ReadonlyMap<string, LinkProxy>,
  ) {}

  /**
   * Starts `options.nodes` processes concurrently and waits until each answers ApiVersions. The
   * proxies bind first (so the nodes' ports, chosen next, cannot collide with them); a start that
   * loses a port race to another process (EADDRINUSE) is retried with new ports, twice at most.
   */
  static async start(options: ClusterOptions = {}): Promise<TestCluster> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await TestCluster.startOnce(options);
      } catch (error) {
        if (attempt >= 3 || !/EADDRINUSE/.test(String(error instanceof Error ? error.message : error))) throw error;
      }
    }
  }

  private static async startOnce(options: ClusterOptions): Promise<TestCluster> {
    const separate = options.brokers !== undefined;
    const controllers = separate ? options.controllers ?? 3 : options.nodes ?? 3;
    const count = controllers + (options.brokers ?? 0);
    const ids = Array.from({ length: count }, (_, i) => i + 1);
    const voterIds = ids.slice(0, controllers);
    const roles = (id: number): ClusterNode['roles'] => (!separate ? 'broker,controller' : id <= controllers ? 'controller' : 'broker');
    const placeholder = { host: HOST, port: 1 };
    const links = new Map<string, LinkProxy>();
    const clientProxies = new Map<number, LinkProxy>();
    for (const id of ids) {
      clientProxies.set(id, await LinkProxy.start(placeholder));
      for (const to of voterIds) if (to !== id) links.set(`${id}->${to}`, await LinkProxy.start(placeholder));
    }
    const allProxies = [...links.values(), ...clientProxies.values()];
    const ports = new Map<number, { client: number; controller: number }>();
    const taken = new Set<number>(allProxies.map((proxy) => proxy.port));
    const freshPort = async (): Promise<number> => {
      for (;;) {
        const port = await findFreePort();
        if (!taken.has(port)) {
          taken.add(port);
          return port;
        }
      }
    };
    for (const id of ids) ports.set(id, { client: await freshPort(), controller: await freshPort() });
    for (const id of ids) {
      clientProxies.get(id)!.retarget({ host: HOST, port: ports.get(id)!.client });
      for (const to of voterIds) if (to !== id) links.get(`${id}->${to}`)!.retarget({ host: HOST, port: ports.get(to)!.controller });
    }
    const started = await Promise.allSettled(ids.map((id) => {
      const own = ports.get(id)!;
      const voters = voterIds.map((to) => `${to}@${HOST}:${to === id ? own.controller : links.get(`${id}->${to}`)!.port}`).join(',');
      const role = roles(id);
      const listeners = [
        ...(role === 'controller' ? [] : [`PLAINTEXT://${HOST}:${own.client}`]),
        ...(role === 'broker' ? [] : [`CONTROLLER://${HOST}:${own.controller}`]),
      ];
      return startBrokerProcess({
        // The readiness probe (ApiVersions) goes to the client listener, or to a controller-only node's CONTROLLER listener.
        port: role === 'controller' ? own.controller : own.client,
        startTimeoutMs: options.startTimeoutMs ?? 30_000,
        overrides: {
          'process.roles': role,
          'node.id': id,
          listeners: listeners.join(','),
          ...(role === 'controller' ? {} : { 'advertised.listeners': `PLAINTEXT://${HOST}:${clientProxies.get(id)!.port}` }),
          'controller.listener.names': 'CONTROLLER',
          'inter.broker.listener.name': 'PLAINTEXT',
          'controller.quorum.voters': voters,
          ...options.overrides,
          ...options.nodeOverrides?.(id),
        },
      });
    }));
    const failed = started.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed !== undefined) {
      await Promise.all(started.map((result) => (result.status === 'fulfilled' ? result.value.close() : Promise.resolve())));
      await Promise.all(allProxies.map((proxy) => proxy.close()));
      throw failed.reason;
    }
    const processes = started.map((result) => (result as PromiseFulfilledResult<BrokerProcess>).value);
    const nodes = ids.map((id, i) => ({
      id, roles: roles(id), process: processes[i]!, clientPort: ports.get(id)!.client, controllerPort: ports.get(id)!.controller, clientProxy: clientProxies.get(id)!,
    }));
    return new TestCluster(nodes, links);
  }

  /** `host:port,...` of every node's client proxy, for `bootstrap.servers`. */
  get bootstrap(): string {
    return this.nodes.map((node) => `${HOST}:${node.clientProxy.port}`).join(',');
  }

  /** The node with id `id`. @throws Error for an unknown id */
  node(id: number): ClusterNode {
    const node = this.nodes.find((n) => n.id === id);
    if (node === undefined) throw new Error(`no node ${id} in this cluster`);
    return node;
  }

  /** SIGKILLs node `id` (its data directory stays). */
  async kill9(id: number): Promise<void> {
    await this.node(id).process.kill9();
  }

  /** Starts node `id` again on the same ports and data directory. */
  async restart(id: number): Promise<void> {
    await this.node(id).process.restart();
  }

  /** Cuts the controller links between `a` and `b`, both directions. */
  partition(a: number, b: number, mode: CutMode = 'blackhole'): void {
    this.link(a, b).cut(mode);
    this.link(b, a).cut(mode);
  }

  /** Cuts every controller link of `id` and its client proxy. */
  isolate(id: number, mode: CutMode = 'blackhole'): void {
    for (const other of this.nodes) {
      if (other.id === id) continue;
      this.links.get(`${id}->${other.id}`)?.cut(mode);
      this.links.get(`${other.id}->${id}`)?.cut(mode);
    }
    this.node(id).clientProxy.cut(mode);
  }

  /** Heals every cut link and proxy. */
  heal(): void {
    for (const link of this.links.values()) link.heal();
    for (const node of this.nodes) node.clientProxy.heal();
  }

  /** Stops every process, removes the data directories and closes the proxies. */
  async close(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.process.close()));
    await Promise.all([...this.links.values(), ...this.nodes.map((n) => n.clientProxy)].map((proxy) => proxy.close()));
  }

  private link(from: number, to: number): LinkProxy {
    const link = this.links.get(`${from}->${to}`);
    if (link === undefined) throw new Error(`no controller link ${from} -> ${to}`);
    return link;
  }
}
