/**
 * Fuzzing the live broker (issue 15), the short run in `npm test`: the campaign's frames
 * (bench/fuzz/fuzz-frames.ts: plausible requests of every served API and version from the schema
 * catalog, as is and mutated, random bodies, unknown keys and versions, lying size prefixes) sent
 * over the campaign's lanes (bench/fuzz/fuzz-lanes.ts) to an in-process broker, between rounds of a
 * well-behaved client that produces and reads back. The broker must answer or close every fuzzed
 * connection, keep the well-behaved client's connection, lose nothing it acknowledged, and never
 * fail a handler (request.failed, error or fatal log lines). Latency is measured by the long
 * campaign (`npm run fuzz`), not here. FUZZ_FRAMES and FUZZ_SEED change the run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiRegistry } from '../../host/api/api-handlers.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { FuzzFrames } from '../../bench/fuzz/fuzz-frames.js';
import { FuzzLanes } from '../../bench/fuzz/fuzz-lanes.js';
import { startTestBroker, type TestBroker } from '../integration/in-process-broker.js';
import { RawKafkaClient } from '../integration/raw-kafka-client.js';
import { batch, createTopic, fetch, fetchRequest, produce, values } from '../integration/requests.js';

const SEED = Number(process.env.FUZZ_SEED ?? 15);
const FRAMES = Number(process.env.FUZZ_FRAMES ?? 600);
/** Frames between two rounds of the well-behaved client. */
const ROUND_EVERY = 50;

describe('Fuzzing every API the broker serves (issue 15)', () => {
  let broker: TestBroker;
  let client: RawKafkaClient;

  beforeAll(async () => {
    broker = await startTestBroker({ 'max.partitions': 2_000, 'log.level': 'warn' }, { captureLogs: true });
    client = await RawKafkaClient.connect(broker.broker.port);
    expect(await createTopic(client, 'well-behaved-client-topic', 1)).toBe(ErrorCode.NONE);
  });
  afterAll(async () => {
    client.close();
    await broker.close();
  });

  it(`survives ${FRAMES} fuzzed frames (seed ${SEED}) while a well-behaved client keeps producing and fetching, losing nothing`, async () => {
    const frames = new FuzzFrames(SEED, createApiRegistry().apiVersions());
    const options = { host: '127.0.0.1', port: broker.broker.port, lanes: 4, answerWaitMs: 300, rate: 0 };
    const acknowledged: { offset: number; value: string }[] = [];
    const wellBehaved = async (round: number): Promise<void> => {
      const value = `good-${round}`;
      const produced = await produce(client, 7, [{ topic: 'well-behaved-client-topic', partition: 0, records: batch([value]) }], { acks: -1 });
      const partition = produced.responses[0]!.partitionResponses[0]!;
      expect(partition.errorCode, `SEED=${SEED} round ${round}`).toBe(ErrorCode.NONE);
      acknowledged.push({ offset: Number(partition.baseOffset), value });
      const fetched = await fetch(client, 11, fetchRequest([{ topic: 'well-behaved-client-topic', partition: 0, fetchOffset: Number(partition.baseOffset) }]));
      expect(values(fetched.responses[0]!.partitions[0]!.records)[0], `SEED=${SEED} round ${round}`).toBe(value);
    };
    const outcomes = { sent: 0, answered: 0, closed: 0, unanswered: 0, refused: 0 };
    for (let from = 0; from < FRAMES; from += ROUND_EVERY) {
      const counts = await new FuzzLanes(frames, options, from, Math.min(FRAMES, from + ROUND_EVERY)).run();
      for (const key of Object.keys(outcomes) as (keyof typeof outcomes)[]) outcomes[key] += counts[key];
      await wellBehaved(from);
    }
    await wellBehaved(FRAMES);
    // Nothing acknowledged was lost: every record is still at its offset.
    const all = await fetch(client, 11, fetchRequest([{ topic: 'well-behaved-client-topic', partition: 0, fetchOffset: 0 }]));
    const stored = values(all.responses[0]!.partitions[0]!.records);
    for (const { offset, value } of acknowledged) expect(stored[offset], `SEED=${SEED}`).toBe(value);
    expect(client.isClosed).toBe(false);
    // A handler that throws is a bug (the dispatcher answers UNKNOWN_SERVER_ERROR or closes): none.
    const bugs = broker.logLines.filter((line) => line.event === 'request.failed' || line.level === 50 || line.level === 60);
    expect(bugs.map((line) => `${String(line.api)}: ${String(line.msg)} ${JSON.stringify(line.err ?? '')}`.slice(0, 300)), `SEED=${SEED}`).toEqual([]);
    expect(outcomes.sent, `SEED=${SEED}`).toBe(FRAMES);
    expect(outcomes.refused).toBe(0);
    // Most fuzzed frames are answered (often with an error) or refused by closing; a few are long polls we drop.
    expect(outcomes.answered + outcomes.closed).toBeGreaterThan(FRAMES / 2);
  });
});
