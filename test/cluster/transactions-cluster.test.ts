/**
 * Transactions in a cluster (issue 12: "the coordinator moves with the leader of its
 * `__transaction_state` partition and finishes in-flight commits/aborts after failover"), proven
 * with three real processes, `__transaction_state` replicated three times (one partition, so one
 * coordinator), and an output topic whose three partitions are led by the three nodes.
 *
 * 1. Our transactional Producer commits and aborts transactions.
 * 2. A commit is caught between EndTxn's PrepareCommit and its markers: the client proxies of the
 *    two other nodes are cut (reset) before EndTxn, so the coordinator writes PrepareCommit (its
 *    followers fetch from it) and answers, but cannot reach the leaders of the partitions those
 *    nodes lead; DescribeTransactions shows PrepareCommit. The coordinator (FindCoordinator key
 *    type 1) is SIGKILLed there and the proxies healed.
 * 3. The new leader of `__transaction_state`-0 loads the transaction in PrepareCommit and sends
 *    its markers: read_committed readers (librdkafka) see the commit before the old coordinator
 *    returns; the producer finds the new coordinator and goes on with new transactions.
 * 4. The killed node restarts; a new producer with the same transactional.id fences the old one
 *    (its open transaction aborted, its commit refused with PRODUCER_FENCED) and commits.
 * 5. The same with an abort caught between PrepareAbort and its markers: the next coordinator
 *    completes the abort, and the producer commits again.
 * 6. confluent-kafka commits and aborts through the cluster too.
 * 7. confluent-kafka keeps a transaction open while the coordinator is SIGKILLed and commits it at
 *    the next coordinator (the Ongoing state survives in the replicated `__transaction_state`).
 *
 * At the end read_committed readers (librdkafka and our Consumer) see every committed record
 * exactly once, in order per partition, and no aborted one. Waits count progress, never time.
 */
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, describe, expect, it } from 'vitest';
import { Admin } from '../../host/clients/admin.js';
import { describeTransactions } from '../../host/clients/admin-transactions.js';
import { Consumer } from '../../host/clients/consumer.js';
import { ProducerFencedError } from '../../host/clients/errors.js';
import { Producer } from '../../host/clients/producer.js';
import { stopAllBrokerProcesses } from '../helpers/broker-process.js';
import { JsonLineProcess, killAllClientProcesses, runPython } from '../compat/processes.js';
import { TestCluster } from './cluster.js';
import { kcatMetadata, until, untilBrokersAndController } from './cluster-probes.js';

afterAll(async () => {
  killAllClientProcesses();
  await stopAllBrokerProcesses();
});

const TOPIC = 'txn-out';
const PARTITIONS = 3;
const TXN_ID = 'cluster-tx';
const stage = (what: string): void => void process.stderr.write(`[transactions-cluster] ${what}\n`);
const FAST_FAILOVER = {
  'controller.quorum.election.timeout.ms': 500,
  'controller.quorum.fetch.timeout.ms': 1000,
  'broker.session.timeout.ms': 3000,
  'broker.heartbeat.interval.ms': 500,
  'replica.lag.time.max.ms': 3000,
  'replica.fetch.backoff.ms': 200,
  'transaction.state.log.num.partitions': 1,
  'transaction.state.log.replication.factor': 3,
  'transaction.state.log.min.isr': 2,
};

interface Consumed { partition: number; offset: number; value: string | null }

/** `values` spread over the partitions in turn, as one transaction's sends. */
function records(prefix: string, count: number): { value: string; partition: number }[] {
  return Array.from({ length: count }, (_, i) => ({ value: `${prefix}-${i}`, partition: i % PARTITIONS }));
}

describe('transactions on a three-node cluster of real processes', () => {
  it('a new coordinator completes a commit and an abort caught between Prepare* and their markers; producers go on and fence', async () => {
    const cluster = await TestCluster.start({ nodes: 3, overrides: FAST_FAILOVER });
    const closing: { close(): Promise<void> }[] = [];
    const through = (ids: number[]): string => ids.map((id) => `127.0.0.1:${cluster.node(id).clientProxy.port}`).join(',');
    const producer = (): Producer => {
      const created = new Producer({ bootstrapServers: cluster.bootstrap.split(','), transactionalId: TXN_ID, lingerMs: 1, maxBlockMs: 120_000 });
      closing.push(created);
      return created;
    };
    /** FindCoordinator (key type 1) and DescribeTransactions through a fresh client. */
    const describeTxn = async (transactionalId: string, bootstrap = cluster.bootstrap): Promise<{ state: string; coordinatorId: number }> => {
      const admin = new Admin({ bootstrapServers: bootstrap.split(',') });
      try {
        const [described] = await describeTransactions(admin.cluster, [transactionalId]);
        return { state: described!.state, coordinatorId: described!.coordinatorId };
      } finally {
        await admin.close();
      }
    };
    /** The read_committed view of every partition through `bootstrap`, by librdkafka. */
    const readCommitted = async (bootstrap: string, count: number): Promise<Consumed[]> => (await runPython<{ records: Consumed[] }>('ck_consume.py', {
      bootstrap, topic: TOPIC, count, partitions: [0, 1, 2], timeout_s: 15, config: { 'isolation.level': 'read_committed' },
    }, { timeoutMs: 60_000 })).records;
    /** Until every partition of `topics` has a leader and three in-sync replicas. */
    const waitForIsr = (topics: string[]): Promise<true> => until(`${topics.join(', ')} in sync on three nodes`, async () => {
      const metadata = await kcatMetadata(cluster.bootstrap).catch(() => undefined);
      return topics.every((topic) => (metadata?.partitions.get(topic) ?? []).length > 0 &&
        metadata!.partitions.get(topic)!.every((p) => p.leader > 0 && p.isr.length === 3)) ? true : undefined;
    }, 120_000);
    const committed: string[] = [];
    const aborted: string[] = [];
    try {
      await untilBrokersAndController(cluster.bootstrap, 3);
      const kafka = new Kafka({ clientId: 'txn-cluster-test', brokers: cluster.bootstrap.split(','), logLevel: logLevel.NOTHING, retry: { retries: 30, maxRetryTime: 2000 } });
      const kadmin = kafka.admin();
      await kadmin.connect();
      try {
        // Each node leads one partition (the first replica is the preferred leader).
        expect(await kadmin.createTopics({
          topics: [{
            topic: TOPIC, configEntries: [{ name: 'min.insync.replicas', value: '2' }],
            replicaAssignment: [{ partition: 0, replicas: [1, 2, 3] }, { partition: 1, replicas: [2, 3, 1] }, { partition: 2, replicas: [3, 1, 2] }],
          }],
          waitForLeaders: true,
        })).toBe(true);
      } finally {
        await kadmin.disconnect();
      }

      // 1. Commit and abort.
      const first = producer();
      await first.initTransactions();
      const runTxn = async (p: Producer, prefix: string, commit: boolean): Promise<void> => {
        p.beginTransaction();
        const sent = records(prefix, 6);
        await p.send({ topic: TOPIC, messages: sent });
        if (commit) await p.commitTransaction();
        else await p.abortTransaction();
        (commit ? committed : aborted).push(...sent.map((r) => r.value));
      };
      /**
       * Ends a transaction (records `prefix`-*, on every partition) while the client proxies of the
       * nodes other than the coordinator are cut (reset): EndTxn is answered once Prepare* is written
       * (followers fetch from the coordinator), but the markers cannot reach the partitions those
       * nodes lead. Then SIGKILLs the coordinator and heals the proxies. Returns the killed node.
       */
      const holdMarkersAndKillCoordinator = async (p: Producer, prefix: string, commit: boolean): Promise<number> => {
        await waitForIsr(['__transaction_state', TOPIC]);
        const coordinatorId = (await describeTxn(TXN_ID)).coordinatorId;
        const rest = [1, 2, 3].filter((id) => id !== coordinatorId);
        stage(`coordinator is node ${coordinatorId}`);
        p.beginTransaction();
        const held = records(prefix, 6);
        await p.send({ topic: TOPIC, messages: held });
        for (const id of rest) cluster.node(id).clientProxy.cut('reset');
        if (commit) await p.commitTransaction();
        else await p.abortTransaction();
        (commit ? committed : aborted).push(...held.map((r) => r.value));
        expect((await describeTxn(TXN_ID, through([coordinatorId]))).state).toBe(commit ? 'PrepareCommit' : 'PrepareAbort');
        stage(`EndTxn (${commit ? 'commit' : 'abort'}) answered, markers held back: SIGKILL the coordinator`);
        await cluster.kill9(coordinatorId);
        for (const id of rest) cluster.node(id).clientProxy.heal();
        return coordinatorId;
      };
      await runTxn(first, 'a', true);
      await runTxn(first, 'b', false);
      // 2. A commit whose markers cannot reach two of the three partition leaders.
      const coordinator = await holdMarkersAndKillCoordinator(first, 'c', true);
      const others = [1, 2, 3].filter((id) => id !== coordinator);

      // 3. The new coordinator finishes the commit before the old one returns.
      const live = through(others);
      const moved = await until('a new coordinator to complete the commit', async () => {
        const described = await describeTxn(TXN_ID, live).catch(() => undefined);
        return described?.state === 'CompleteCommit' ? described : undefined;
      }, 120_000);
      expect(others).toContain(moved.coordinatorId);
      stage(`node ${moved.coordinatorId} completed the commit`);
      const seenWhileDown = await until('read_committed readers to see the commit', async () => {
        const read = await readCommitted(live, committed.length).catch(() => undefined);
        return read !== undefined && read.length >= committed.length ? read : undefined;
      }, 120_000);
      expect(seenWhileDown.map((r) => r.value).sort()).toEqual([...committed].sort());
      await runTxn(first, 'd', true);
      await runTxn(first, 'e', false);
      stage('the producer went on at the new coordinator');

      // 4. The old coordinator returns; a new producer with the same id fences the old one.
      await cluster.restart(coordinator);
      first.beginTransaction();
      const zombie = records('z', 3);
      await first.send({ topic: TOPIC, messages: zombie });
      aborted.push(...zombie.map((r) => r.value));
      const second = producer();
      await second.initTransactions();
      await expect(first.commitTransaction()).rejects.toBeInstanceOf(ProducerFencedError);
      await runTxn(second, 'f', true);
      stage('fenced the old producer');

      // 5. An abort caught between PrepareAbort and its markers: the next coordinator finishes it.
      const secondVictim = await holdMarkersAndKillCoordinator(second, 'x', false);
      const survivors = through([1, 2, 3].filter((id) => id !== secondVictim));
      await until('a new coordinator to complete the abort', async () => {
        const described = await describeTxn(TXN_ID, survivors).catch(() => undefined);
        return described?.state === 'CompleteAbort' ? true : undefined;
      }, 120_000);
      await runTxn(second, 'y', true);
      await cluster.restart(secondVictim);
      stage('the abort completed at the next coordinator');

      // 6. confluent-kafka through the cluster.
      const ck = await runPython<{ results: { commit: boolean; error: string | null }[] }>('ck_transactions.py', {
        bootstrap: cluster.bootstrap, topic: TOPIC, transactional_id: 'cluster-ck',
        transactions: [{ values: ['g-0', 'g-1', 'g-2'], commit: true }, { values: ['h-0', 'h-1'], commit: false }, { values: ['i-0'], commit: true }],
      }, { timeoutMs: 120_000 });
      expect(ck.results.map((r) => r.error)).toEqual([null, null, null]);
      committed.push('g-0', 'g-1', 'g-2', 'i-0');
      aborted.push('h-0', 'h-1');

      // 7. confluent-kafka keeps a transaction open across a SIGKILL of the coordinator and commits it at the next one.
      await waitForIsr(['__transaction_state', TOPIC]);
      const session = JsonLineProcess.python('ck_txn_session.py', { bootstrap: cluster.bootstrap, transactional_id: 'cluster-ck-session', topic: TOPIC }, 400_000);
      const run = async (command: Record<string, unknown>): Promise<unknown> => {
        const index = session.eventsOf('done').length;
        session.send(JSON.stringify(command));
        const done = await session.waitFor(`${String(command.op)} done`, (e) => e.event === 'done' && session.eventsOf('done').indexOf(e) === index, 180_000);
        return done.error;
      };
      await session.waitFor('initialized', (e) => e.event === 'initialized', 120_000);
      expect(await run({ op: 'begin' })).toBeNull();
      expect(await run({ op: 'produce', values: ['s-0', 's-1'], partition: 0 })).toBeNull();
      const sessionCoordinator = await describeTxn('cluster-ck-session');
      expect(sessionCoordinator.state).toBe('Ongoing');
      stage(`SIGKILL node ${sessionCoordinator.coordinatorId} under an open confluent-kafka transaction`);
      await cluster.kill9(sessionCoordinator.coordinatorId);
      expect(await run({ op: 'commit' })).toBeNull();
      committed.push('s-0', 's-1');
      session.send(JSON.stringify({ op: 'close' }));
      await cluster.restart(sessionCoordinator.coordinatorId);
      stage('confluent-kafka committed at the next coordinator');

      // Every read_committed reader sees exactly the committed records, once, in order per partition.
      const finalRead = await until('every committed record', async () => {
        const read = await readCommitted(cluster.bootstrap, committed.length + 1).catch(() => undefined);
        return read !== undefined && read.length >= committed.length ? read : undefined;
      }, 120_000);
      const values = finalRead.map((r) => r.value ?? '<null>');
      expect([...values].sort()).toEqual([...committed].sort());
      for (const value of aborted) expect(values).not.toContain(value);
      for (let partition = 0; partition < PARTITIONS; partition++) {
        const ours = finalRead.filter((r) => r.partition === partition && /^[acdfy]-/.test(r.value ?? '')).map((r) => r.value!);
        expect(ours).toEqual(committed.filter((v) => /^[acdfy]-/.test(v) && Number(v.split('-')[1]) % PARTITIONS === partition));
      }
      const consumer = new Consumer({ bootstrapServers: cluster.bootstrap.split(','), isolationLevel: 'read_committed', maxWaitMs: 100 });
      closing.push(consumer);
      consumer.assign([0, 1, 2].map((partition) => ({ topic: TOPIC, partition })));
      for (let partition = 0; partition < PARTITIONS; partition++) consumer.seek({ topic: TOPIC, partition }, 0);
      const ourRead: string[] = [];
      await until('our Consumer to read every committed record', async () => {
        for (const record of await consumer.poll(200)) ourRead.push(record.value === null ? '<null>' : Buffer.from(record.value).toString());
        return ourRead.length >= committed.length ? true : undefined;
      }, 120_000);
      expect([...ourRead].sort()).toEqual([...committed].sort());
    } finally {
      await Promise.allSettled(closing.map((client) => client.close()));
      await cluster.close();
    }
  }, 600_000);
});
