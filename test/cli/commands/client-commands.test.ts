import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admin } from '../../../host/clients/admin.js';
import { Consumer } from '../../../host/clients/consumer.js';
import { Producer } from '../../../host/clients/producer.js';
import { startTestBroker, type TestBroker } from '../../clients/broker-harness.js';
import { runInProcess, startInProcess } from './cli-harness.js';

let broker: TestBroker;
let admin: Admin;
let b: string[];

beforeAll(async () => {
  broker = await startTestBroker();
  admin = new Admin({ bootstrapServers: [broker.bootstrap] });
  b = ['-b', broker.bootstrap];
});

afterAll(async () => {
  await admin?.close();
  await broker?.stop();
});

describe('tributary topic commands', () => {
  it('creates a topic and prints it as a table, or as JSON with --json', async () => {
    const table = await runInProcess(['topic', 'create', 'cli-t1', '-p', '2', ...b]);
    expect(table.codes).toEqual([]);
    expect(table.out).toMatch(/^TOPIC\s+STATUS\s+PARTITIONS\s+REPLICAS\ncli-t1\s+CREATED\s+2\s+1\n$/);
    const json = await runInProcess(['topic', 'create', 'cli-t2', '-p', '1', '-c', 'retention.ms=60000', '--json', ...b]);
    expect(JSON.parse(json.out)).toEqual({ topic: 'cli-t2', status: 'CREATED', partitions: 1, replicationFactor: 1 });
  });

  it('refuses an existing topic with the fix, unless --if-not-exists', async () => {
    await runInProcess(['topic', 'create', 'cli-exists', ...b]);
    const again = await runInProcess(['topic', 'create', 'cli-exists', ...b]);
    expect(again.codes).toEqual([1]);
    expect(again.err).toContain('TOPIC_ALREADY_EXISTS');
    expect(again.err).toContain('fix: pick another name, or add --if-not-exists');
    const tolerant = await runInProcess(['topic', 'create', 'cli-exists', '--if-not-exists', '--json', ...b]);
    expect(JSON.parse(tolerant.out).status).toBe('EXISTS');
  });

  it('lists, describes, alters configs, adds partitions and deletes', async () => {
    await runInProcess(['topic', 'create', 'cli-life', '-p', '1', ...b]);
    const list = await runInProcess(['topic', 'list', '--json', ...b]);
    expect(JSON.parse(list.out)).toContainEqual({ name: 'cli-life', partitions: 1, replicas: 1, internal: false });
    const alter = await runInProcess(['topic', 'alter-config', 'cli-life', '--set', 'retention.ms=5000', '--json', ...b]);
    expect(JSON.parse(alter.out)).toEqual({ topic: 'cli-life', overrides: { 'retention.ms': '5000' } });
    const grow = await runInProcess(['topic', 'add-partitions', 'cli-life', '--num', '2', '--json', ...b]);
    expect(JSON.parse(grow.out)).toEqual({ topic: 'cli-life', previous: 1, partitions: 3 });
    const described = JSON.parse((await runInProcess(['topic', 'describe', 'cli-life', '--json', ...b])).out);
    expect(described[0].partitions).toHaveLength(3);
    expect(described[0].configs['retention.ms']).toEqual({ value: '5000', source: 'DYNAMIC_TOPIC_CONFIG', isDefault: false });
    const human = await runInProcess(['topic', 'describe', 'cli-life', ...b]);
    expect(human.out).toContain('PARTITIONS');
    // Per partition: leader, replicas, ISR and the offline replicas (none on a live single node).
    expect(human.out).toMatch(/PARTITION\s+LEADER\s+EPOCH\s+REPLICAS\s+ISR\s+OFFLINE\s+LOG-START-OFFSET\s+HIGH-WATERMARK/);
    expect(described[0].partitions[0]).toMatchObject({ leader: expect.any(Number), replicas: [expect.any(Number)], isr: [expect.any(Number)], offlineReplicas: [] });
    expect(human.out).toMatch(/retention\.ms\s+5000\s+DYNAMIC_TOPIC_CONFIG/);
    // Every partition already has its preferred leader: nothing to elect, not a failure.
    const elected = await runInProcess(['topic', 'elect-leaders', 'cli-life', ...b]);
    expect(elected.codes).toEqual([]);
    expect(elected.out.match(/cli-life\s+\d+\s+ELECTION_NOT_NEEDED/g)).toHaveLength(3);
    const unknownPartition = await runInProcess(['topic', 'elect-leaders', 'cli-life', '--partition', '7', ...b]);
    expect(unknownPartition.out).toMatch(/cli-life\s+7\s+UNKNOWN_TOPIC_OR_PARTITION/);
    expect(unknownPartition.codes).toEqual([1]);
    const removed = await runInProcess(['topic', 'delete', 'cli-life', 'cli-never-was', ...b]);
    expect(removed.out).toMatch(/cli-life\s+DELETED/);
    expect(removed.out).toMatch(/cli-never-was\s+UNKNOWN_TOPIC_OR_PARTITION/);
    expect(removed.codes).toEqual([1]);
  });

  it('names the unreachable broker and how to fix it', async () => {
    const result = await runInProcess(['topic', 'list', '-b', '127.0.0.1:1']);
    expect(result.codes).toEqual([1]);
    expect(result.err).toContain('no broker reachable at 127.0.0.1:1');
    expect(result.err).toContain('fix: start one (tributary broker)');
    // The README documents --brokers, so the fix names it too.
    expect(result.err).toContain('point --brokers at a running broker, e.g. --brokers 127.0.0.1:9092');
  });
});

describe('tributary partitions commands', () => {
  it('reassigns to the current replica (done at once), refuses unknown brokers and a cancel with nothing moving, and lists no moves', async () => {
    await runInProcess(['topic', 'create', 'cli-move', '-p', '1', ...b]);
    const [described] = await admin.describeTopics({ topics: ['cli-move'] });
    const node = described!.partitions[0]!.replicas[0]!;
    const same = await runInProcess(['partitions', 'reassign', '--topic', 'cli-move', '--partition', '0', '--replicas', `${node}`, '--json', ...b]);
    expect(same.codes).toEqual([]);
    expect(JSON.parse(same.out)).toEqual([{ topic: 'cli-move', partition: 0, replicas: [node], status: 'REASSIGNING', message: null }]);
    const unknown = await runInProcess(['partitions', 'reassign', '-t', 'cli-move', '-p', '0', '-r', `${node},99`, ...b]);
    expect(unknown.codes).toEqual([1]);
    expect(unknown.out).toMatch(/cli-move\s+0\s+\S+\s+INVALID_REPLICA_ASSIGNMENT/);
    expect(unknown.err).toContain('broker 99');
    const cancel = await runInProcess(['partitions', 'reassign', '-t', 'cli-move', '-p', '0', '--cancel', ...b]);
    expect(cancel.codes).toEqual([1]);
    expect(cancel.out).toMatch(/cli-move\s+0\s+-\s+NO_REASSIGNMENT_IN_PROGRESS/);
    expect(cancel.err).toContain('tributary partitions reassignments');
    const usage = await runInProcess(['partitions', 'reassign', '-t', 'cli-move', '-p', '0', ...b]);
    expect(usage.codes).toEqual([2]);
    const listed = await runInProcess(['partitions', 'reassignments', '--json', ...b]);
    expect(JSON.parse(listed.out)).toEqual([]);
    const byTopic = await runInProcess(['partitions', 'reassignments', '-t', 'cli-move', ...b]);
    expect(byTopic.codes).toEqual([]);
  });
});

describe('tributary produce and consume', () => {
  it('produces stdin lines with keys and headers and consumes them in a template format', async () => {
    await admin.createTopics({ topics: [{ topic: 'cli-pc', numPartitions: 1 }] });
    const produced = await runInProcess(['produce', 'cli-pc', '-k', ':', '-H', 'source=cli', '--json', ...b], ['k1:v1', 'k2:v2', 'k3:with:colon']);
    expect(produced.codes).toEqual([]);
    expect(JSON.parse(produced.out).count).toBe(3);
    const consumed = await runInProcess(['consume', 'cli-pc', '--from', 'beginning', '-n', '3', '-f', '%o %k=%v %h\\n', ...b]);
    expect(consumed.codes).toEqual([]);
    expect(consumed.out).toBe('0 k1=v1 source=cli\n1 k2=v2 source=cli\n2 k3=with:colon source=cli\n');
  });

  it('starts at an offset or a timestamp and prints JSON lines', async () => {
    await admin.createTopics({ topics: [{ topic: 'cli-start', numPartitions: 1 }] });
    const producer = new Producer({ bootstrapServers: [broker.bootstrap] });
    await producer.send({ topic: 'cli-start', messages: Array.from({ length: 5 }, (_, i) => ({ value: `v${i}`, timestamp: 10_000 + i })) });
    await producer.close();
    const fromOffset = await runInProcess(['consume', 'cli-start', '--from', 'offset:3', '-n', '2', ...b]);
    expect(fromOffset.out).toBe('v3\nv4\n');
    const fromTime = await runInProcess(['consume', 'cli-start', '--timestamp', '10004', '-n', '1', '--json', ...b]);
    expect(JSON.parse(fromTime.out)).toMatchObject({ topic: 'cli-start', partition: 0, offset: 4, timestamp: 10004, key: null, value: 'v4' });
  });

  it('refuses a line without the key delimiter with exit 2', async () => {
    const result = await runInProcess(['produce', 'cli-pc', '-k', '|', ...b], ['fine|yes', 'no delimiter']);
    expect(result.codes).toEqual([2]);
    expect(result.err).toContain('line 2 has no key delimiter');
  });

  it('stops consuming on interrupt and commits what it printed in a group', async () => {
    await admin.createTopics({ topics: [{ topic: 'cli-int', numPartitions: 1 }] });
    const producer = new Producer({ bootstrapServers: [broker.bootstrap] });
    await producer.send({ topic: 'cli-int', messages: [{ value: 'a' }, { value: 'b' }] });
    await producer.close();
    let stop: () => void = () => {};
    const running = startInProcess(['consume', 'cli-int', '-g', 'cli-int-group', '--from', 'beginning', ...b], [], (s) => { stop = s; });
    const deadline = Date.now() + 20_000;
    while (running.recorded.out !== 'a\nb\n' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    stop();
    const result = await running.done;
    expect(result.out).toBe('a\nb\n');
    expect(await admin.fetchOffsets({ groupId: 'cli-int-group' })).toEqual([{ topic: 'cli-int', partition: 0, offset: 2, metadata: '' }]);
  });
});

describe('tributary group commands', () => {
  it('describes members, assignments, committed offsets and lag, then seeks and deletes an empty group', async () => {
    await admin.createTopics({ topics: [{ topic: 'cli-group', numPartitions: 2 }] });
    const producer = new Producer({ bootstrapServers: [broker.bootstrap] });
    await producer.send({ topic: 'cli-group', messages: Array.from({ length: 10 }, (_, i) => ({ value: `v${i}`, partition: i % 2 })) });
    await producer.close();
    const consumer = new Consumer({ bootstrapServers: [broker.bootstrap], groupId: 'cli-g', autoOffsetReset: 'earliest', heartbeatIntervalMs: 100 });
    consumer.subscribe(['cli-group']);
    let seen = 0;
    while (seen < 10) seen += (await consumer.poll(200)).length;
    await consumer.commitSync([{ topic: 'cli-group', partition: 0, offset: 3 }, { topic: 'cli-group', partition: 1, offset: 5 }]);

    const live = JSON.parse((await runInProcess(['group', 'describe', 'cli-g', '--json', ...b])).out)[0];
    expect(live.state).toBe('Stable');
    expect(live.members).toHaveLength(1);
    expect(live.members[0].assignment).toEqual({ 'cli-group': [0, 1] });
    expect(live.offsets.map((o: { partition: number; committedOffset: number; logEndOffset: number; lag: number }) =>
      [o.partition, o.committedOffset, o.logEndOffset, o.lag])).toEqual([[0, 3, 5, 2], [1, 5, 5, 0]]);
    expect(live.totalLag).toBe(2);
    const human = await runInProcess(['group', 'describe', 'cli-g', ...b]);
    expect(human.out).toMatch(/cli-group\s+0\s+3\s+5\s+2/);

    const busy = await runInProcess(['group', 'seek', 'cli-g', '--to', 'earliest', ...b]);
    expect(busy.codes).toEqual([1]);
    expect(busy.err).toContain('fix: stop the group\'s consumers first');
    await consumer.close();

    const listed = JSON.parse((await runInProcess(['group', 'list', '--json', ...b])).out);
    expect(listed).toContainEqual({ group: 'cli-g', state: 'Empty', protocolType: 'consumer', members: 0 });
    const seek = await runInProcess(['group', 'seek', 'cli-g', '--to', '1', '--json', ...b]);
    expect(JSON.parse(seek.out).offsets).toEqual([
      { topic: 'cli-group', partition: 0, offset: 1 }, { topic: 'cli-group', partition: 1, offset: 1 },
    ]);
    expect((await admin.fetchGroupLag('cli-g')).map((l) => l.lag)).toEqual([4, 4]);
    const deleted = await runInProcess(['group', 'delete', 'cli-g', ...b]);
    expect(deleted.out).toMatch(/cli-g\s+DELETED/);
  });
});

describe('tributary cluster info', () => {
  it('prints the cluster id, the brokers and the one-voter quorum', async () => {
    const human = await runInProcess(['cluster', 'info', ...b]);
    expect(human.codes).toEqual([]);
    expect(human.out).toContain(`CLUSTER ${broker.broker.clusterId}`);
    expect(human.out).toMatch(new RegExp(`127\\.0\\.0\\.1\\s+${broker.broker.port}\\s+-\\s+unfenced\\s+yes`));
    expect(human.out).toMatch(/QUORUM leader 1, epoch \d+, high watermark \d+, 1 voter, 0 observers/);
    expect(human.out).toMatch(/\n\s*1\s+\d+\s+0\s+-\s+\d+ ms ago\s+Leader\n/);
    const json = JSON.parse((await runInProcess(['cluster', 'info', '--json', ...b])).out);
    expect(json.clusterId).toBe(broker.broker.clusterId);
    expect(json.controllerId).toBe(broker.broker.nodeId);
    expect(json.brokers).toEqual([{ nodeId: broker.broker.nodeId, host: '127.0.0.1', port: broker.broker.port, rack: null, status: 'unfenced', controller: true }]);
    expect(json.quorum).toMatchObject({ leaderId: 1, observers: [], voters: [{ replicaId: 1, lag: 0 }] });
    expect(json.quorum.highWatermark).toBeGreaterThan(0);
    // A single node's partitions are all fully in sync and led.
    expect(human.out).toMatch(/PARTITIONS \d+, under-replicated 0, offline 0/);
    expect(json.partitions).toMatchObject({ underReplicated: [], offline: [] });
  });
});
