/**
 * Issue 10's "Done when": a rolling SIGKILL of every node of a three-node KRaft cluster of real
 * processes while metadata changes keep being made through the live nodes. Each change goes in
 * with confluent-kafka's AdminClient (librdkafka) and is checked with kcat -L; a change made while
 * only one node lives is never acknowledged; every node ends with the same topics.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { stopAllBrokerProcesses } from '../helpers/broker-process.js';
import { PYTHON, run } from '../compat/processes.js';
import { TestCluster } from './cluster.js';
import { kcatMetadata, until } from './cluster-probes.js';

afterAll(async () => {
  await stopAllBrokerProcesses();
});

/** CreateTopics with confluent-kafka's AdminClient; true once the broker acknowledged it. */
async function createTopic(bootstrap: string, topic: string, timeoutS: number): Promise<{ ok: boolean; output: string }> {
  const script = [
    'import sys',
    'from confluent_kafka.admin import AdminClient, NewTopic',
    `admin = AdminClient({"bootstrap.servers": "${bootstrap}", "socket.timeout.ms": ${timeoutS * 1000}})`,
    `futures = admin.create_topics([NewTopic("${topic}", num_partitions=1, replication_factor=1)], operation_timeout=${timeoutS}, request_timeout=${timeoutS})`,
    `for name, future in futures.items(): future.result(${timeoutS + 2})`,
  ].join('\n');
  const result = await run(PYTHON, ['-c', script], { timeoutMs: (timeoutS + 10) * 1000 });
  // librdkafka retries a CreateTopics whose answer it did not get in time (a loaded machine, an
  // election in between); when the first attempt was committed the retry answers TOPIC_ALREADY_EXISTS.
  // Each topic name here is created once by this test only, so that answer means it was created.
  const createdByEarlierAttempt = result.code !== 0 && result.stderr.includes('TOPIC_ALREADY_EXISTS');
  return { ok: (result.code === 0 || createdByEarlierAttempt) && !result.timedOut, output: result.stderr };
}

describe('a three-node KRaft cluster through a rolling SIGKILL', () => {
  it('keeps taking metadata changes through the live nodes, none without a majority, and every node ends with the same topics', async () => {
    const cluster = await TestCluster.start({
      nodes: 3,
      overrides: {
        'controller.quorum.election.timeout.ms': 500, 'controller.quorum.fetch.timeout.ms': 1000,
        'controller.quorum.request.timeout.ms': 1000, 'broker.session.timeout.ms': 4000, 'broker.heartbeat.interval.ms': 500,
      },
    });
    const through = (ids: number[]): string => ids.map((id) => `127.0.0.1:${cluster.node(id).clientProxy.port}`).join(',');
    const topicsOf = async (id: number): Promise<string[]> => (await kcatMetadata(through([id]))).topics.filter((t) => !t.startsWith('__'));
    try {
      await until('three brokers', async () => ((await kcatMetadata(cluster.bootstrap)).brokers.length === 3 ? true : undefined));
      const created: string[] = [];
      for (const victim of [1, 2, 3]) {
        await cluster.kill9(victim);
        const live = [1, 2, 3].filter((id) => id !== victim);
        const topic = `while-${victim}-down`;
        // librdkafka sends CreateTopics to the controller Metadata names and does not look again while
        // that node is down, so the change is made once the live nodes name a live one (an election
        // after the active controller's death, within controller.quorum.fetch.timeout.ms or so).
        await until('the live nodes to name a live controller', async () => (live.includes((await kcatMetadata(through(live))).controllerId) ? true : undefined));
        const answer = await createTopic(through(live), topic, 20);
        expect(answer.ok, answer.output).toBe(true);
        created.push(topic);
        for (const id of live) await until(`${topic} on node ${id}`, async () => ((await topicsOf(id)).includes(topic) ? true : undefined));
        await cluster.restart(victim);
        await until(`node ${victim} to catch up`, async () => {
          const topics = await topicsOf(victim);
          return created.every((t) => topics.includes(t)) ? true : undefined;
        });
      }

      // Two nodes down: the last one alone is no majority, so no change is acknowledged.
      await cluster.kill9(1);
      await cluster.kill9(2);
      const alone = await createTopic(through([3]), 'without-majority', 4);
      expect(alone.ok).toBe(false);
      expect(await topicsOf(3)).not.toContain('without-majority');
      await Promise.all([cluster.restart(1), cluster.restart(2)]);

      // Back to a majority: changes are taken again, and every node has the same topics.
      const after = await createTopic(cluster.bootstrap, 'after-majority-returned', 20);
      expect(after.ok, after.output).toBe(true);
      created.push('after-majority-returned');
      const views = await until('every node to agree', async () => {
        const all = await Promise.all([1, 2, 3].map(topicsOf));
        const same = all.every((topics) => JSON.stringify(topics) === JSON.stringify(all[0]));
        return same && created.every((t) => all[0]!.includes(t)) ? all : undefined;
      });
      expect(views[0]!.filter((t) => t !== 'without-majority')).toEqual([...created].sort());
    } finally {
      await cluster.close();
    }
  }, 120_000);
});
