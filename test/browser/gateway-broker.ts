/**
 * An in-process broker with both doors open for the transport tests: Kafka TCP on 127.0.0.1:0 and
 * the WebSocket gateway (http.listeners) on 127.0.0.1:0, temp log dir removed on stop. Plus the two
 * ways our client reaches it, as values a `describe.each` can run over.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBroker, type RunningBroker } from '../../host/broker.js';
import { tcpTransportFactory } from '../../host/clients/transport/tcp-transport.js';
import type { TransportFactory } from '../../host/clients/transport/transport.js';
import { nodeWebSocketTransportFactory } from '../../host/clients/transport/websocket-node-transport.js';

export interface GatewayBroker {
  broker: RunningBroker;
  /** `host:port` of the Kafka TCP listener. */
  tcpBootstrap: string;
  /** `host:port` of the gateway. */
  gatewayHostPort: string;
  /** `ws://host:port/kafka`. */
  kafkaUrl: string;
  logDir: string;
  stop(): Promise<void>;
}

export async function startGatewayBroker(overrides: Record<string, string | number | boolean> = {}): Promise<GatewayBroker> {
  const logDir = mkdtempSync(join(tmpdir(), 'tributary-browser-'));
  let broker: RunningBroker;
  try {
    broker = await startBroker({
      logDirs: logDir,
      overrides: {
        'http.listeners': '127.0.0.1:0',
        'group.initial.rebalance.delay.ms': 0,
        'offsets.topic.num.partitions': 3,
        'num.partitions': 1,
        ...overrides,
      },
    });
  } catch (error) {
    rmSync(logDir, { recursive: true, force: true });
    throw error;
  }
  const gateway = broker.httpListeners[0];
  if (gateway === undefined) {
    await broker.stop();
    rmSync(logDir, { recursive: true, force: true });
    throw new Error('the broker started without its WebSocket gateway');
  }
  const gatewayHostPort = `${gateway.host}:${gateway.port}`;
  return {
    broker,
    tcpBootstrap: broker.bootstrap,
    gatewayHostPort,
    kafkaUrl: `ws://${gatewayHostPort}/kafka`,
    logDir,
    async stop() {
      try {
        await broker.stop();
      } finally {
        rmSync(logDir, { recursive: true, force: true });
      }
    },
  };
}

/** How a test client reaches the broker. */
export interface TransportUnderTest {
  name: 'tcp' | 'websocket';
  /** The inner transport (wrapped by fault injection). */
  factory(broker: GatewayBroker): TransportFactory;
  /** Bootstrap servers for clients on this transport. */
  bootstrapServers(broker: GatewayBroker): string[];
}

export const TCP: TransportUnderTest = {
  name: 'tcp',
  factory: () => tcpTransportFactory,
  bootstrapServers: (broker) => [broker.tcpBootstrap],
};

/** Every broker connection goes through the gateway (Metadata names the TCP listener). */
export const WEBSOCKET: TransportUnderTest = {
  name: 'websocket',
  factory: (broker) => nodeWebSocketTransportFactory({ url: broker.kafkaUrl }),
  bootstrapServers: (broker) => [broker.gatewayHostPort],
};
