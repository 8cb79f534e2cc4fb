/**
 * Partition reassignment among four BrokerServers in one process (one Raft quorum, real disk,
 * loopback TCP): a partition with replication.factor 3 and min.insync.replicas 2 moves from
 * brokers {1,2,3} to {2,3,4} while a kafkajs idempotent producer writes with acks=all. The
 * reassignment is asked for and listed with kafkajs's admin (AlterPartitionReassignments and
 * ListPartitionReassignments over the wire, forwarded to the active controller) and listed with
 * `tributary partitions reassignments`. While broker 4 is
 * down the move stays in flight and Metadata shows the union {2,3,4,1}; once 4 is back it catches
 * up, joins the ISR, the controller drops 1 (the leader, so 2 takes over) and broker 1 deletes its
 * replica. Every acknowledged record reads back from the new leader at its offset, exactly once.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { afterEach, describe, expect, it } from 'vitest';
import { libraryBrokerConfig } from '../../host/broker.js';
import { systemEnvironment } from '../../host/io/environment.js';
import { createLogger } from '../../host/observability/logger.js';
import { BrokerServer } from '../../host/server/broker-server.js';
import { getCore } from '../../host/wasm/core.js';
import { AckLedger, type ReadRecord } from '../cluster/ack-ledger.js';
import { waitFor } from '../helpers/wait-for.js';
import { RawKafkaClient } from '../integration/raw-kafka-client.js';
import { decodeRecords, fetch, fetchRequest } from '../integration/requests.js';
import { quorumNodeConfigs } from './real-clock-quorum.js';
import { runInProcess } from '../cli/commands/cli-harness.js';

const TOPIC = 'moving';
const dirs = new Map<number, string>();
const configs = new Map<number, ReturnType<typeof libraryBrokerConfig>>();
const servers: BrokerServer[] = [];
const clients: RawKafkaClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.socket.destroy();
  await Promise.all(servers.splice(0).map((server) => server.shutdown()));
  for (const dir of dirs.values()) rmSync(dir, { recursive: true, force: true });
  dirs.clear();
});

function newServer(id: number): BrokerServer {
  const server = new BrokerServer(configs.get(id)!, systemEnvironment(), { core: getCore(), logger: createLogger({ level: process.env.REPLICATION_TEST_LOG ?? 'silent' }) });
  servers.push(server);
  return server;
}

/** Writes `w<i>` to partition 0 until stopped, recording acknowledgements. */
class Writer {
  private stopped = false;
  private done: Promise<void> = Promise.resolve();
  errors = 0;

  constructor(private readonly producer: Producer, private readonly ledger: AckLedger) {}

  start(): void {
    this.done = (async () => {
      for (let i = 0; !this.stopped; i++) {
        const value = `w${i}`;
        try {
          const [meta] = await this.producer.send({ topic: TOPIC, acks: -1, timeout: 5000, messages: [{ partition: 0, value }] });
          this.ledger.ack(TOPIC, 0, Number(meta!.baseOffset), value);
        } catch {
          this.errors++;
          this.ledger.indeterminate++;
        }
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.done;
  }
}

/** Everything `server` serves of TOPIC-0 from offset 0 to its high watermark. */
async function readAll(server: BrokerServer): Promise<ReadRecord[]> {
  const client = await RawKafkaClient.connect(server.listeners[0]!.port);
  clients.push(client);
  const read: ReadRecord[] = [];
  for (let offset = 0; ;) {
    const answer = (await fetch(client, 11, fetchRequest([{ topic: TOPIC, partition: 0, fetchOffset: offset }]))).responses[0]!.partitions[0]!;
    expect(answer.errorCode).toBe(0);
    const records = decodeRecords(answer.records).records;
    for (const record of records) read.push({ offset: record.offset, value: record.value!.toString() });
    if (records.length === 0 || read.length === 0) break;
    offset = read[read.length - 1]!.offset + 1;
    if (offset >= Number(answer.highWatermark)) break;
  }
  return read;
}

describe('partition reassignment among four BrokerServers', () => {
  it('moves an RF 3 partition from {1,2,3} to {2,3,4} under acks=all writes: Metadata shows the union while moving, nothing acknowledged is lost, the removed replica is deleted', async () => {
    for (const [id, config] of await quorumNodeConfigs([1, 2, 3, 4], 'tributary-reassign', { 'replica.fetch.backoff.ms': 100 })) {
      dirs.set(id, config.logDirs[0]!);
      configs.set(id, config);
    }
    const nodes = [1, 2, 3, 4].map((id) => newServer(id));
    await Promise.all(nodes.map((server) => server.startup()));
    await waitFor('four brokers in every cache', () => (nodes.every((n) => n.metadataCache.aliveBrokerEndpoints('PLAINTEXT').length === 4) ? true : undefined));
    const active = await waitFor('an active controller', () => nodes.find((n) => n.controller.isActive));
    const [created] = await active.controller.createTopics([{
      name: TOPIC, numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: [1, 2, 3] }],
      configs: [{ name: 'min.insync.replicas', value: '2' }],
    }]);
    expect(created!.errorCode).toBe(0);
    const [one, two, three, four] = nodes as [BrokerServer, BrokerServer, BrokerServer, BrokerServer];
    await waitFor('1, 2 and 3 holding the partition', () => ([one, two, three].every((n) => n.replicas.getPartition(TOPIC, 0) !== undefined) ? true : undefined));

    // Broker 4 stops: the move to it cannot finish until it is back.
    await four.shutdown();
    const bootstrap = [one, two, three].map((n) => `127.0.0.1:${n.listeners[0]!.port}`);
    const kafka = new Kafka({ clientId: 'reassign-test', brokers: bootstrap, logLevel: logLevel.NOTHING, retry: { retries: 30, maxRetryTime: 1000 } });
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const admin = kafka.admin();
    await admin.connect();
    const ledger = new AckLedger();
    const writer = new Writer(producer, ledger);
    try {
      writer.start();
      await waitFor('some acknowledged writes', () => (ledger.size >= 20 ? true : undefined));
      await admin.alterPartitionReassignments({ topics: [{ topic: TOPIC, partitionAssignment: [{ partition: 0, replicas: [2, 3, 4] }] }] });
      const listed = await admin.listPartitionReassignments({});
      // kafkajs 2.2.4 hands the topics back as decoded (its typings say topic / partitionIndex).
      expect(listed.topics as unknown).toEqual([{ name: TOPIC, partitions: [{ partition: 0, replicas: [2, 3, 4, 1], addingReplicas: [4], removingReplicas: [1] }] }]);
      // The CLI lists the same move (through broker 3, whose controller need not be the active one).
      const cli = await runInProcess(['partitions', 'reassignments', '--json', '-b', bootstrap[2]!]);
      expect(JSON.parse(cli.out)).toEqual([{ topic: TOPIC, partition: 0, replicas: [2, 3, 4, 1], addingReplicas: [4], removingReplicas: [1] }]);
      const described = JSON.parse((await runInProcess(['topic', 'describe', TOPIC, '--json', '-b', bootstrap[1]!])).out);
      expect(described[0].partitions[0]).toMatchObject({ replicas: [2, 3, 4, 1], addingReplicas: [4], removingReplicas: [1] });
      const during = await admin.fetchTopicMetadata({ topics: [TOPIC] });
      expect(during.topics[0]!.partitions[0]).toMatchObject({ leader: 1, replicas: [2, 3, 4, 1] });
      const writtenBefore = ledger.size;
      await waitFor('writes while the move is in flight', () => (ledger.size >= writtenBefore + 20 ? true : undefined));

      // Broker 4 returns, catches up, joins the ISR: the controller completes the move.
      const restarted = newServer(4);
      await restarted.startup();
      const survivors = [two, three, restarted];
      await waitFor('the move completed in every cache', () => ([one, ...survivors].every((n) => {
        const p = n.metadataCache.partition(TOPIC, 0);
        return p !== undefined && p.replicas.join() === '2,3,4' && p.leaderId === 2 && p.isr.length === 3;
      }) ? true : undefined), 30_000);
      expect((await admin.listPartitionReassignments({})).topics).toEqual([]);
      const writtenAfterMove = ledger.size;
      await waitFor('writes after the move', () => (ledger.size >= writtenAfterMove + 20 ? true : undefined), 30_000);
    } finally {
      await writer.stop();
      await producer.disconnect();
      await admin.disconnect();
    }

    // Broker 1 stopped serving the partition and deleted its replica.
    await waitFor('broker 1 without the partition', () => (one.replicas.getPartition(TOPIC, 0) === undefined ? true : undefined));
    await waitFor('broker 1\'s replica directory deleted', () => (!existsSync(join(dirs.get(1)!, `${TOPIC}-0`)) ? true : undefined));
    const leader = servers.find((n) => n.nodeId === 2 && n.replicas.getPartition(TOPIC, 0)?.isLeader)!;
    const violations = ledger.verify(new Map([[`${TOPIC}-0`, await readAll(leader)]]));
    expect(violations).toEqual([]);
    expect(ledger.size).toBeGreaterThanOrEqual(60);
  }, 90_000);
});
