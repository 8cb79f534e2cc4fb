/**
 * The broker lifecycle on the real wire: a QuorumController behind a CONTROLLER listener
 * (SocketServer, RequestDispatcher, createRaftApiRegistry with controllerLifecycleApis) on
 * 127.0.0.1, and BrokerLifecycleManagers sending over NodeChannels on the system clock. A broker
 * registers fenced, is unfenced once caught up, and shuts down under control; a broker that stops
 * heartbeating is fenced when its session expires.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { BrokerServices } from '../../host/api/broker-services.js';
import { RequestDispatcher } from '../../host/api/request-dispatcher.js';
import { InMemoryMetadataLog } from '../../host/controller/in-memory-metadata-log.js';
import { QuorumController } from '../../host/controller/quorum-controller.js';
import { NodeNetwork } from '../../host/io/node-network.js';
import { SeededRandom } from '../../host/io/random.js';
import { SystemTime } from '../../host/io/time.js';
import { NodeChannels } from '../../host/network/node-channels.js';
import { SocketServer } from '../../host/network/socket-server.js';
import { createLogger } from '../../host/observability/logger.js';
import { raftWire } from '../../host/raft/raft-wire.js';
import { BrokerLifecycleManager } from '../../host/server/broker-lifecycle-manager.js';
import { startBrokerSessionExpiry } from '../../host/server/broker-session-expiry.js';
import { createRaftApiRegistry } from '../../host/server/controller-apis.js';
import { controllerLifecycleApis } from '../../host/server/controller-lifecycle-apis.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function waitFor(what: string, probe: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('broker lifecycle over TCP (CONTROLLER listener, NodeChannels)', () => {
  it('a broker registers, is unfenced once caught up and shuts down under control; a silent broker is fenced when its session expires', async () => {
    const time = new SystemTime();
    const controller = new QuorumController({
      config: { nodeId: 1, numPartitions: 1, defaultReplicationFactor: 1, deleteTopicEnable: true },
      log: new InMemoryMetadataLog({ localId: 1 }), clock: time, random: new SeededRandom(1), brokerSessionTimeoutMs: 600,
    });
    const registry = createRaftApiRegistry(raftWire(() => time.nowMs()), { handleRequest: () => Promise.reject(new Error('no Raft here')) },
      controllerLifecycleApis(controller, { clusterId: 'lifecycle-tcp' }));
    const dispatcher = new RequestDispatcher({ registry, broker: {} as BrokerServices, logger: createLogger({ level: 'silent' }) });
    const server = new SocketServer({ host: '127.0.0.1', port: 0, listenerName: 'CONTROLLER', handler: dispatcher.handle });
    await server.start();
    cleanups.push(() => server.stop(1000));
    const expiry = startBrokerSessionExpiry(controller, time);
    cleanups.push(() => expiry.stop());

    const startBroker = (brokerId: number): BrokerLifecycleManager => {
      const channels = new NodeChannels({ clientId: `broker-${brokerId}`, time, random: new SeededRandom(brokerId), network: new NodeNetwork(), requestTimeoutMs: 2000 });
      channels.setEndpoint(1, { host: '127.0.0.1', port: server.address().port });
      const manager = new BrokerLifecycleManager({
        transport: channels, time, brokerId, clusterId: 'lifecycle-tcp', incarnationId: `${brokerId}`.repeat(32),
        listeners: [{ name: 'PLAINTEXT', host: '127.0.0.1', port: 19_090 + brokerId, securityProtocol: 0 }],
        activeControllerId: () => controller.leaderAndEpoch.leaderId,
        metadataOffset: () => controller.lastCommittedOffset,
        heartbeatIntervalMs: 100,
      });
      cleanups.push(() => { manager.stop(); channels.close(); });
      manager.start();
      return manager;
    };

    const broker = startBroker(2);
    const silent = startBroker(3);
    expect(await broker.unfenced).toBe(true);
    expect(await silent.unfenced).toBe(true);
    expect(broker.brokerEpoch).toBe(controller.image.broker(2)!.brokerEpoch);
    expect(controller.image.broker(2)).toMatchObject({ fenced: false, incarnationId: '2'.repeat(32) });
    expect(controller.image.broker(2)!.endpoints).toEqual([{ name: 'PLAINTEXT', host: '127.0.0.1', port: 19_092, securityProtocol: 0 }]);

    // Broker 3 stops heartbeating without a controlled shutdown: its session expires.
    silent.stop();
    await waitFor('broker 3 fenced by session expiry', () => controller.image.broker(3)!.fenced);
    expect(controller.image.broker(2)!.fenced).toBe(false);

    expect(await broker.controlledShutdown(5_000)).toBe(true);
    expect(broker.state).toBe('SHUTTING_DOWN');
    expect(controller.image.broker(2)).toMatchObject({ fenced: true, inControlledShutdown: true });
  });
});
