/**
 * The well-behaved client of a fuzz campaign: one connection that produces one record
 * (Produce v7, acks=-1) and reads it back (Fetch v11, the offset it was given) in a closed loop,
 * one round every `intervalMs`, timing each request from write to whole response (ms). Latencies
 * go to the phase the campaign sets ('base' before the fuzzer ever ran, 'off' while it is paused,
 * 'on' while it sends, 'idle' to discard).
 * Every acknowledged record is remembered by offset; `readBack()` fetches the partition from
 * offset 0 and counts acknowledged records that are missing or changed.
 *
 * Wire layouts: Kafka's ProduceRequest v7, FetchRequest v11, CreateTopicsRequest v4 (header v1),
 * encoded and decoded with the generated codecs.
 */
import { connect, type Socket } from 'node:net';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { decodeCreateTopicsResponse, encodeCreateTopicsRequest } from '../../host/protocol/generated/create-topics.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { decodeFetchResponse, encodeFetchRequest, type FetchResponse } from '../../host/protocol/generated/fetch.js';
import { decodeProduceResponse, encodeProduceRequest } from '../../host/protocol/generated/produce.js';
import { decodeResponseHeader, encodeRequestHeader } from '../../host/protocol/headers.js';
import { Reader } from '../../host/protocol/reader.js';
import { Writer } from '../../host/protocol/writer.js';
import { buildRecordBatch } from '../../host/record/batch-builder.js';
import { iterateBatches, readBatch } from '../../host/record/records.js';

/** The campaign's phases ('idle' is discarded); other benches name their own. */
export type Phase = string;

/** A request without an answer this long counts as a failure of the well-behaved client. */
const REQUEST_TIMEOUT_MS = 10_000;

/** Frames requests and hands back response bodies in order. */
export class Connection {
  private buffered: Buffer = Buffer.alloc(0);
  private readonly waiting: { resolve: (frame: Buffer) => void; reject: (error: Error) => void }[] = [];
  private correlationId = 0;
  private failure: Error | null = null;

  constructor(private readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
      while (this.buffered.length >= 4 && this.buffered.length >= 4 + this.buffered.readInt32BE(0)) {
        const size = this.buffered.readInt32BE(0);
        const frame = this.buffered.subarray(4, 4 + size);
        this.buffered = this.buffered.subarray(4 + size);
        this.waiting.shift()?.resolve(frame);
      }
    });
    const fail = (error: Error): void => {
      this.failure ??= error;
      for (const waiter of this.waiting.splice(0)) waiter.reject(this.failure);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('the broker closed the well-behaved connection')));
  }

  static open(host: string, port: number): Promise<Connection> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port });
      socket.once('connect', () => resolve(new Connection(socket)));
      socket.once('error', reject);
    });
  }

  async request<Req, Res>(apiKey: number, version: number, encode: (w: Writer, v: number, m: Req) => void,
    decode: (r: Reader, v: number) => Res, message: Req, timeoutMs = REQUEST_TIMEOUT_MS): Promise<Res> {
    if (this.failure) throw this.failure;
    const correlationId = ++this.correlationId;
    const w = new Writer();
    const start = w.reserveInt32();
    encodeRequestHeader(w, { apiKey, apiVersion: version, correlationId, clientId: 'well-behaved' });
    encode(w, version, message);
    w.patchInt32(start, w.length - start - 4);
    const answer = new Promise<Buffer>((resolve, reject) => this.waiting.push({ resolve, reject }));
    this.socket.write(Buffer.from(w.toBuffer()));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer to api ${apiKey} within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      const r = new Reader(await Promise.race([answer, timeout]));
      if (decodeResponseHeader(r, apiKey, version).correlationId !== correlationId) throw new Error('correlation id mismatch');
      return decode(r, version);
    } finally {
      clearTimeout(timer);
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

export interface ReadBack {
  acknowledged: number;
  /** Acknowledged records not found at their offset. */
  lost: number;
  /** Acknowledged records found at their offset with another value. */
  changed: number;
}

export class WellBehavedClient {
  phase: Phase = 'idle';
  readonly latencies: Record<Phase, number[]> = { idle: [], base: [], off: [], on: [] };
  /** Requests that failed or timed out, with the phase they were in. */
  readonly failures: { phase: Phase; error: string }[] = [];
  private readonly acknowledged = new Map<number, string>();
  private running = false;
  private loop: Promise<void> = Promise.resolve();

  private constructor(private readonly connection: Connection, readonly topic: string, private readonly intervalMs: number) {}

  /** Connects and creates `topic` (one partition). @throws Error when the topic cannot be created */
  static async start(host: string, port: number, topic: string, intervalMs: number): Promise<WellBehavedClient> {
    const connection = await Connection.open(host, port);
    const created = await connection.request(ApiKey.CreateTopics, 4, encodeCreateTopicsRequest, decodeCreateTopicsResponse, {
      topics: [{ name: topic, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 10_000, validateOnly: false,
    });
    const code = created.topics[0]?.errorCode;
    if (code !== ErrorCode.NONE) throw new Error(`CreateTopics ${topic}: error ${code}`);
    const client = new WellBehavedClient(connection, topic, intervalMs);
    client.running = true;
    client.loop = client.run();
    return client;
  }

  /** Stops the loop after the round under way. */
  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  get acknowledgedCount(): number {
    return this.acknowledged.size;
  }

  /** Fetches the partition from offset 0 to its end and compares with what was acknowledged. */
  async readBack(): Promise<ReadBack> {
    const stored = new Map<number, string>();
    let offset = 0;
    for (;;) {
      const response = await this.fetch(offset, 8 << 20);
      const partition = response.responses[0]!.partitions[0]!;
      if (partition.errorCode !== ErrorCode.NONE) throw new Error(`read-back Fetch at ${offset}: error ${partition.errorCode}`);
      let next = offset;
      for (const bytes of iterateBatches(partition.records ?? new Uint8Array(0))) {
        const batch = readBatch(bytes);
        for (const record of batch.records) {
          const at = record.offset;
          stored.set(at, record.value?.toString() ?? '');
          next = at + 1;
        }
      }
      if (next === offset || next >= Number(partition.highWatermark)) break;
      offset = next;
    }
    let lost = 0;
    let changed = 0;
    for (const [at, value] of this.acknowledged) {
      const found = stored.get(at);
      if (found === undefined) lost++;
      else if (found !== value) changed++;
    }
    return { acknowledged: this.acknowledged.size, lost, changed };
  }

  close(): void {
    this.connection.close();
  }

  private async run(): Promise<void> {
    let round = 0;
    while (this.running) {
      const startedAtMs = performance.now();
      try {
        await this.round(round++);
      } catch (error) {
        this.failures.push({ phase: this.phase, error: String(error) });
        if (this.failures.length > 100) return;
      }
      const restMs = this.intervalMs - (performance.now() - startedAtMs);
      if (restMs > 0) await new Promise((resolve) => setTimeout(resolve, restMs));
    }
  }

  private async round(round: number): Promise<void> {
    const value = `good-${round}`;
    const phase = this.phase;
    let startedAtMs = performance.now();
    const produced = await this.connection.request(ApiKey.Produce, 7, encodeProduceRequest, decodeProduceResponse, {
      transactionalId: null, acks: -1, timeoutMs: 10_000,
      topicData: [{ name: this.topic, partitionData: [{ index: 0, records: buildRecordBatch({ records: [{ key: null, value }] }) }] }],
    });
    (this.latencies[phase] ??= []).push(performance.now() - startedAtMs);
    const partition = produced.responses[0]!.partitionResponses[0]!;
    if (partition.errorCode !== ErrorCode.NONE) throw new Error(`Produce: error ${partition.errorCode}`);
    const offset = Number(partition.baseOffset);
    this.acknowledged.set(offset, value);
    startedAtMs = performance.now();
    const fetched = await this.fetch(offset, 1 << 16);
    (this.latencies[phase] ??= []).push(performance.now() - startedAtMs);
    const records = fetched.responses[0]!.partitions[0]!.records;
    const first = records === null ? undefined : [...iterateBatches(records)][0];
    const read = first === undefined ? undefined : readBatch(first).records[0]?.value?.toString();
    if (read !== value) throw new Error(`Fetch at ${offset}: read ${String(read)}, produced ${value}`);
  }

  private fetch(offset: number, maxBytes: number): Promise<FetchResponse> {
    return this.connection.request(ApiKey.Fetch, 11, encodeFetchRequest, decodeFetchResponse, {
      replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
      topics: [{ topic: this.topic, partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: offset, logStartOffset: -1, partitionMaxBytes: maxBytes }] }],
      forgottenTopicsData: [], rackId: '',
    });
  }
}
