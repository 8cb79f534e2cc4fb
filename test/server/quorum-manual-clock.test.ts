/**
 * Issue 9's done criterion with the controller part in place: three BrokerServers in one process
 * under ONE manual clock and ONE seeded random source (real disk and loopback TCP): they form a
 * controller quorum, a produce on one broker lands in a topic whose metadata every other broker's
 * cache shows. Time moves only when the test advances it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { libraryBrokerConfig } from '../../host/broker.js';
import { NodeDisk } from '../../host/io/disk.js';
import { manualEnvironment, type ManualEnvironment } from '../../host/io/manual-environment.js';
import { NodeNetwork } from '../../host/io/node-network.js';
import { createLogger } from '../../host/observability/logger.js';
import { BrokerServer } from '../../host/server/broker-server.js';
import { getCore } from '../../host/wasm/core.js';
import { findFreePort } from '../helpers/broker-process.js';
import { RawKafkaClient } from '../integration/raw-kafka-client.js';
import { batch, createTopic, produce } from '../integration/requests.js';

/** REQUEST_TIMED_OUT, NOT_CONTROLLER, NOT_LEADER_OR_FOLLOWER, LEADER_NOT_AVAILABLE, NOT_ENOUGH_REPLICAS: a client retries them. */
const RETRIABLE = new Set([7, 41, 6, 5, 19]);
const TOPIC_ALREADY_EXISTS = 36;

const dirs: string[] = [];
const servers: BrokerServer[] = [];
const clients: RawKafkaClient[] = [];
let environment: ManualEnvironment | null = null;

afterEach(async () => {
  for (const client of clients.splice(0)) client.socket.destroy();
  const stopping = Promise.all(servers.splice(0).map((server) => server.shutdown()));
  await advanceUntil(stopping);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * Advances the manual clock 5 ms per real millisecond until `promise` settles (the only way time
 * moves here; the real pause lets loopback TCP deliver between steps).
 */
async function advanceUntil<T>(promise: Promise<T>, limitMs = 60_000): Promise<T> {
  let settled = false;
  let outcome: { value?: T; error?: unknown } = {};
  promise.then((value) => { settled = true; outcome = { value }; }, (error: unknown) => { settled = true; outcome = { error }; });
  for (let advanced = 0; !settled; advanced += 5) {
    if (advanced > limitMs) throw new Error(`not settled after ${limitMs} ms of manual time`);
    environment!.time.advance(5);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  if ('error' in outcome && outcome.error !== undefined) throw outcome.error;
  return outcome.value as T;
}

async function until<T>(probe: () => T | undefined): Promise<T> {
  return advanceUntil((async () => {
    for (;;) {
      const value = probe();
      if (value !== undefined) return value;
      await new Promise((resolve) => setImmediate(resolve));
    }
  })());
}

/** Three brokers with controllers on free ports, started under `env`'s manual clock. */
async function startQuorum(env: ManualEnvironment): Promise<void> {
  const ids = [1, 2, 3];
  const ports = new Map<number, number>();
  for (const id of ids) ports.set(id, await findFreePort());
  const voters = ids.map((id) => `${id}@127.0.0.1:${ports.get(id)}`).join(',');
  for (const id of ids) {
    const dir = mkdtempSync(join(tmpdir(), `tributary-manual-quorum-${id}-`));
    dirs.push(dir);
    const config = libraryBrokerConfig({
      logDirs: [dir],
      listeners: ['PLAINTEXT://127.0.0.1:0', `CONTROLLER://127.0.0.1:${ports.get(id)}`],
      overrides: { 'node.id': id, 'controller.listener.names': 'CONTROLLER', 'controller.quorum.voters': voters },
    });
    servers.push(new BrokerServer(config, env, { core: getCore(), logger: createLogger({ level: 'silent' }) }));
  }
  await advanceUntil(Promise.all(servers.map((server) => server.startup())));
}

describe('brokers of one quorum under one manual clock and seed', () => {
  it('form a quorum, and a produce on one is in a topic every other broker cache knows', async () => {
    // The controller ports are chosen before binding (the voters name them): another test may take
    // one in between (EADDRINUSE), and then the quorum is formed again on other ports.
    for (let attempt = 1; ; attempt++) {
      environment = manualEnvironment({ seed: 9, disk: new NodeDisk(), network: new NodeNetwork() });
      try {
        await startQuorum(environment);
        break;
      } catch (error) {
        if (attempt >= 5 || !String(error).includes('EADDRINUSE')) throw error;
        await advanceUntil(Promise.all(servers.splice(0).map((server) => server.shutdown())));
      }
    }
    const active = await until(() => servers.find((server) => server.controller.isActive));
    const producer = servers.find((server) => server !== active)!;
    const client = await RawKafkaClient.connect(producer.listeners[0]!.port);
    clients.push(client);
    // Created through a node whose controller is not active: forwarded to the active one. On a
    // loaded machine manual time runs ahead of the real loopback traffic, so the request's 5 s of
    // manual time may pass first (7) or the controller move (41): a client retries those.
    let created = await advanceUntil(createTopic(client, 'orders', 1));
    for (let attempt = 0; RETRIABLE.has(created) && attempt < 10; attempt++) created = await advanceUntil(createTopic(client, 'orders', 1));
    expect([0, TOPIC_ALREADY_EXISTS]).toContain(created);
    await until(() => (servers.every((server) => server.metadataCache.topic('orders') !== undefined) ? true : undefined));
    // The leader the metadata names takes the produce; a leadership moved meanwhile is asked again.
    let errorCode = -1;
    for (let attempt = 0; errorCode !== 0 && attempt < 10; attempt++) {
      const leaderId = producer.metadataCache.topic('orders')!.partitions[0]!.leaderId;
      const leader = servers.find((server) => server.nodeId === leaderId);
      if (leader === undefined) {
        await advanceUntil(new Promise((resolve) => environment!.time.setTimeout(resolve, 100)));
        continue;
      }
      const leaderClient = await RawKafkaClient.connect(leader.listeners[0]!.port);
      clients.push(leaderClient);
      const response = await advanceUntil(produce(leaderClient, 7, [{ topic: 'orders', partition: 0, records: batch(['a', 'b']) }]));
      errorCode = response.responses[0]!.partitionResponses[0]!.errorCode;
      expect(errorCode === 0 || RETRIABLE.has(errorCode), `produce answered ${errorCode}`).toBe(true);
    }
    expect(errorCode).toBe(0);
    // Every broker's cache comes to name one leader for the partition.
    const leaderId = await until(() => {
      const named = new Set(servers.map((server) => server.metadataCache.topic('orders')!.partitions[0]!.leaderId));
      return named.size === 1 ? [...named][0]! : undefined;
    });
    expect(leaderId).toBeGreaterThan(0);
  });
});
