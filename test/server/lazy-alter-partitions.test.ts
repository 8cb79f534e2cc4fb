/**
 * LazyAlterPartitionManager: the AlterPartitionManager is imported with the first ISR proposal;
 * proposals made while it loads are sent in one request, in order; after shutdown they answer
 * OPERATION_NOT_ATTEMPTED (55) as the manager's own.
 */
import { describe, expect, it } from 'vitest';
import { ManualTime } from '../../host/io/time.js';
import type { ChannelResult, RemoteApi } from '../../host/network/node-channel.js';
import type { AlterPartitionRequest } from '../../host/protocol/generated/alter-partition.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import type { AlterPartitionItem } from '../../host/replication/alter-partition-sink.js';
import { LazyAlterPartitionManager } from '../../host/server/lazy-alter-partitions.js';

const TOPIC_ID = '0123456789abcdef0123456789abcdef';
const item = (partition: number): AlterPartitionItem => ({ topicId: TOPIC_ID, topic: 't', partition, leaderEpoch: 4, partitionEpoch: 7, newIsr: [2, 3] });

function setUp() {
  const sent: AlterPartitionRequest[] = [];
  const transport = {
    async send<Req, Res>(_nodeId: number, _api: RemoteApi<Req, Res>, _version: number, body: Req): Promise<ChannelResult<Res>> {
      const request = body as unknown as AlterPartitionRequest;
      sent.push(request);
      const answer = {
        throttleTimeMs: 0, errorCode: 0,
        topics: request.topics.map((t) => ({
          topicId: t.topicId,
          partitions: t.partitions.map((p) => ({
            partitionIndex: p.partitionIndex, errorCode: 0, leaderId: 2, leaderEpoch: p.leaderEpoch,
            isr: p.newIsrWithEpochs.map((b) => b.brokerId), partitionEpoch: p.partitionEpoch + 1,
          })),
        })),
      };
      return { kind: 'response', body: answer } as unknown as ChannelResult<Res>;
    },
  };
  let built = 0;
  const failures: unknown[] = [];
  const manager = new LazyAlterPartitionManager(() => {
    built++;
    return { time: new ManualTime(), brokerId: 2, brokerEpoch: () => 40, remote: { transport, activeControllerId: () => 1 } };
  }, (error) => failures.push(error));
  return { manager, sent, built: () => built, failures };
}

describe('LazyAlterPartitionManager', () => {
  it('builds the manager with the first proposal and sends the proposals made while it loaded in one request, in order', async () => {
    const { manager, sent, built } = setUp();
    expect(built()).toBe(0);
    const results = await Promise.all([manager.submit(item(0)), manager.submit(item(1)), manager.submit(item(0))]);
    expect(built()).toBe(1);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.topics[0]!.partitions.map((p) => p.partitionIndex)).toEqual([0, 1]);
    expect(results.map((r) => r.errorCode)).toEqual([0, 0, ErrorCode.OPERATION_NOT_ATTEMPTED]);
    expect(results[0]!.partitionEpoch).toBe(8);
    expect((await manager.submit(item(2))).errorCode).toBe(0);
    expect(built()).toBe(1);
  });

  it('answers OPERATION_NOT_ATTEMPTED after shutdown, also for proposals waiting for the module', async () => {
    const { manager, sent, built } = setUp();
    const waiting = manager.submit(item(0));
    manager.shutdown();
    expect((await waiting).errorCode).toBe(ErrorCode.OPERATION_NOT_ATTEMPTED);
    expect((await manager.submit(item(1))).errorCode).toBe(ErrorCode.OPERATION_NOT_ATTEMPTED);
    expect(built()).toBe(0);
    expect(sent).toEqual([]);
  });
});
