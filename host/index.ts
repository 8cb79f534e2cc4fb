/**
 * Tributary's package entry point: start a Kafka-compatible broker in-process.
 *
 * ```ts
 * import { startBroker } from 'tributary';
 * const broker = await startBroker({ logDirs: ['/tmp/data'], overrides: { 'num.partitions': 3 } });
 * // bootstrap.servers = broker.bootstrap (127.0.0.1:<free port>)
 * await broker.stop();
 * ```
 */
export { TRIBUTARY_VERSION } from './cli/version.js';

export { startBroker, libraryBrokerConfig } from './broker.js';
export type {
  BoundListener,
  RunningBroker,
  StartBrokerConfigOptions,
  StartBrokerLibraryOptions,
  StartBrokerOptions,
} from './broker.js';
export { loadBrokerConfig } from './config/broker-config.js';
export type { BrokerConfig } from './config/broker-config.js';

// The client library (Producer, Consumer, Admin, transports): see host/clients/README.md.
export * from './clients/node.js';
