/**
 * Kafka broker configs Tributary accepts so that a Kafka server.properties loads, but that have no
 * effect here (thread counts, socket buffers, ZooKeeper mode); each says
 * why in `noEffect`, and the broker logs a warning naming the ones set. Part of
 * TRIBUTARY_BROKER_CONFIG_DEFS (broker-config.ts), kept apart to keep that file within its size.
 */
import type { ConfigDef } from './config-def.js';

export const NO_EFFECT_CONFIG_DEFS: readonly ConfigDef[] = [
  { name: 'num.network.threads', type: 'INT', defaultValue: '3', min: 1,
    noEffect: 'Node serves every connection from one event loop', doc: 'Kafka network threads; no effect in Tributary.' },
  { name: 'num.io.threads', type: 'INT', defaultValue: '8', min: 1,
    noEffect: 'Node handles requests on one event loop', doc: 'Kafka request handler threads; no effect in Tributary.' },
  { name: 'num.recovery.threads.per.data.dir', type: 'INT', defaultValue: '1', min: 1,
    noEffect: 'recovery runs on the event loop', doc: 'Kafka log recovery threads; no effect in Tributary.' },
  { name: 'socket.send.buffer.bytes', type: 'INT', defaultValue: '102400',
    noEffect: 'Node does not expose SO_SNDBUF', doc: 'Kafka socket send buffer; no effect in Tributary.' },
  { name: 'socket.receive.buffer.bytes', type: 'INT', defaultValue: '102400',
    noEffect: 'Node does not expose SO_RCVBUF', doc: 'Kafka socket receive buffer; no effect in Tributary.' },
  // ZooKeeper mode: a stock ZooKeeper-mode server.properties sets these; other zookeeper.* keys
  // are accepted the same way (ZOOKEEPER_CONFIG_PREFIX).
  { name: 'zookeeper.connect', type: 'STRING', defaultValue: null,
    noEffect: 'Tributary has no ZooKeeper mode', doc: 'ZooKeeper connection string of ZooKeeper mode; no effect in Tributary (as every zookeeper.* config).' },
  { name: 'zookeeper.connection.timeout.ms', type: 'INT', defaultValue: null,
    noEffect: 'Tributary has no ZooKeeper mode', doc: 'ZooKeeper connection timeout (ms) of ZooKeeper mode; no effect in Tributary.' },
];
