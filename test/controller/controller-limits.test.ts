import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_RECORDS_PER_USER_OP } from '../../host/controller/quorum-controller.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { startController } from './controller-fixture.js';

const topic = (name: string, numPartitions: number) => ({ name, numPartitions, replicationFactor: 1 });

describe('Controller limits on one operation (Kafka MAX_RECORDS_PER_USER_OP) and on the cluster (max.partitions)', () => {
  it('refuses a CreateTopics asking for 2^16 partitions with POLICY_VIOLATION naming the limit and its config, creating nothing', async () => {
    const { controller, log } = await startController();
    const before = log.endOffset();
    const [result] = await controller.createTopics([topic('huge', 65_536)]);
    expect(result!.errorCode).toBe(ErrorCode.POLICY_VIOLATION);
    expect(result!.errorMessage).toContain(`limit of ${DEFAULT_MAX_RECORDS_PER_USER_OP}`);
    expect(result!.errorMessage).toContain('controller.max.records.per.user.op');
    expect(controller.image.topic('huge')).toBeUndefined();
    expect(log.endOffset()).toBe(before);
  });

  it('fails every topic of a CreateTopics whose topics together pass the limit, as Kafka\'s bounded record list does', async () => {
    const { controller } = await startController({ config: { controllerMaxRecordsPerUserOp: 100 } });
    const results = await controller.createTopics([topic('a', 60), topic('b', 60)]);
    expect(results.map((r) => r.errorCode)).toEqual([ErrorCode.POLICY_VIOLATION, ErrorCode.POLICY_VIOLATION]);
    expect(controller.image.topicCount).toBe(0);
    // 1 TopicRecord + 98 PartitionRecords = 99 records: within the limit.
    const [fits] = await controller.createTopics([topic('fits', 98)]);
    expect(fits!.errorCode).toBe(ErrorCode.NONE);
  });

  it('refuses a CreatePartitions adding more partitions than the limit, and accepts one within it', async () => {
    const { controller } = await startController({ config: { controllerMaxRecordsPerUserOp: 50 } });
    await controller.createTopics([topic('grow', 1)]);
    const [refused] = await controller.createPartitions([{ name: 'grow', count: 52 }]);
    expect(refused!.errorCode).toBe(ErrorCode.POLICY_VIOLATION);
    expect(refused!.errorMessage).toContain('controller.max.records.per.user.op');
    expect(controller.image.topic('grow')!.partitions).toHaveLength(1);
    const [grown] = await controller.createPartitions([{ name: 'grow', count: 51 }]);
    expect(grown!.errorCode).toBe(ErrorCode.NONE);
    expect(controller.image.topic('grow')!.partitions).toHaveLength(51);
  });

  it('refuses a DeleteTopics naming more topics than the limit', async () => {
    const { controller } = await startController({ config: { controllerMaxRecordsPerUserOp: 2 } });
    await controller.createTopics([topic('x', 1)]);
    const results = await controller.deleteTopics(['x', 'y', 'z']);
    expect(results.map((r) => r.errorCode)).toEqual([ErrorCode.POLICY_VIOLATION, ErrorCode.POLICY_VIOLATION, ErrorCode.POLICY_VIOLATION]);
    expect(controller.image.topic('x')).toBeDefined();
  });

  it('answers INVALID_PARTITIONS naming max.partitions when a topic or a growth would pass the cluster limit', async () => {
    const { controller } = await startController({ config: { maxPartitions: 10 } });
    const [first, second] = await controller.createTopics([topic('six', 6), topic('five', 5)]);
    expect(first!.errorCode).toBe(ErrorCode.NONE);
    expect(second!.errorCode).toBe(ErrorCode.INVALID_PARTITIONS);
    expect(second!.errorMessage).toContain('max.partitions (10)');
    const [grow] = await controller.createPartitions([{ name: 'six', count: 11 }]);
    expect(grow!.errorCode).toBe(ErrorCode.INVALID_PARTITIONS);
    expect(grow!.errorMessage).toContain('max.partitions');
    const [fits] = await controller.createPartitions([{ name: 'six', count: 10 }]);
    expect(fits!.errorCode).toBe(ErrorCode.NONE);
    expect(controller.image.totalPartitionCount).toBe(10);
  });

  it('leaves room for the internal topics: __consumer_offsets and __transaction_state are created in a cluster full of user topics', async () => {
    const { controller } = await startController({ config: { maxPartitions: 10 } });
    expect((await controller.createTopics([topic('full', 10)]))[0]!.errorCode).toBe(ErrorCode.NONE);
    const [offsets, transactions, more] = await controller.createTopics([topic('__consumer_offsets', 50), topic('__transaction_state', 50), topic('more', 1)]);
    expect(offsets!.errorCode).toBe(ErrorCode.NONE);
    expect(transactions!.errorCode).toBe(ErrorCode.NONE);
    expect(more!.errorCode).toBe(ErrorCode.INVALID_PARTITIONS);
    expect(controller.image.totalPartitionCount).toBe(110);
  });
});
