/**
 * Several BrokerServers of one controller quorum in this process on the real clock (real disk,
 * loopback TCP), configured as Kafka's KRaft quick start says: every node a broker and a voter
 * with a CONTROLLER listener, short Raft timeouts. `stopAll` shuts them down and removes their
 * directories.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { libraryBrokerConfig } from '../../host/broker.js';
import { systemEnvironment } from '../../host/io/environment.js';
import { createLogger } from '../../host/observability/logger.js';
import { BrokerServer } from '../../host/server/broker-server.js';
import { getCore } from '../../host/wasm/core.js';
import { findFreePort } from '../helpers/broker-process.js';

/**
 * Configs of quorum nodes `ids` (each a broker and a voter, node.id = the id), each with a fresh
 * temp log dir (`<prefix>-<id>-*`, the caller removes it), a free CONTROLLER port, the voters
 * naming them all, and short Raft timeouts; `overrides` go on top.
 */
export async function quorumNodeConfigs(
  ids: readonly number[], prefix: string, overrides: Record<string, string | number> = {},
): Promise<Map<number, ReturnType<typeof libraryBrokerConfig>>> {
  const controllerPorts = new Map<number, number>();
  for (const id of ids) controllerPorts.set(id, await findFreePort());
  const voters = ids.map((id) => `${id}@127.0.0.1:${controllerPorts.get(id)}`).join(',');
  const configs = new Map<number, ReturnType<typeof libraryBrokerConfig>>();
  for (const id of ids) {
    configs.set(id, libraryBrokerConfig({
      logDirs: [mkdtempSync(join(tmpdir(), `${prefix}-${id}-`))],
      listeners: ['PLAINTEXT://127.0.0.1:0', `CONTROLLER://127.0.0.1:${controllerPorts.get(id)}`],
      overrides: {
        'node.id': id,
        'process.roles': 'broker,controller',
        'controller.listener.names': 'CONTROLLER',
        'controller.quorum.voters': voters,
        'controller.quorum.election.timeout.ms': 400,
        'controller.quorum.fetch.timeout.ms': 800,
        'controller.quorum.election.backoff.max.ms': 200,
        ...overrides,
      },
    }));
  }
  return configs;
}

export class RealClockQuorum {
  readonly servers: BrokerServer[] = [];
  private readonly dirs: string[] = [];

  /** Starts one node per id (node.id = the id), all voters; resolves once every one started. */
  async start(ids: number[], overrides: Record<string, string | number> = {}): Promise<BrokerServer[]> {
    const configs = await quorumNodeConfigs(ids, 'tributary-quorum', overrides);
    const started = ids.map((id) => {
      const config = configs.get(id)!;
      this.dirs.push(config.logDirs[0]!);
      const server = new BrokerServer(config, systemEnvironment(), { core: getCore(), logger: createLogger({ level: process.env.QUORUM_TEST_LOG ?? 'silent' }) });
      this.servers.push(server);
      return server;
    });
    await Promise.all(started.map((server) => server.startup()));
    return started;
  }

  /** The node whose controller is active now, if any. */
  active(nodes: readonly BrokerServer[] = this.servers): BrokerServer | undefined {
    return nodes.find((node) => node.controller.isActive);
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.servers.splice(0).map((server) => server.shutdown()));
    for (const dir of this.dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  }
}
