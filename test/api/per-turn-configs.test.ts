/**
 * The per-turn bounds of ListOffsets, DeleteRecords and DescribeProducers are configs
 * (list.offsets.max.partitions.per.turn, delete.records.max.partitions.per.turn,
 * describe.producers.max.partitions.per.turn; issue 15): a request naming 10 partitions with a
 * bound of 3 is answered over 4 event-loop turns (3 deferred), the same answer as in one turn.
 */
import { describe, expect, it } from 'vitest';
import type { ApiRequestContext } from '../../host/api/api-definition.js';
import { deleteRecordsApi } from '../../host/api/delete-records-api.js';
import { describeProducersApi } from '../../host/api/describe-producers-api.js';
import { listOffsetsApi } from '../../host/api/list-offsets-api.js';
import { brokerConfigDefs } from '../../host/config/broker-config.js';

const PER_TURN = 3;
const PARTITIONS = 10;

/** A broker whose partitions are all unknown, whose DeleteRecords records each slice's size. */
function context(defer: ((task: () => void) => void) | undefined, deleteSlices: number[]): ApiRequestContext {
  const config = {
    listOffsetsMaxPartitionsPerTurn: PER_TURN,
    deleteRecordsMaxPartitionsPerTurn: PER_TURN,
    describeProducersMaxPartitionsPerTurn: PER_TURN,
  };
  const replicaManager = {
    getPartition: () => undefined,
    deleteRecords: (slice: { partition: number }[]) => {
      deleteSlices.push(slice.length);
      return slice.map((entry) => ({ lowWatermark: entry.partition, errorCode: 0 }));
    },
  };
  const metadata = { topic: () => undefined };
  return {
    apiVersion: 1, apiKey: 0, peer: 'test', correlationId: 1, clientId: 'test', logger: { warn: () => {} },
    broker: { config, replicaManager, metadata, ...(defer === undefined ? {} : { defer }) },
  } as unknown as ApiRequestContext;
}

/** Runs `handle` with held turns; returns its answer and how many turns it deferred. */
async function inTurns<T>(handle: (ctx: ApiRequestContext) => Promise<T>, deleteSlices: number[] = []): Promise<{ answer: T; deferred: number }> {
  const turns: (() => void)[] = [];
  const pending = handle(context((task) => turns.push(task), deleteSlices));
  let deferred = 0;
  for (;;) {
    for (let i = 0; i < 20 && turns.length === 0; i++) await Promise.resolve();
    const next = turns.shift();
    if (next === undefined) break;
    deferred++;
    next();
  }
  return { answer: await pending, deferred };
}

const indexes = Array.from({ length: PARTITIONS }, (_, i) => i);

describe('per-turn configs of the sliced APIs', () => {
  it('ListOffsets looks up list.offsets.max.partitions.per.turn partitions per turn', async () => {
    const request = {
      replicaId: -1, isolationLevel: 0,
      topics: [{ name: 't', partitions: indexes.map((partitionIndex) => ({ partitionIndex, currentLeaderEpoch: -1, timestamp: -1, maxNumOffsets: 1 })) }],
    };
    const { answer, deferred } = await inTurns((ctx) => listOffsetsApi.handle(request as never, ctx) as Promise<unknown>);
    expect(deferred).toBe(Math.ceil(PARTITIONS / PER_TURN) - 1);
    expect(answer).toEqual(await listOffsetsApi.handle(request as never, context(undefined, [])));
  });

  it('DeleteRecords works through delete.records.max.partitions.per.turn partitions per turn', async () => {
    const request = { timeoutMs: 1000, topics: [{ name: 't', partitions: indexes.map((partitionIndex) => ({ partitionIndex, offset: 5 })) }] };
    const slices: number[] = [];
    const { answer, deferred } = await inTurns((ctx) => deleteRecordsApi.handle(request as never, ctx) as Promise<unknown>, slices);
    expect(slices).toEqual([3, 3, 3, 1]);
    expect(deferred).toBe(3);
    expect(answer).toEqual(await deleteRecordsApi.handle(request as never, context(undefined, [])));
  });

  it('DescribeProducers describes describe.producers.max.partitions.per.turn partitions per turn', async () => {
    const request = { topics: [{ name: 't', partitionIndexes: indexes }] };
    const { answer, deferred } = await inTurns((ctx) => describeProducersApi.handle(request as never, ctx) as Promise<unknown>);
    expect(deferred).toBe(3);
    expect(answer).toEqual(await describeProducersApi.handle(request as never, context(undefined, [])));
  });

  it('names each bound in the broker configs with its default', () => {
    const defaults = new Map(brokerConfigDefs().map((def) => [def.name, def.defaultValue]));
    expect(defaults.get('list.offsets.max.partitions.per.turn')).toBe('500');
    expect(defaults.get('delete.records.max.partitions.per.turn')).toBe('64');
    expect(defaults.get('describe.producers.max.partitions.per.turn')).toBe('500');
    expect(defaults.get('describe.groups.max.groups.per.turn')).toBe('500');
    expect(defaults.get('produce.response.max.partitions.per.turn')).toBe('5000');
  });
});
