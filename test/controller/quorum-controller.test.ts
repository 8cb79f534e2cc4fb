import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import type { TopicImage } from '../../host/controller/metadata-image.js';
import { ConfigResourceType } from '../../host/controller/metadata-records.js';
import { AlterConfigOp, PRODUCER_ID_BLOCK_SIZE } from '../../host/controller/quorum-controller.js';
import { ZERO_TOPIC_ID } from '../../host/controller/topic-id.js';
import { restartController, startController } from './controller-fixture.js';

const topic = (name: string, numPartitions = 1, replicationFactor = 1, configs: { name: string; value: string | null }[] = []) =>
  ({ name, numPartitions, replicationFactor, configs });

describe('QuorumController topic creation', () => {
  it('creates a topic with partitions led by the single broker and an id of 32 hex digits', async () => {
    const { controller } = await startController();
    const [result] = await controller.createTopics([topic('orders', 3)]);
    expect(result).toMatchObject({ name: 'orders', errorCode: 0, errorMessage: null, numPartitions: 3, replicationFactor: 1 });
    expect(result!.topicId).toMatch(/^[0-9a-f]{32}$/);
    expect(result!.topicId).not.toBe(ZERO_TOPIC_ID);
    const image = controller.image.topic('orders')!;
    expect(image.topicId).toBe(result!.topicId);
    expect(controller.image.topicById(result!.topicId)).toBe(image);
    expect(image.partitions.map((p) => [p.partitionId, p.leader, p.replicas, p.isr, p.leaderEpoch, p.partitionEpoch]))
      .toEqual([0, 1, 2].map((i) => [i, 1, [1], [1], 0, 0]));
  });

  it('uses num.partitions and default.replication.factor when the request says -1', async () => {
    const { controller } = await startController({ config: { numPartitions: 4 } });
    const [result] = await controller.createTopics([topic('defaults', -1, -1)]);
    expect(result).toMatchObject({ errorCode: 0, numPartitions: 4, replicationFactor: 1 });
    expect(controller.image.topic('defaults')!.partitions).toHaveLength(4);
  });

  it.each([
    ['', 'empty'],
    ['.', '"." or ".."'],
    ['..', '"." or ".."'],
    ['a'.repeat(250), 'longer than 249'],
    ['bad name', 'illegal'],
    ['emoji-\u{1F600}', 'illegal'],
    ['slash/topic', 'illegal'],
  ])('refuses the illegal topic name %j with INVALID_TOPIC_EXCEPTION', async (name, fragment) => {
    const { controller } = await startController();
    const [result] = await controller.createTopics([topic(name)]);
    expect(result!.errorCode).toBe(ErrorCode.INVALID_TOPIC_EXCEPTION);
    expect(result!.errorMessage).toContain(fragment);
    expect(controller.image.topicCount).toBe(0);
  });

  it('accepts names of letters, digits, dot, underscore and dash up to 249 characters', async () => {
    const { controller } = await startController();
    const names = ['a', 'A.b_c-9', 'x'.repeat(249), '__consumer_offsets'];
    const results = await controller.createTopics(names.map((n) => topic(n)));
    expect(results.map((r) => r.errorCode)).toEqual([0, 0, 0, 0]);
  });

  it('refuses a name that collides with an existing topic once dots and underscores are unified', async () => {
    const { controller } = await startController();
    await controller.createTopics([topic('metrics.cpu')]);
    const [result] = await controller.createTopics([topic('metrics_cpu')]);
    expect(result).toMatchObject({ errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION });
    expect(result!.errorMessage).toContain('collides with existing topic: metrics.cpu');
    const [sameRequest] = (await controller.createTopics([topic('a.b'), topic('a_b')])).slice(1);
    expect(sameRequest!.errorCode).toBe(ErrorCode.INVALID_TOPIC_EXCEPTION);
  });

  it('answers TOPIC_ALREADY_EXISTS for an existing topic and leaves it unchanged', async () => {
    const { controller } = await startController();
    const [first] = await controller.createTopics([topic('t', 2)]);
    const [second] = await controller.createTopics([topic('t', 5)]);
    expect(second).toMatchObject({ errorCode: ErrorCode.TOPIC_ALREADY_EXISTS, errorMessage: "Topic 't' already exists.", topicId: ZERO_TOPIC_ID });
    expect(controller.image.topic('t')!.topicId).toBe(first!.topicId);
    expect(controller.image.topic('t')!.partitions).toHaveLength(2);
  });

  it('answers INVALID_PARTITIONS for zero and negative partition counts', async () => {
    const { controller } = await startController();
    const results = await controller.createTopics([topic('zero', 0), topic('neg', -2)]);
    expect(results.map((r) => r.errorCode)).toEqual([ErrorCode.INVALID_PARTITIONS, ErrorCode.INVALID_PARTITIONS]);
    expect(results[0]!.errorMessage).toBe('Number of partitions was set to an invalid non-positive value.');
  });

  it('answers INVALID_REPLICATION_FACTOR for zero and for more replicas than live brokers', async () => {
    const { controller } = await startController();
    const [zero, three] = await controller.createTopics([topic('zero', 1, 0), topic('three', 1, 3)]);
    expect(zero!.errorCode).toBe(ErrorCode.INVALID_REPLICATION_FACTOR);
    expect(three!.errorCode).toBe(ErrorCode.INVALID_REPLICATION_FACTOR);
    expect(three!.errorMessage).toContain('only 1 broker(s) are registered');
  });

  it('answers INVALID_CONFIG with the config module\'s message for unknown names and bad values', async () => {
    const { controller } = await startController();
    const [unknown, bad, nullValue] = await controller.createTopics([
      topic('u', 1, 1, [{ name: 'retention.msec', value: '1' }]),
      topic('b', 1, 1, [{ name: 'retention.ms', value: 'soon' }]),
      topic('n', 1, 1, [{ name: 'retention.ms', value: null }]),
    ]);
    expect(unknown).toMatchObject({ errorCode: ErrorCode.INVALID_CONFIG });
    expect(unknown!.errorMessage).toContain('retention.msec');
    expect(bad!.errorCode).toBe(ErrorCode.INVALID_CONFIG);
    expect(bad!.errorMessage).toContain('retention.ms');
    expect(nullValue!.errorCode).toBe(ErrorCode.INVALID_CONFIG);
    expect(controller.image.topicCount).toBe(0);
  });

  it('stores valid configs as the topic\'s overrides', async () => {
    const { controller } = await startController();
    const [result] = await controller.createTopics([topic('c', 1, 1, [{ name: 'cleanup.policy', value: 'compact' }, { name: 'retention.ms', value: ' 1000 ' }])]);
    expect(result!.configs).toEqual({ 'cleanup.policy': 'compact', 'retention.ms': '1000' });
    expect([...controller.image.topicConfigs('c')]).toEqual([['cleanup.policy', 'compact'], ['retention.ms', '1000']]);
  });

  it('answers INVALID_REQUEST for a name given twice in one request and for __cluster_metadata', async () => {
    const { controller } = await startController();
    const results = await controller.createTopics([topic('twice'), topic('twice'), topic('__cluster_metadata')]);
    expect(results.map((r) => r.errorCode)).toEqual([ErrorCode.INVALID_REQUEST, ErrorCode.INVALID_REQUEST, ErrorCode.INVALID_REQUEST]);
    expect(controller.image.topicCount).toBe(0);
  });

  it('validates without writing anything when validateOnly is set', async () => {
    const { controller, log } = await startController();
    const before = log.endOffset();
    const [ok, bad] = await controller.createTopics([topic('v', 3), topic('w', 0)], { validateOnly: true });
    expect(ok).toMatchObject({ errorCode: 0, numPartitions: 3, topicId: ZERO_TOPIC_ID });
    expect(bad!.errorCode).toBe(ErrorCode.INVALID_PARTITIONS);
    expect(log.endOffset()).toBe(before);
    expect(controller.image.topic('v')).toBeUndefined();
  });

  it('commits all topics of one request as one metadata batch', async () => {
    const { controller, log } = await startController();
    const batches = log.batchBaseOffsets.length;
    await controller.createTopics([topic('one', 2), topic('two', 3)]);
    expect(log.batchBaseOffsets.length).toBe(batches + 1);
  });

  it('places replicas round-robin across brokers with distinct replicas and spread leaders', async () => {
    const { controller } = await startController({ brokers: [1, 2, 3] });
    const [result] = await controller.createTopics([topic('spread', 6, 3)]);
    expect(result!.errorCode).toBe(0);
    const partitions = controller.image.topic('spread')!.partitions;
    for (const p of partitions) {
      expect(new Set(p.replicas).size).toBe(3);
      expect(p.leader).toBe(p.replicas[0]);
      expect([...p.isr].sort()).toEqual([1, 2, 3]);
    }
    const leaders = partitions.map((p) => p.leader);
    expect([1, 2, 3].map((b) => leaders.filter((l) => l === b).length)).toEqual([2, 2, 2]);
  });

  it('takes a manual replica assignment and checks it', async () => {
    const { controller } = await startController({ brokers: [1, 2] });
    const manual = (assignments: { partitionIndex: number; brokerIds: number[] }[], numPartitions = -1) =>
      ({ name: `m${Math.random().toString(36).slice(2)}`, numPartitions, replicationFactor: -1, assignments });
    const [ok] = await controller.createTopics([{ ...manual([{ partitionIndex: 1, brokerIds: [1, 2] }, { partitionIndex: 0, brokerIds: [2, 1] }]), name: 'manual' }]);
    expect(ok!.errorCode).toBe(0);
    expect(controller.image.topic('manual')!.partitions.map((p) => p.replicas)).toEqual([[2, 1], [1, 2]]);
    const errors = (await controller.createTopics([
      manual([{ partitionIndex: 0, brokerIds: [1] }], 1),
      manual([{ partitionIndex: 1, brokerIds: [1] }]),
      manual([{ partitionIndex: 0, brokerIds: [1, 1] }]),
      manual([{ partitionIndex: 0, brokerIds: [9] }]),
      manual([{ partitionIndex: 0, brokerIds: [1] }, { partitionIndex: 1, brokerIds: [1, 2] }]),
    ])).map((r) => r.errorCode);
    expect(errors).toEqual([
      ErrorCode.INVALID_REQUEST, ErrorCode.INVALID_REPLICA_ASSIGNMENT, ErrorCode.INVALID_REPLICA_ASSIGNMENT,
      ErrorCode.INVALID_REPLICA_ASSIGNMENT, ErrorCode.INVALID_REPLICA_ASSIGNMENT,
    ]);
  });
});

describe('QuorumController topic deletion', () => {
  it('deletes a topic with its configs, and a re-created topic gets a new id', async () => {
    const { controller } = await startController();
    const [created] = await controller.createTopics([topic('again', 2, 1, [{ name: 'retention.ms', value: '5' }])]);
    const [deleted] = await controller.deleteTopics(['again']);
    expect(deleted).toMatchObject({ name: 'again', errorCode: 0, topicId: created!.topicId });
    expect(controller.image.topic('again')).toBeUndefined();
    expect(controller.image.topicById(created!.topicId)).toBeUndefined();
    expect(controller.image.topicConfigs('again').size).toBe(0);
    const [recreated] = await controller.createTopics([topic('again', 1)]);
    expect(recreated!.errorCode).toBe(0);
    expect(recreated!.topicId).not.toBe(created!.topicId);
    expect(controller.image.topic('again')!.partitions).toHaveLength(1);
  });

  it('answers UNKNOWN_TOPIC_OR_PARTITION for a topic that does not exist', async () => {
    const { controller } = await startController();
    const [result] = await controller.deleteTopics(['missing']);
    expect(result).toMatchObject({ errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, topicId: ZERO_TOPIC_ID });
  });

  it('answers TOPIC_DELETION_DISABLED when delete.topic.enable is false', async () => {
    const { controller } = await startController({ config: { deleteTopicEnable: false } });
    await controller.createTopics([topic('kept')]);
    const [result] = await controller.deleteTopics(['kept']);
    expect(result!.errorCode).toBe(ErrorCode.TOPIC_DELETION_DISABLED);
    expect(controller.image.topic('kept')).toBeDefined();
  });
});

describe('QuorumController partition creation', () => {
  it('adds partitions to a topic and keeps the existing ones', async () => {
    const { controller } = await startController();
    await controller.createTopics([topic('grow', 2)]);
    const before = controller.image.topic('grow')!;
    const [result] = await controller.createPartitions([{ name: 'grow', count: 5 }]);
    expect(result).toMatchObject({ name: 'grow', errorCode: 0 });
    const after = controller.image.topic('grow')!;
    expect(after.partitions).toHaveLength(5);
    expect(after.partitions[0]).toBe(before.partitions[0]);
    expect(after.partitions[4]).toMatchObject({ partitionId: 4, leader: 1, isr: [1], leaderEpoch: 0 });
    expect(before.partitions).toHaveLength(2);
  });

  it('answers INVALID_PARTITIONS when the count does not increase', async () => {
    const { controller } = await startController();
    await controller.createTopics([topic('fixed', 3)]);
    const [same, fewer] = [
      (await controller.createPartitions([{ name: 'fixed', count: 3 }]))[0]!,
      (await controller.createPartitions([{ name: 'fixed', count: 2 }]))[0]!,
    ];
    expect(same).toMatchObject({ errorCode: ErrorCode.INVALID_PARTITIONS, errorMessage: 'Topic already has 3 partition(s).' });
    expect(fewer.errorCode).toBe(ErrorCode.INVALID_PARTITIONS);
    expect(fewer.errorMessage).toContain('would not be an increase');
  });

  it('answers UNKNOWN_TOPIC_OR_PARTITION for a missing topic and checks manual assignments', async () => {
    const { controller } = await startController();
    await controller.createTopics([topic('t', 1)]);
    const results = await controller.createPartitions([
      { name: 'missing', count: 2 },
      { name: 't', count: 3, assignments: [{ brokerIds: [1] }] },
    ]);
    expect(results.map((r) => r.errorCode)).toEqual([ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.INVALID_REPLICA_ASSIGNMENT]);
  });

  it('writes nothing when validateOnly is set', async () => {
    const { controller } = await startController();
    await controller.createTopics([topic('t', 1)]);
    const [result] = await controller.createPartitions([{ name: 't', count: 4 }], { validateOnly: true });
    expect(result!.errorCode).toBe(0);
    expect(controller.image.topic('t')!.partitions).toHaveLength(1);
  });
});

describe('QuorumController configs', () => {
  it('replaces a topic\'s overrides on AlterConfigs: given keys set, others back to default', async () => {
    const { controller } = await startController();
    await controller.createTopics([topic('cfg', 1, 1, [{ name: 'retention.ms', value: '1000' }, { name: 'segment.bytes', value: '100000' }])]);
    const [result] = await controller.alterConfigs([{
      resourceType: ConfigResourceType.TOPIC, resourceName: 'cfg',
      configs: [{ name: 'retention.ms', value: '2000' }, { name: 'cleanup.policy', value: 'compact,delete' }],
    }]);
    expect(result).toMatchObject({ errorCode: 0, resourceType: 2, resourceName: 'cfg' });
    expect(Object.fromEntries(controller.image.topicConfigs('cfg'))).toEqual({ 'retention.ms': '2000', 'cleanup.policy': 'compact,delete' });
  });

  it('refuses invalid topic configs and unknown topics without changing anything', async () => {
    const { controller } = await startController();
    await controller.createTopics([topic('cfg', 1, 1, [{ name: 'retention.ms', value: '1000' }])]);
    const [bad, missing] = await controller.alterConfigs([
      { resourceType: ConfigResourceType.TOPIC, resourceName: 'cfg', configs: [{ name: 'retention.ms', value: '-5' }] },
      { resourceType: ConfigResourceType.TOPIC, resourceName: 'nope', configs: [] },
    ]);
    expect(bad!.errorCode).toBe(ErrorCode.INVALID_CONFIG);
    expect(missing!.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    expect(Object.fromEntries(controller.image.topicConfigs('cfg'))).toEqual({ 'retention.ms': '1000' });
  });

  it('stores dynamic broker configs as ConfigRecords, refusing the static ones, typos and unsupported resource types as Kafka does', async () => {
    const { controller } = await startController();
    const results = await controller.alterConfigs([
      { resourceType: ConfigResourceType.BROKER, resourceName: '1', configs: [{ name: 'log.retention.ms', value: '1000' }, { name: 'sasl.kerberos.min.time.before.relogin', value: '30000' }] },
      { resourceType: ConfigResourceType.BROKER, resourceName: '', configs: [{ name: 'log.cleaner.backoff.ms', value: '500' }] },
      { resourceType: ConfigResourceType.BROKER, resourceName: 'x', configs: [] },
      { resourceType: ConfigResourceType.BROKER, resourceName: '7', configs: [] },
      { resourceType: ConfigResourceType.BROKER_LOGGER, resourceName: '1', configs: [] },
      { resourceType: ConfigResourceType.TOPIC, resourceName: 'dup', configs: [] },
      { resourceType: ConfigResourceType.TOPIC, resourceName: 'dup', configs: [] },
    ]);
    expect(results.map((r) => r.errorCode)).toEqual([
      ErrorCode.NONE, ErrorCode.NONE, ErrorCode.INVALID_REQUEST, ErrorCode.INVALID_REQUEST, ErrorCode.INVALID_REQUEST,
      ErrorCode.INVALID_REQUEST, ErrorCode.INVALID_REQUEST,
    ]);
    expect(Object.fromEntries(controller.image.brokerConfigs('1'))).toEqual({ 'log.retention.ms': '1000', 'sasl.kerberos.min.time.before.relogin': '30000' });
    expect(Object.fromEntries(controller.image.brokerConfigs(''))).toEqual({ 'log.cleaner.backoff.ms': '500' });

    const refused = [];
    for (const [resourceName, name, value] of [
      ['1', 'log.retention.hours', '1'], ['', 'no.such.config', '1'], ['', 'sasl.enabled.mechanisms', 'PLAIN'],
      ['1', 'ssl.keystore.location', '/x'], ['1', 'log.segment.bytes', 'big'],
    ] as const) {
      const configs = name === 'log.retention.hours' ? [{ name, value }, { name: 'node.id', value: '2' }] : [{ name, value }];
      refused.push((await controller.alterConfigs([{ resourceType: ConfigResourceType.BROKER, resourceName, configs }]))[0]!);
    }
    expect(refused.map((r) => [r.errorCode, r.errorMessage])).toEqual([
      [ErrorCode.INVALID_REQUEST, 'Cannot update these configs dynamically: log.retention.hours, node.id'],
      [ErrorCode.INVALID_CONFIG, expect.stringContaining('Unknown broker config name: no.such.config')],
      [ErrorCode.INVALID_REQUEST, 'Cannot update these configs at default cluster level, broker id must be specified: sasl.enabled.mechanisms'],
      [ErrorCode.INVALID_REQUEST, 'These security configs can be dynamically updated only per-listener using the listener prefix: ssl.keystore.location'],
      [ErrorCode.INVALID_REQUEST, expect.stringContaining('Invalid value "big" for config log.segment.bytes')],
    ]);
    // Legacy AlterConfigs replaces the resource's configs: an empty list removes them all.
    expect((await controller.alterConfigs([{ resourceType: ConfigResourceType.BROKER, resourceName: '', configs: [] }]))[0]!.errorCode).toBe(0);
    expect(controller.image.brokerConfigs('').size).toBe(0);
  });

  it('changes single dynamic broker configs with IncrementalAlterConfigs', async () => {
    const { controller } = await startController();
    await controller.incrementalAlterConfigs([{ resourceType: ConfigResourceType.BROKER, resourceName: '', configs: [
      { name: 'log.retention.ms', configOperation: AlterConfigOp.SET, value: '5000' },
      { name: 'log.cleanup.policy', configOperation: AlterConfigOp.APPEND, value: 'compact' },
    ] }]);
    expect(Object.fromEntries(controller.image.brokerConfigs(''))).toEqual({ 'log.retention.ms': '5000', 'log.cleanup.policy': 'delete,compact' });
    const [deleted] = await controller.incrementalAlterConfigs([{ resourceType: ConfigResourceType.BROKER, resourceName: '',
      configs: [{ name: 'log.retention.ms', configOperation: AlterConfigOp.DELETE, value: null }] }]);
    expect(deleted!.errorCode).toBe(0);
    expect(Object.fromEntries(controller.image.brokerConfigs(''))).toEqual({ 'log.cleanup.policy': 'delete,compact' });
  });
});

describe('QuorumController incremental configs', () => {
  it('sets, deletes, appends to and subtracts from a topic\'s overrides and keeps the others', async () => {
    const { controller } = await startController();
    await controller.createTopics([topic('inc', 1, 1, [{ name: 'retention.ms', value: '1000' }, { name: 'segment.bytes', value: '100000' }])]);
    const [result] = await controller.incrementalAlterConfigs([{
      resourceType: ConfigResourceType.TOPIC, resourceName: 'inc', configs: [
        { name: 'retention.ms', configOperation: AlterConfigOp.DELETE, value: null },
        { name: 'max.message.bytes', configOperation: AlterConfigOp.SET, value: '2000' },
        { name: 'cleanup.policy', configOperation: AlterConfigOp.APPEND, value: 'compact' },
      ],
    }]);
    expect(result!.errorCode).toBe(0);
    expect(Object.fromEntries(controller.image.topicConfigs('inc'))).toEqual({
      'segment.bytes': '100000', 'max.message.bytes': '2000', 'cleanup.policy': 'delete,compact',
    });
    await controller.incrementalAlterConfigs([{
      resourceType: ConfigResourceType.TOPIC, resourceName: 'inc',
      configs: [{ name: 'cleanup.policy', configOperation: AlterConfigOp.SUBTRACT, value: 'delete' }],
    }]);
    expect(controller.image.topicConfigs('inc').get('cleanup.policy')).toBe('compact');
  });

  it('refuses APPEND to a non-list config, bad values, unknown operations and configs named twice', async () => {
    const { controller } = await startController();
    await controller.createTopics([topic('inc')]);
    const alter = async (configs: { name: string; configOperation: number; value: string | null }[]) =>
      (await controller.incrementalAlterConfigs([{ resourceType: ConfigResourceType.TOPIC, resourceName: 'inc', configs }]))[0]!.errorCode;
    expect(await alter([{ name: 'retention.ms', configOperation: AlterConfigOp.APPEND, value: '5' }])).toBe(ErrorCode.INVALID_CONFIG);
    expect(await alter([{ name: 'retention.ms', configOperation: AlterConfigOp.SET, value: 'x' }])).toBe(ErrorCode.INVALID_CONFIG);
    expect(await alter([{ name: 'cleanup.policy', configOperation: AlterConfigOp.SUBTRACT, value: 'delete' }])).toBe(ErrorCode.INVALID_CONFIG);
    expect(await alter([{ name: 'retention.ms', configOperation: 9, value: '5' }])).toBe(ErrorCode.INVALID_REQUEST);
    expect(await alter([
      { name: 'retention.ms', configOperation: AlterConfigOp.SET, value: '5' },
      { name: 'retention.ms', configOperation: AlterConfigOp.DELETE, value: null },
    ])).toBe(ErrorCode.INVALID_REQUEST);
    expect(controller.image.topicConfigs('inc').size).toBe(0);
  });
});

describe('QuorumController producer ids and brokers', () => {
  it('hands out blocks of 1000 producer ids that never repeat, also after a restart', async () => {
    const { controller, log } = await startController();
    const epoch = controller.image.broker(1)!.brokerEpoch;
    const first = await controller.allocateProducerIds(1, epoch);
    const second = await controller.allocateProducerIds(1, epoch);
    expect(first).toMatchObject({ errorCode: 0, producerIdStart: 0, producerIdLen: PRODUCER_ID_BLOCK_SIZE });
    expect(second.producerIdStart).toBe(PRODUCER_ID_BLOCK_SIZE);
    const restarted = restartController(log);
    const registered = await restarted.registerBroker({ brokerId: 1, endpoints: [] });
    const third = await restarted.allocateProducerIds(1, registered.brokerEpoch);
    expect(third.producerIdStart).toBe(2 * PRODUCER_ID_BLOCK_SIZE);
  });

  it('answers STALE_BROKER_EPOCH for producer ids asked with an old epoch or an unknown broker', async () => {
    const { controller } = await startController();
    const old = controller.image.broker(1)!.brokerEpoch;
    await controller.registerBroker({ brokerId: 1, endpoints: [] });
    expect((await controller.allocateProducerIds(1, old)).errorCode).toBe(ErrorCode.STALE_BROKER_EPOCH);
    expect((await controller.allocateProducerIds(7, 0)).errorCode).toBe(ErrorCode.STALE_BROKER_EPOCH);
  });

  it('registers a broker with its endpoints and the record offset as its epoch', async () => {
    const { controller, log } = await startController({ brokers: [] });
    const offset = log.endOffset();
    const result = await controller.registerBroker({
      brokerId: 3, rack: 'r1', incarnationId: 'ab'.repeat(16),
      endpoints: [{ name: 'PLAINTEXT', host: 'localhost', port: 9092, securityProtocol: 0 }],
    });
    expect(result).toEqual({ errorCode: 0, errorMessage: null, brokerEpoch: offset });
    expect(controller.image.broker(3)).toEqual({
      brokerId: 3, brokerEpoch: offset, incarnationId: 'ab'.repeat(16), rack: 'r1', fenced: false, inControlledShutdown: false,
      endpoints: [{ name: 'PLAINTEXT', host: 'localhost', port: 9092, securityProtocol: 0 }],
    });
    expect(controller.image.usableBrokerIds()).toEqual([3]);
  });

  it('refuses topics while the only broker is fenced and elects it again when unfenced', async () => {
    const { controller } = await startController();
    await controller.createTopics([topic('t', 2)]);
    const epoch = controller.image.broker(1)!.brokerEpoch;
    expect((await controller.fenceBroker(1, epoch)).errorCode).toBe(0);
    expect(controller.image.topic('t')!.partitions.map((p) => [p.leader, p.isr, p.leaderEpoch])).toEqual([[-1, [1], 1], [-1, [1], 1]]);
    expect((await controller.createTopics([topic('u')]))[0]!.errorCode).toBe(ErrorCode.INVALID_REPLICATION_FACTOR);
    expect((await controller.unfenceBroker(1, epoch)).errorCode).toBe(0);
    expect(controller.image.topic('t')!.partitions.map((p) => [p.leader, p.leaderEpoch, p.partitionEpoch])).toEqual([[1, 2, 2], [1, 2, 2]]);
  });
});

describe('QuorumController with several brokers', () => {
  it('moves leadership to another ISR member when the leader is fenced, and shrinks the ISR', async () => {
    const { controller } = await startController({ brokers: [1, 2] });
    await controller.createTopics([{ name: 'r', numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: [1, 2] }] }]);
    const heard: [number, boolean | undefined][] = [];
    controller.addListener({ onBrokerChanged: (id, registration) => heard.push([id, registration?.fenced]) });
    expect((await controller.fenceBroker(1, controller.image.broker(1)!.brokerEpoch)).errorCode).toBe(0);
    expect(controller.image.partition('r', 0)).toMatchObject({ leader: 2, isr: [2], leaderEpoch: 1, partitionEpoch: 1 });
    expect(heard).toEqual([[1, true]]);
  });

  it('moves leadership away from a broker that re-registers fenced or unregisters', async () => {
    const { controller } = await startController({ brokers: [1, 2] });
    await controller.createTopics([{ name: 'r', numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: [1, 2] }, { partitionIndex: 1, brokerIds: [2, 1] }] }]);
    await controller.registerBroker({ brokerId: 1, endpoints: [], fenced: true });
    expect(controller.image.partition('r', 0)).toMatchObject({ leader: 2, isr: [2] });
    expect((await controller.unregisterBroker(2)).errorCode).toBe(0);
    expect(controller.image.broker(2)).toBeUndefined();
    expect(controller.image.partition('r', 1)).toMatchObject({ leader: -1, isr: [2] });
    expect((await controller.unregisterBroker(2)).errorCode).toBe(ErrorCode.BROKER_ID_NOT_REGISTERED);
  });
});

describe('QuorumController listeners', () => {
  it('tells listeners about created, grown, reconfigured and deleted topics in order', async () => {
    const { controller } = await startController();
    const events: string[] = [];
    const name = (t: TopicImage) => `${t.name}/${t.partitions.length}`;
    controller.addListener({
      onTopicCreated: (t) => events.push(`created ${name(t)}`),
      onTopicDeleted: (t) => events.push(`deleted ${name(t)}`),
      onPartitionsChanged: (t, change) => events.push(`partitions ${name(t)} from ${change.previousPartitionCount} [${change.changedPartitionIds.join(',')}]`),
      onConfigChanged: (r, configs) => events.push(`config ${r.type}:${r.name} ${JSON.stringify(Object.fromEntries(configs))}`),
    });
    await controller.createTopics([topic('a', 1, 1, [{ name: 'retention.ms', value: '9' }])]);
    await controller.createPartitions([{ name: 'a', count: 3 }]);
    await controller.alterConfigs([{ resourceType: 2, resourceName: 'a', configs: [] }]);
    await controller.deleteTopics(['a']);
    await controller.createTopics([topic('a', 2)]);
    expect(events).toEqual([
      'created a/1',
      'partitions a/3 from 1 [1,2]',
      'config 2:a {}',
      'deleted a/3',
      'created a/2',
    ]);
  });

  it('rethrows a listener\'s exception after the change is committed and the others were told', async () => {
    const { controller } = await startController();
    const heard: string[] = [];
    controller.addListener({ onTopicCreated: () => { throw new Error('listener bug'); } });
    controller.addListener({ onTopicCreated: (t) => heard.push(t.name) });
    await expect(controller.createTopics([topic('x')])).rejects.toThrow('listener bug');
    expect(heard).toEqual(['x']);
    expect(controller.image.topic('x')).toBeDefined();
  });
});

describe('QuorumController persistence', () => {
  it('rebuilds an identical image by replaying the metadata log', async () => {
    const { controller, log } = await startController({ brokers: [1, 2, 3] });
    await controller.createTopics([topic('a', 3, 2, [{ name: 'retention.ms', value: '100' }]), topic('b', 1, 3)]);
    await controller.createPartitions([{ name: 'a', count: 5 }]);
    await controller.alterConfigs([{ resourceType: 2, resourceName: 'b', configs: [{ name: 'cleanup.policy', value: 'compact' }] }]);
    await controller.deleteTopics(['b']);
    await controller.createTopics([topic('b', 2)]);
    await controller.fenceBroker(2, controller.image.broker(2)!.brokerEpoch);
    await controller.allocateProducerIds(1, controller.image.broker(1)!.brokerEpoch);
    const restarted = restartController(log);
    expect(restarted.image.toJSON()).toEqual(controller.image.toJSON());
    expect(restarted.lastCommittedOffset).toBe(controller.lastCommittedOffset);
  });

  it('answers KAFKA_STORAGE_ERROR once the metadata log fails, and keeps answering it', async () => {
    const { controller, log } = await startController();
    log.failNextAppends = 1;
    const [failed] = await controller.createTopics([topic('lost')]);
    expect(failed!.errorCode).toBe(ErrorCode.KAFKA_STORAGE_ERROR);
    expect(controller.image.topic('lost')).toBeUndefined();
    expect((await controller.createTopics([topic('later')]))[0]!.errorCode).toBe(ErrorCode.KAFKA_STORAGE_ERROR);
    expect(controller.failedReason).not.toBeNull();
  });
});
