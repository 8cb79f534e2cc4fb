/**
 * AlterPartitionManager against a scripted transport on a ManualTime, and against a real
 * QuorumController in-process: batching of one turn's proposals, one pending proposal per
 * partition, retries with backoff on NOT_CONTROLLER (41), disconnects and timeouts following the
 * active controller, answers per partition, shutdown.
 */
import { describe, expect, it } from 'vitest';
import { ManualTime } from '../../host/io/time.js';
import type { ChannelResult, RemoteApi } from '../../host/network/node-channel.js';
import type { AlterPartitionRequest, AlterPartitionResponseInit } from '../../host/protocol/generated/alter-partition.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import type { AlterPartitionItem, AlterPartitionResult } from '../../host/replication/alter-partition-sink.js';
import { AlterPartitionManager } from '../../host/replication/alter-partition-manager.js';
import { startController } from '../controller/controller-fixture.js';

const TOPIC_ID = '0123456789abcdef0123456789abcdef';

interface Sent { at: number; nodeId: number; body: AlterPartitionRequest }
type Answer = (sent: Sent) => ChannelResult<AlterPartitionResponseInit> | Promise<ChannelResult<AlterPartitionResponseInit>>;

/** The controller's success for every partition of `body`: the proposed ISR, partition epoch + 1. */
function accept(body: AlterPartitionRequest, topLevel = 0): ChannelResult<AlterPartitionResponseInit> {
  return {
    kind: 'response',
    body: {
      throttleTimeMs: 0, errorCode: topLevel,
      topics: body.topics.map((t) => ({
        topicId: t.topicId,
        partitions: t.partitions.map((p) => ({
          partitionIndex: p.partitionIndex, errorCode: 0, leaderId: body.brokerId, leaderEpoch: p.leaderEpoch,
          isr: p.newIsrWithEpochs.map((b) => b.brokerId), partitionEpoch: p.partitionEpoch + 1,
        })),
      })),
    },
  };
}

function setUp(answer: Answer) {
  const time = new ManualTime();
  const sent: Sent[] = [];
  let controllerId = 1;
  const transport = {
    async send<Req, Res>(nodeId: number, api: RemoteApi<Req, Res>, _version: number, body: Req): Promise<ChannelResult<Res>> {
      expect(api.name).toBe('AlterPartition');
      const entry: Sent = { at: time.monotonicMs(), nodeId, body: body as unknown as AlterPartitionRequest };
      sent.push(entry);
      return (await answer(entry)) as unknown as ChannelResult<Res>;
    },
  };
  const retries: string[] = [];
  const manager = new AlterPartitionManager({
    time, brokerId: 2, brokerEpoch: () => 40, remote: { transport, activeControllerId: () => controllerId },
    retryBackoffMs: 50, retryBackoffMaxMs: 400, onRetry: (reason) => retries.push(reason),
  });
  return { time, sent, manager, retries, setController: (id: number) => { controllerId = id; } };
}

const item = (partition: number, newIsr: number[] = [2, 3]): AlterPartitionItem =>
  ({ topicId: TOPIC_ID, topic: 't', partition, leaderEpoch: 4, partitionEpoch: 7, newIsr });

/** Advances `ms` one millisecond at a time, letting promise chains run in between. */
async function run(time: ManualTime, ms: number): Promise<void> {
  for (let t = 0; t < ms; t++) {
    time.advance(1);
    for (let i = 0; i < 10; i++) await Promise.resolve();
  }
}

async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

describe('AlterPartitionManager', () => {
  it('sends the proposals of one turn as one request (v3, by topic id, with the broker epoch) and resolves each with its partition answer', async () => {
    const { sent, manager } = setUp((s) => accept(s.body));
    const results = Promise.all([manager.submit(item(0)), manager.submit(item(1, [2]))]);
    const [first, second] = await results;
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body).toMatchObject({ brokerId: 2, brokerEpoch: 40, topics: [{ topicId: TOPIC_ID, partitions: [{ partitionIndex: 0 }, { partitionIndex: 1 }] }] });
    expect(sent[0]!.body.topics[0]!.partitions[1]).toMatchObject({ leaderEpoch: 4, partitionEpoch: 7, newIsrWithEpochs: [{ brokerId: 2, brokerEpoch: -1 }] });
    expect(first).toEqual({ errorCode: 0, leaderId: 2, leaderEpoch: 4, partitionEpoch: 8, isr: [2, 3] });
    expect(second).toEqual({ errorCode: 0, leaderId: 2, leaderEpoch: 4, partitionEpoch: 8, isr: [2] });
    expect(manager.pendingCount).toBe(0);
  });

  it('refuses a second proposal for a partition while one is pending (OPERATION_NOT_ATTEMPTED 55); proposals made while a request is in flight go in the next one', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    const { sent, manager } = setUp(async (s) => {
      if (sent.length === 1) await gate;
      return accept(s.body);
    });
    const first = manager.submit(item(0));
    await settle();
    expect(sent).toHaveLength(1);
    expect(await manager.submit(item(0, [2]))).toMatchObject({ errorCode: ErrorCode.OPERATION_NOT_ATTEMPTED });
    const later = manager.submit(item(1));
    await settle();
    expect(sent).toHaveLength(1);
    release();
    expect((await first).errorCode).toBe(0);
    expect((await later).errorCode).toBe(0);
    expect(sent).toHaveLength(2);
    expect(sent[1]!.body.topics[0]!.partitions.map((p) => p.partitionIndex)).toEqual([1]);
  });

  it('retries with backoff on NOT_CONTROLLER (41), a disconnect and a timeout, sending to the controller active at each attempt', async () => {
    const script: ((s: Sent) => ChannelResult<AlterPartitionResponseInit>)[] = [
      (s) => accept(s.body, ErrorCode.NOT_CONTROLLER),
      () => ({ kind: 'disconnected', reason: 'connection refused' }),
      () => ({ kind: 'timeout' }),
      (s) => accept(s.body),
    ];
    const { time, sent, manager, retries, setController } = setUp((s) => script[sent.length - 1]!(s));
    let result: AlterPartitionResult | undefined;
    void manager.submit(item(0)).then((r) => { result = r; });
    await settle();
    expect(sent.map((s) => s.nodeId)).toEqual([1]);
    setController(3);
    await run(time, 49);
    expect(sent).toHaveLength(1);
    await run(time, 1);
    expect(sent.map((s) => [s.nodeId, s.at])).toEqual([[1, 0], [3, 50]]);
    await run(time, 100);
    expect(sent.map((s) => s.at)).toEqual([0, 50, 150]);
    await run(time, 200);
    expect(sent.map((s) => s.at)).toEqual([0, 50, 150, 350]);
    expect(result).toMatchObject({ errorCode: 0, isr: [2, 3] });
    expect(retries).toHaveLength(3);
  });

  it('retries only the partitions answered NOT_CONTROLLER and resolves the others with their errors', async () => {
    const { time, sent, manager } = setUp((s) => {
      const response = accept(s.body) as { kind: 'response'; body: AlterPartitionResponseInit };
      if (sent.length === 1) {
        response.body.topics[0]!.partitions[0]!.errorCode = ErrorCode.NOT_CONTROLLER;
        response.body.topics[0]!.partitions[1]!.errorCode = ErrorCode.INVALID_UPDATE_VERSION;
      }
      return response;
    });
    const retried = manager.submit(item(0));
    const refused = manager.submit(item(1));
    expect(await refused).toMatchObject({ errorCode: ErrorCode.INVALID_UPDATE_VERSION, isr: [] });
    await settle();
    await run(time, 50);
    expect(await retried).toMatchObject({ errorCode: 0 });
    expect(sent[1]!.body.topics[0]!.partitions.map((p) => p.partitionIndex)).toEqual([0]);
  });

  it('waits while no controller is known, and answers OPERATION_NOT_ATTEMPTED (55) to what is pending at shutdown', async () => {
    const { time, sent, manager, setController } = setUp((s) => accept(s.body));
    setController(-1);
    const pending = manager.submit(item(0));
    await run(time, 500);
    expect(sent).toHaveLength(0);
    manager.shutdown();
    expect(await pending).toMatchObject({ errorCode: ErrorCode.OPERATION_NOT_ATTEMPTED });
    expect(await manager.submit(item(1))).toMatchObject({ errorCode: ErrorCode.OPERATION_NOT_ATTEMPTED });
  });

  it('on the embedded single node, proposals go to the local controller and come back with the committed ISR', async () => {
    const { controller } = await startController({ brokers: [1, 2, 3] });
    const [created] = await controller.createTopics([{ name: 't', numPartitions: 1, replicationFactor: 3 }]);
    const partition = controller.image.partition('t', 0)!;
    const manager = new AlterPartitionManager({
      time: new ManualTime(), brokerId: partition.leader, brokerEpoch: () => controller.image.broker(partition.leader)!.brokerEpoch, local: controller,
    });
    const result = await manager.submit({
      topicId: created!.topicId, topic: 't', partition: 0, leaderEpoch: partition.leaderEpoch, partitionEpoch: partition.partitionEpoch, newIsr: [partition.leader],
    });
    expect(result).toEqual({ errorCode: 0, leaderId: partition.leader, leaderEpoch: partition.leaderEpoch, partitionEpoch: partition.partitionEpoch + 1, isr: [partition.leader] });
    expect(controller.image.partition('t', 0)!.isr).toEqual([partition.leader]);
  });
});
