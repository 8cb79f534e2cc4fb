/**
 * Fuzzing the live broker (issue 15): random and boundary-value request frames of every API and
 * version the broker serves (and some it does not), with valid and lying headers, sent to an
 * in-process broker while a well-behaved client produces and fetches beside them. The broker must
 * never crash, must answer or close each fuzzed connection, and the well-behaved client must keep
 * getting correct answers with nothing acknowledged lost. Frames come from fast-check with a fixed
 * seed (printed on failure: rerun with FUZZ_SEED=...); FUZZ_FRAMES sets how many.
 */
import { connect, type Socket } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiRegistry } from '../../host/api/api-handlers.js';
import { requestHeaderVersion } from '../../host/protocol/headers.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { startTestBroker, type TestBroker } from '../integration/in-process-broker.js';
import { RawKafkaClient } from '../integration/raw-kafka-client.js';
import { batch, createTopic, fetch, fetchRequest, produce, values } from '../integration/requests.js';

const SEED = Number(process.env.FUZZ_SEED ?? 15);
const FRAMES = Number(process.env.FUZZ_FRAMES ?? 300);
/** Frames between two checks of the well-behaved client. */
const CHECK_EVERY = 25;
/** How long a fuzzed frame may go unanswered before its connection is dropped by us (some are long polls). */
const ANSWER_WAIT_MS = 300;

const int32 = (value: number): Uint8Array => {
  const bytes = Buffer.alloc(4);
  bytes.writeInt32BE(value | 0, 0);
  return bytes;
};
const int16 = (value: number): Uint8Array => {
  const bytes = Buffer.alloc(2);
  bytes.writeInt16BE(((value << 16) >> 16), 0);
  return bytes;
};

/** Pieces of a body: random bytes, boundary integers, lying lengths, unterminated varints. */
const bodyPart = fc.oneof(
  fc.uint8Array({ maxLength: 48 }),
  fc.constantFrom(0, -1, 1, 2, 0x7fffffff, -0x80000000, 0xffff, 0x7fff, 1_000_000).map(int32),
  fc.constantFrom(0, -1, 1, 0x7fff, -0x8000, 255).map(int16),
  fc.constantFrom(
    Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0x0f), // uvarint 2^32-1: a lying compact length
    Uint8Array.of(0x80, 0x80, 0x80, 0x80, 0x80, 0x80), // an unterminated varint
    Uint8Array.of(0x00), // compact null
    Uint8Array.of(0x01), // compact empty
  ),
);

interface FuzzFrame {
  readonly apiKey: number;
  readonly apiVersion: number;
  readonly clientId: string | null;
  readonly body: Uint8Array;
  /** Cut the frame to this many bytes (a truncated request), or keep it whole. */
  readonly truncateTo: number | null;
}

function frameArbitrary(served: readonly { apiKey: number; minVersion: number; maxVersion: number }[]): fc.Arbitrary<FuzzFrame> {
  const known = fc.constantFrom(...served).chain((range) => fc.record({
    apiKey: fc.constant(range.apiKey),
    apiVersion: fc.oneof(
      { weight: 8, arbitrary: fc.integer({ min: range.minVersion, max: range.maxVersion }) },
      { weight: 1, arbitrary: fc.constantFrom(range.maxVersion + 1, -1, 0x7fff) },
    ),
  }));
  const unknown = fc.record({ apiKey: fc.constantFrom(-1, 999, 0x7fff, 67, 68), apiVersion: fc.integer({ min: -1, max: 20 }) });
  return fc.record({
    key: fc.oneof({ weight: 12, arbitrary: known }, { weight: 1, arbitrary: unknown }),
    clientId: fc.option(fc.string({ maxLength: 16 }), { nil: null }),
    body: fc.array(bodyPart, { maxLength: 10 }).map((parts) => Buffer.concat(parts)),
    truncateTo: fc.option(fc.nat({ max: 40 }), { nil: null, freq: 5 }),
  }).map(({ key, clientId, body, truncateTo }) => ({ ...key, clientId, body, truncateTo }));
}

/** Header (the version's layout when the API and version are known, else v1) + body, size-prefixed. */
function encodeFrame(frame: FuzzFrame, correlationId: number): Buffer {
  const parts: Uint8Array[] = [int16(frame.apiKey), int16(frame.apiVersion), int32(correlationId)];
  let headerVersion = 1;
  try {
    headerVersion = requestHeaderVersion(frame.apiKey, frame.apiVersion);
  } catch {
    headerVersion = 1;
  }
  if (headerVersion >= 1) {
    if (frame.clientId === null) parts.push(int16(-1));
    else {
      const text = Buffer.from(frame.clientId, 'utf8');
      parts.push(int16(text.length), text);
    }
  }
  if (headerVersion >= 2) parts.push(Uint8Array.of(0));
  parts.push(frame.body);
  let payload = Buffer.concat(parts);
  if (frame.truncateTo !== null) payload = payload.subarray(0, Math.min(payload.length, frame.truncateTo));
  return Buffer.concat([int32(payload.length), payload]);
}

/** Sends one frame on its own connection; resolves with how it ended (never rejects). */
function sendFuzzed(port: number, bytes: Buffer): Promise<'answered' | 'closed' | 'unanswered'> {
  return new Promise((resolve) => {
    const socket: Socket = connect({ host: '127.0.0.1', port });
    let settled = false;
    const settle = (outcome: 'answered' | 'closed' | 'unanswered'): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => settle('unanswered'), ANSWER_WAIT_MS);
    socket.on('connect', () => socket.write(bytes));
    socket.on('data', () => settle('answered'));
    socket.on('error', () => settle('closed'));
    socket.on('close', () => settle('closed'));
  });
}

describe('Fuzzing every API the broker serves (issue 15)', () => {
  let broker: TestBroker;
  let client: RawKafkaClient;

  beforeAll(async () => {
    broker = await startTestBroker({ 'max.partitions': 2_000, 'auto.create.topics.enable': true, 'log.level': 'warn' }, { captureLogs: true });
    client = await RawKafkaClient.connect(broker.broker.port);
    expect(await createTopic(client, 'fuzz-good', 1)).toBe(ErrorCode.NONE);
  });
  afterAll(async () => {
    client.close();
    await broker.close();
  });

  it(`survives ${FRAMES} fuzzed frames (seed ${SEED}) while a well-behaved client keeps producing and fetching, losing nothing`, async () => {
    const served = createApiRegistry().apiVersions();
    const frames = fc.sample(frameArbitrary(served), { seed: SEED, numRuns: FRAMES });
    const outcomes = { answered: 0, closed: 0, unanswered: 0 };
    const acknowledged: { offset: number; value: string }[] = [];
    const wellBehaved = async (round: number): Promise<void> => {
      const value = `good-${round}`;
      const produced = await produce(client, 7, [{ topic: 'fuzz-good', partition: 0, records: batch([value]) }]);
      const partition = produced.responses[0]!.partitionResponses[0]!;
      expect(partition.errorCode, `SEED=${SEED} round ${round}`).toBe(ErrorCode.NONE);
      acknowledged.push({ offset: Number(partition.baseOffset), value });
      const fetched = await fetch(client, 11, fetchRequest([{ topic: 'fuzz-good', partition: 0, fetchOffset: Number(partition.baseOffset) }]));
      expect(values(fetched.responses[0]!.partitions[0]!.records)[0], `SEED=${SEED} round ${round}`).toBe(value);
    };
    for (let i = 0; i < frames.length; i++) {
      const outcome = await sendFuzzed(broker.broker.port, encodeFrame(frames[i]!, i));
      outcomes[outcome]++;
      if (i % CHECK_EVERY === 0) await wellBehaved(i);
    }
    await wellBehaved(frames.length);
    // Nothing acknowledged was lost: every record is still at its offset.
    const all = await fetch(client, 11, fetchRequest([{ topic: 'fuzz-good', partition: 0, fetchOffset: 0 }]));
    const stored = values(all.responses[0]!.partitions[0]!.records);
    for (const { offset, value } of acknowledged) expect(stored[offset], `SEED=${SEED}`).toBe(value);
    expect(client.isClosed).toBe(false);
    // A handler that throws is a bug (the dispatcher answers UNKNOWN_SERVER_ERROR or closes): none.
    const bugs = broker.logLines.filter((line) => line.event === 'request.failed' || line.level === 50 || line.level === 60);
    expect(bugs.map((line) => `${String(line.api)}: ${String(line.msg)} ${JSON.stringify(line.err ?? '')}`.slice(0, 300)), `SEED=${SEED}`).toEqual([]);
    // Most fuzzed frames are refused (closed) or answered with an error; a few are long polls we drop.
    expect(outcomes.answered + outcomes.closed).toBeGreaterThan(frames.length / 2);
  });
});
