import { connect, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { decodeFetchResponse, encodeFetchRequest, type FetchResponse } from '../../host/protocol/generated/fetch.js';
import { decodeMetadataResponse, encodeMetadataRequest } from '../../host/protocol/generated/metadata.js';
import { decodeProduceResponse, encodeProduceRequest } from '../../host/protocol/generated/produce.js';
import { decodeResponseHeader, encodeRequestHeader } from '../../host/protocol/headers.js';
import { Reader } from '../../host/protocol/reader.js';
import { Writer } from '../../host/protocol/writer.js';
import { buildRecordBatch } from '../../host/record/batch-builder.js';
import { iterateBatches, readBatch } from '../../host/record/records.js';
import { type BrokerProcess, startBrokerProcess } from '../helpers/broker-process.js';

/** Asks `probe` until it says true, at most 500 times, 20 ms apart (a bound against hanging, not a timing assertion). */
async function retry(what: string, probe: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 500; attempt++) {
    if (await probe()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`gave up waiting for ${what}`);
}

const TOPIC = 'unread';
const BATCHES = 16;
/** Fetches of the whole partition the stalled client sends and does not read. */
const STALLED_FETCHES = 8;
/** About 1 MiB per batch, under message.max.bytes: 16 MiB, more than loopback socket buffers take. */
const VALUE_BYTES = 1000 * 1024;

/** One request at a time over a raw socket; answers are response bodies after the header. */
class Client {
  private buffered = Buffer.alloc(0);
  private readonly frames: Buffer[] = [];
  private wake: (() => void) | null = null;
  private correlationId = 0;
  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
      while (this.buffered.length >= 4 && this.buffered.length >= 4 + this.buffered.readInt32BE(0)) {
        this.frames.push(this.buffered.subarray(4, 4 + this.buffered.readInt32BE(0)));
        this.buffered = this.buffered.subarray(4 + this.buffered.readInt32BE(0));
      }
      this.wake?.();
    });
    socket.on('error', () => {});
  }
  static open(port: number): Promise<Client> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port }, () => resolve(new Client(socket)));
      socket.once('error', reject);
    });
  }
  send<Req>(apiKey: number, version: number, encode: (w: Writer, v: number, m: Req) => void, message: Req): void {
    const w = new Writer();
    const start = w.reserveInt32();
    encodeRequestHeader(w, { apiKey, apiVersion: version, correlationId: ++this.correlationId, clientId: 'unread-test' });
    encode(w, version, message);
    w.patchInt32(start, w.length - start - 4);
    this.socket.write(Buffer.from(w.toBuffer()));
  }
  async answer<Res>(apiKey: number, version: number, decode: (r: Reader, v: number) => Res): Promise<Res> {
    while (this.frames.length === 0) await new Promise<void>((resolve) => { this.wake = resolve; });
    const r = new Reader(this.frames.shift()!);
    decodeResponseHeader(r, apiKey, version);
    return decode(r, version);
  }
  async request<Req, Res>(apiKey: number, version: number, encode: (w: Writer, v: number, m: Req) => void,
    decode: (r: Reader, v: number) => Res, message: Req): Promise<Res> {
    this.send(apiKey, version, encode, message);
    return this.answer(apiKey, version, decode);
  }
}

function fetchRequest(offset: number, maxBytes: number) {
  return {
    replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
    topics: [{ topic: TOPIC, partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: offset, logStartOffset: -1, partitionMaxBytes: maxBytes }] }],
    forgottenTopicsData: [], rackId: '',
  };
}

/** The first value byte of each batch in a Fetch answer (the batch number the test wrote). */
function batchNumbers(response: FetchResponse): number[] {
  const records = response.responses[0]!.partitions[0]!.records;
  if (records === null) return [];
  return [...iterateBatches(records)].map((batch) => readBatch(batch).records[0]!.value![0]!);
}

let broker: BrokerProcess | null = null;
const sockets: Socket[] = [];
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await broker?.close();
});

describe('queued.max.response.bytes in a broker (issue 15)', () => {
  it('answers a consumer\'s Fetch with its first batch only while a client that does not read holds the budget, so the consumer still reads everything in order', async () => {
    broker = await startBrokerProcess({ overrides: { 'queued.max.response.bytes': 1 } });
    const client = await Client.open(broker.port);
    sockets.push(client.socket);
    await retry('the topic to have a leader', async () => {
      const metadata = await client.request(ApiKey.Metadata, 8, encodeMetadataRequest, decodeMetadataResponse, {
        topics: [{ name: TOPIC }], allowAutoTopicCreation: true, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false,
      });
      const topic = metadata.topics[0];
      return topic?.errorCode === 0 && (topic.partitions[0]?.leaderId ?? -1) >= 0;
    });
    for (let i = 0; i < BATCHES; i++) {
      const produced = await client.request(ApiKey.Produce, 7, encodeProduceRequest, decodeProduceResponse, {
        transactionalId: null, acks: 1, timeoutMs: 30_000,
        topicData: [{ name: TOPIC, partitionData: [{ index: 0, records: buildRecordBatch({ records: [{ key: null, value: Buffer.alloc(VALUE_BYTES, i) }] }) }] }],
      });
      expect(produced.responses[0]!.partitionResponses[0]!.errorCode).toBe(0);
    }
    // Before anyone stalls, one Fetch takes the whole partition.
    const whole = await client.request(ApiKey.Fetch, 11, encodeFetchRequest, decodeFetchResponse, fetchRequest(0, 64 * 2 ** 20));
    expect(batchNumbers(whole)).toHaveLength(BATCHES);

    // A client fetches the whole partition twice and reads nothing: its answer stays unsent.
    const stalled = await Client.open(broker.port);
    sockets.push(stalled.socket);
    stalled.socket.pause();
    // STALLED_FETCHES of them: the consumer's first Fetch below races these, and when it is
    // answered first its unread answer holds the budget, so these are answered with one batch
    // each (1 MB); two of those fit in the kernel's socket buffers, and the budget then emptied.
    // Eight cannot: what the kernel does not take stays pending and holds the budget.
    for (let i = 0; i < STALLED_FETCHES; i++) stalled.send(ApiKey.Fetch, 11, encodeFetchRequest, fetchRequest(0, 64 * 2 ** 20));

    // The consumer now gets one batch per Fetch (KIP-74's minimum), and reads on batch by batch.
    await retry('a Fetch answered with one batch', async () => {
      const answer = await client.request(ApiKey.Fetch, 11, encodeFetchRequest, decodeFetchResponse, fetchRequest(0, 64 * 2 ** 20));
      return batchNumbers(answer).length === 1;
    });
    const read: number[] = [];
    while (read.length < BATCHES) {
      const answer = await client.request(ApiKey.Fetch, 11, encodeFetchRequest, decodeFetchResponse, fetchRequest(read.length, 64 * 2 ** 20));
      const numbers = batchNumbers(answer);
      expect(numbers).toHaveLength(1);
      read.push(...numbers);
    }
    expect(read).toEqual(Array.from({ length: BATCHES }, (_, i) => i));

    // Once the stalled client reads, all its answers arrive, in order, each complete batches from
    // offset 0: the whole partition when it was answered before the budget was held, else the first batch.
    stalled.socket.resume();
    for (let i = 0; i < STALLED_FETCHES; i++) {
      const numbers = batchNumbers(await stalled.answer(ApiKey.Fetch, 11, decodeFetchResponse));
      expect([1, BATCHES]).toContain(numbers.length);
      expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, n) => n));
    }
  });
});
