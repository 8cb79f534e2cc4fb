/**
 * Replication proven with real processes and real clients (issue 11's "Done when"): three nodes,
 * a topic with replication.factor 3 and min.insync.replicas 2, a kafkajs idempotent producer
 * writing with acks=all while every node in turn is SIGKILLed and restarted. Afterwards every
 * acknowledged record reads back (kcat) at its offset exactly once, per-partition order holds, and
 * every partition is back to three in-sync replicas. With two of three nodes down, no acks=all
 * write is acknowledged, and the cluster takes writes again once they return.
 */
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { afterAll, describe, expect, it } from 'vitest';
import { stopAllBrokerProcesses } from '../helpers/broker-process.js';
import { KCAT, run, sleep } from '../compat/processes.js';
import { AckLedger } from './ack-ledger.js';
import { TestCluster } from './cluster.js';
import { kcatMetadata, kcatReadPartition, until, untilBrokersAndController } from './cluster-probes.js';

afterAll(async () => {
  await stopAllBrokerProcesses();
});

const TOPIC = 'ledger';
/** Progress on stderr, so a slow run shows where it is. */
const stage = (what: string): void => void process.stderr.write(`[replicated-cluster] ${what}\n`);
const PARTITIONS = 3;
const FAST_FAILOVER = {
  'controller.quorum.election.timeout.ms': 500,
  'controller.quorum.fetch.timeout.ms': 1000,
  'broker.session.timeout.ms': 3000,
  'broker.heartbeat.interval.ms': 500,
  'replica.lag.time.max.ms': 3000,
  'replica.fetch.backoff.ms': 200,
};

/** Writes `w<i>` values round-robin over the partitions until stopped, recording acknowledgements. */
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
          const [meta] = await this.producer.send({ topic: TOPIC, acks: -1, timeout: 5000, messages: [{ partition: i % PARTITIONS, value }] });
          this.ledger.ack(TOPIC, meta!.partition, Number(meta!.baseOffset), value);
        } catch {
          this.errors++;
          this.ledger.indeterminate++;
          await sleep(100);
        }
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.done;
  }
}

/** Waits until every partition of TOPIC has a leader and `isrSize` in-sync replicas, seen through `bootstrap`. */
async function waitForIsr(bootstrap: string, isrSize: number, timeoutMs = 60_000): Promise<void> {
  let last = 'nothing';
  try {
    await until(`every ${TOPIC} partition to have ${isrSize} in-sync replicas`, async () => {
      const metadata = await kcatMetadata(bootstrap).catch((error: unknown) => {
        last = String(error).slice(0, 300);
        return undefined;
      });
      const partitions = metadata?.partitions.get(TOPIC);
      if (partitions !== undefined) last = JSON.stringify(partitions);
      if (partitions === undefined || partitions.length !== PARTITIONS) return undefined;
      return partitions.every((p) => p.leader > 0 && p.isr.length === isrSize) ? true : undefined;
    }, timeoutMs);
  } catch (error) {
    throw new Error(`${String(error)}; last seen: ${last}`);
  }
}

describe('replicated partitions on a three-node cluster of real processes', () => {
  it('loses no acks=all write while every node in turn is SIGKILLed and restarted, and refuses acks=all writes with two nodes down', async () => {
    const cluster = await TestCluster.start({ nodes: 3, overrides: FAST_FAILOVER });
    try {
      await untilBrokersAndController(cluster.bootstrap, 3);
      const kafka = new Kafka({ clientId: 'replication-test', brokers: cluster.bootstrap.split(','), logLevel: logLevel.NOTHING, retry: { retries: 30, maxRetryTime: 2000 } });
      const admin = kafka.admin();
      await admin.connect();
      try {
        expect(await admin.createTopics({
          topics: [{ topic: TOPIC, numPartitions: PARTITIONS, replicationFactor: 3, configEntries: [{ name: 'min.insync.replicas', value: '2' }] }],
          waitForLeaders: true,
        })).toBe(true);
      } finally {
        await admin.disconnect();
      }
      stage('topic created');
      await waitForIsr(cluster.bootstrap, 3);
      stage('three in-sync replicas');

      const ledger = new AckLedger();
      const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
      await producer.connect();
      const writer = new Writer(producer, ledger);
      writer.start();
      try {
        // Rolling SIGKILL: each node in turn dies under load, stays down a while, and comes back.
        // Progress is counted, not timed: each kill waits for ten more acknowledged writes, so a
        // loaded machine slows the test down instead of failing it.
        for (const node of cluster.nodes) {
          const before = ledger.size;
          await until('ten more acknowledged writes', async () => (ledger.size >= before + 10 ? true : undefined), 120_000);
          stage(`SIGKILL node ${node.id} (${ledger.size} acknowledged so far)`);
          await cluster.kill9(node.id);
          await sleep(3000);
          await cluster.restart(node.id);
          await waitForIsr(cluster.bootstrap, 3);
        }
        const afterLastRestart = ledger.size;
        await until('ten acknowledged writes after the last restart', async () => (ledger.size >= afterLastRestart + 10 ? true : undefined), 120_000);
      } finally {
        await writer.stop();
        await producer.disconnect();
      }

      // Every partition is back to three in-sync replicas (waited above after the last restart).
      const read = new Map<string, { offset: number; value: string }[]>();
      for (let partition = 0; partition < PARTITIONS; partition++) {
        read.set(`${TOPIC}-${partition}`, await kcatReadPartition(cluster.bootstrap, TOPIC, partition));
      }
      expect(ledger.size).toBeGreaterThanOrEqual(40);
      expect(ledger.verify(read)).toEqual([]);

      stage(`read back: ${ledger.size} acknowledged, ${writer.errors} failed`);
      // Two of three down: no acks=all write is acknowledged (min.insync.replicas=2).
      const [a, b, c] = cluster.nodes;
      await cluster.kill9(a!.id);
      await cluster.kill9(b!.id);
      const lone = `127.0.0.1:${c!.clientProxy.port}`;
      const refused = await run(KCAT, ['-b', lone, '-P', '-t', TOPIC, '-p', '0', '-X', 'acks=all', '-X', 'message.timeout.ms=4000'], { input: 'must-not-be-acked\n' });
      expect(refused.code).not.toBe(0);

      // The majority returns: writes are acknowledged again (the refused write may or may not appear: it was never acknowledged).
      await cluster.restart(a!.id);
      await cluster.restart(b!.id);
      await waitForIsr(cluster.bootstrap, 3);
      const accepted = await run(KCAT, ['-b', cluster.bootstrap, '-P', '-t', TOPIC, '-p', '0', '-X', 'acks=all', '-X', 'message.timeout.ms=30000'], { input: 'after-recovery\n' });
      expect(accepted.code).toBe(0);
      const values = (await kcatReadPartition(cluster.bootstrap, TOPIC, 0)).map((r) => r.value);
      expect(values).toContain('after-recovery');
    } finally {
      await cluster.close();
    }
  }, 300_000);
});
