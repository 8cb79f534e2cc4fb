/**
 * Produce naming many partitions (issue 15): the append gets the known topics' partitions in the
 * request's turn (appends keep their order), and the answer is built produce.response.max.partitions.per.turn
 * partitions per event-loop turn afterwards: a request naming 12,000 unknown topics is answered in
 * three turns, with the same answer, in request order, as without slicing.
 */
import { describe, expect, it } from 'vitest';
import type { ApiRequestContext } from '../../host/api/api-definition.js';
import { produceApi } from '../../host/api/produce-api.js';
import type { ProduceRequest } from '../../host/protocol/generated/produce.js';
import { buildRecordBatch } from '../../host/record/batch-builder.js';

/** produce.response.max.partitions.per.turn in these tests (the default). */
const PER_TURN = 5_000;
const records = buildRecordBatch({ records: [{ value: 'v', timestamp: 1 }] });

function context(appended: string[], defer?: (task: () => void) => void): ApiRequestContext {
  const metadata = { topic: (name: string) => (name === 'known' ? {} : undefined) };
  const replicaManager = {
    appendRecords: ({ entries }: { entries: { topic: string; partition: number }[] }) => {
      appended.push(...entries.map((entry) => `${entry.topic}-${entry.partition}`));
      return Promise.resolve(entries.map((_, i) => ({ errorCode: 0, baseOffset: i, lastOffset: i, logAppendTimeMs: -1, logStartOffset: 0, appendedBytes: 10 })));
    },
  };
  return {
    apiVersion: 8, apiKey: 0, peer: 'test', correlationId: 1, clientId: 'test', logger: { warn: () => {} },
    broker: { metadata, replicaManager, config: { produceResponseMaxPartitionsPerTurn: PER_TURN }, ...(defer === undefined ? {} : { defer }) },
  } as unknown as ApiRequestContext;
}

const request: ProduceRequest = {
  transactionalId: null, acks: 1, timeoutMs: 1000,
  topicData: [
    ...Array.from({ length: 6_000 }, (_, i) => ({ name: `unknown-${i}`, partitionData: [{ index: 0, records }] })),
    { name: 'known', partitionData: [{ index: 0, records }, { index: 1, records }] },
    ...Array.from({ length: 5_998 }, (_, i) => ({ name: `unknown-b-${i}`, partitionData: [{ index: 0, records }] })),
  ],
};

describe('Produce naming many partitions', () => {
  it('appends in the request\'s turn and answers in slices, one per event-loop turn, what one turn answers', async () => {
    const turns: (() => void)[] = [];
    const appended: string[] = [];
    const sliced = produceApi.handle(request, context(appended, (task) => turns.push(task)));
    expect(appended).toEqual(['known-0', 'known-1']);
    let turnCount = 0;
    for (let i = 0; i < 20 && turns.length === 0; i++) await Promise.resolve();
    while (turns.length > 0) {
      turnCount++;
      turns.shift()!();
      for (let i = 0; i < 20 && turns.length === 0; i++) await Promise.resolve();
    }
    const whole = await produceApi.handle(request, context([]));
    expect(turnCount).toBe(Math.ceil(12_000 / PER_TURN) - 1);
    const answer = await sliced;
    expect(answer).toEqual(whole);
    expect(answer!.responses).toHaveLength(11_999);
    expect(answer!.responses[6_000]).toEqual({ name: 'known', partitionResponses: [
      { index: 0, errorCode: 0, baseOffset: 0, logAppendTimeMs: -1, logStartOffset: 0 },
      { index: 1, errorCode: 0, baseOffset: 1, logAppendTimeMs: -1, logStartOffset: 0 },
    ] });
    expect(answer!.responses[0]!.partitionResponses[0]).toMatchObject({ errorCode: 3, errorMessage: 'topic unknown-0 does not exist' });
  });
});
