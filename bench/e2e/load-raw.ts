/**
 * The broker's own ceiling, without a client's cost: a load generator that replays ONE
 * pre-encoded Produce request (Produce v3, one RecordBatch v2 of `batchRecords` records, built once
 * with our batch builder from the build snapshot) with a window of requests in flight, and a
 * reader that sends raw Fetch v4 requests and only walks batch headers (no record decoding).
 *
 * Why: the W2 ratios divide a produce rate by the loopback TCP baseline, where the sender
 * does nothing but write a prepared buffer. kcat (librdkafka) spends about twice the broker's CPU
 * per MB it produces, and on 2 shared cores its own cost, not the broker, bounds the rate. This
 * generator does what the TCP baseline's sender does (write prepared bytes, honour back-pressure),
 * so "replay ÷ loopback TCP" isolates the broker. It is NOT a client a user would run; rows from it
 * are labelled as such.
 *
 * Wire layouts: Kafka's ProduceRequest v3 / ProduceResponse v3 and FetchRequest v4 /
 * FetchResponse v4 (request header v1, response header v0), from Kafka's JSON schemas. Every
 * response's error codes are checked; any non-zero code fails the run.
 */
import { connect, type Socket } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { payload, type LoadResult } from './load-common.js';

export interface RawSpec {
  /** The snapshot's dist/ directory (for the batch builder). */
  distRoot: string;
  bootstrap: string;
  topic: string;
  records: number;
  size: number;
  acks: -1 | 1;
  /** Records per batch (= per Produce request). */
  batchRecords: number;
  /** Produce requests in flight (Java's max.in.flight.requests.per.connection default is 5). */
  inFlight: number;
}

const PRODUCE_KEY = 0;
const FETCH_KEY = 1;

/** A connection that sends frames and hands back response bodies in order (correlation checked). */
class RawConnection {
  private readonly chunks: Buffer[] = [];
  private buffered = 0;
  private readonly waiting: { correlationId: number; resolve: (body: Buffer) => void; reject: (error: Error) => void }[] = [];
  private nextCorrelationId = 1;
  private failure: Error | null = null;

  private constructor(private readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (error) => this.fail(error));
    socket.on('close', () => this.fail(new Error('connection closed by the broker')));
  }

  static async open(bootstrap: string): Promise<RawConnection> {
    const [host, port] = [bootstrap.slice(0, bootstrap.lastIndexOf(':')), Number(bootstrap.slice(bootstrap.lastIndexOf(':') + 1))];
    const socket = connect({ host, port });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    return new RawConnection(socket);
  }

  /** Frame = int32 size, request header v1 (key, version, correlation id, client id), body. */
  frame(apiKey: number, apiVersion: number, body: Buffer): { frame: Buffer; setCorrelationId(id: number): void } {
    const clientId = Buffer.from('raw-replay');
    const header = Buffer.alloc(4 + 2 + 2 + 4 + 2 + clientId.length);
    header.writeInt32BE(header.length - 4 + body.length, 0);
    header.writeInt16BE(apiKey, 4);
    header.writeInt16BE(apiVersion, 6);
    header.writeInt16BE(clientId.length, 12);
    clientId.copy(header, 14);
    const frame = Buffer.concat([header, body]);
    return { frame, setCorrelationId: (id) => frame.writeInt32BE(id, 8) };
  }

  /** Sends a prepared frame (its correlation id is rewritten) and resolves with the response body. */
  send(prepared: { frame: Buffer; setCorrelationId(id: number): void }): { written: Promise<void>; response: Promise<Buffer> } {
    if (this.failure) throw this.failure;
    const correlationId = this.nextCorrelationId++;
    prepared.setCorrelationId(correlationId);
    const response = new Promise<Buffer>((resolve, reject) => this.waiting.push({ correlationId, resolve, reject }));
    const flushed = this.socket.write(prepared.frame);
    const written = flushed ? Promise.resolve() : new Promise<void>((resolve) => this.socket.once('drain', () => resolve()));
    return { written, response };
  }

  close(): void {
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    for (;;) {
      if (this.buffered < 4) return;
      // Join chunks only once the whole frame is here (one copy per frame, as a client would).
      if (this.chunks[0]!.length < 4) this.chunks.splice(0, this.chunks.length, Buffer.concat(this.chunks));
      const size = this.chunks[0]!.readInt32BE(0);
      if (this.buffered < 4 + size) return;
      const head = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.buffered);
      const frame = head.subarray(4, 4 + size);
      const rest = head.subarray(4 + size);
      this.chunks.length = 0;
      if (rest.length > 0) this.chunks.push(rest);
      this.buffered = rest.length;
      const waiter = this.waiting.shift();
      if (waiter === undefined) return this.fail(new Error('a response nobody asked for'));
      const correlationId = frame.readInt32BE(0);
      if (correlationId !== waiter.correlationId) {
        return this.fail(new Error(`correlation id ${correlationId}, expected ${waiter.correlationId}`));
      }
      waiter.resolve(frame.subarray(4));
    }
  }

  private fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    for (const waiter of this.waiting.splice(0)) waiter.reject(error);
  }
}

function kafkaString(value: string): Buffer {
  const bytes = Buffer.from(value);
  const out = Buffer.alloc(2 + bytes.length);
  out.writeInt16BE(bytes.length, 0);
  bytes.copy(out, 2);
  return out;
}

/** ProduceRequest v3 body for one partition: transactional_id null, acks, timeout, topic_data. */
function produceBody(topic: string, partition: number, acks: number, batch: Buffer): Buffer {
  const head = Buffer.alloc(2 + 2 + 4 + 4);
  head.writeInt16BE(-1, 0); // transactional_id: null
  head.writeInt16BE(acks, 2);
  head.writeInt32BE(30_000, 4); // timeout_ms
  head.writeInt32BE(1, 8); // one topic
  const partitionHead = Buffer.alloc(4 + 4 + 4);
  partitionHead.writeInt32BE(1, 0); // one partition
  partitionHead.writeInt32BE(partition, 4);
  partitionHead.writeInt32BE(batch.length, 8);
  return Buffer.concat([head, kafkaString(topic), partitionHead, batch]);
}

/** Error code of the single partition in a ProduceResponse v3 body (acks != 0). */
function produceErrorCode(body: Buffer): number {
  let at = 4; // topics count
  at += 2 + body.readInt16BE(at); // topic name
  at += 4; // partitions count
  at += 4; // partition index
  return body.readInt16BE(at);
}

type BuildBatch = (options: { records: { value: Uint8Array }[] }) => Buffer;

/**
 * Produces `records` records of `size` bytes to partition 0 by replaying one pre-built batch of
 * `batchRecords` records (the last request may carry a smaller one) with `inFlight` requests
 * outstanding. Timed from the first write to the last acknowledgement.
 */
export async function runRawProduce(spec: RawSpec): Promise<LoadResult> {
  const { buildRecordBatch } = (await import(pathToFileURL(path.join(spec.distRoot, 'host/record/batch-builder.js')).href)) as { buildRecordBatch: BuildBatch };
  const value = payload(spec.size);
  const connection = await RawConnection.open(spec.bootstrap);
  const requestFor = (count: number) => connection.frame(PRODUCE_KEY, 3,
    produceBody(spec.topic, 0, spec.acks, buildRecordBatch({ records: Array.from({ length: count }, () => ({ value })) })));
  const full = requestFor(spec.batchRecords);
  const remainder = spec.records % spec.batchRecords;
  const last = remainder === 0 ? full : requestFor(remainder);
  const requests = Math.ceil(spec.records / spec.batchRecords);
  const outstanding: Promise<Buffer>[] = [];
  const startedAtMs = performance.now();
  for (let i = 0; i < requests; i++) {
    if (outstanding.length >= spec.inFlight) check(await outstanding.shift()!);
    const { written, response } = connection.send(i === requests - 1 ? last : full);
    outstanding.push(response);
    await written;
  }
  for (const response of outstanding) check(await response);
  const elapsedMs = performance.now() - startedAtMs;
  connection.close();
  return { records: spec.records, bytes: spec.records * spec.size, elapsedMs, note: `pre-encoded Produce v3 replay, ${spec.batchRecords} records per request, ${spec.inFlight} in flight` };

  function check(body: Buffer): void {
    const code = produceErrorCode(body);
    if (code !== 0) throw new Error(`Produce failed with Kafka error code ${code}`);
  }
}

/** FetchRequest v4 body: replica -1, max wait, min bytes 1, max bytes, READ_UNCOMMITTED, one partition. */
function fetchBody(topic: string, offset: number, partitionMaxBytes: number): Buffer {
  const head = Buffer.alloc(4 + 4 + 4 + 4 + 1 + 4);
  head.writeInt32BE(-1, 0);
  head.writeInt32BE(500, 4); // max_wait_ms
  head.writeInt32BE(1, 8); // min_bytes
  head.writeInt32BE(52_428_800, 12); // max_bytes (Kafka's fetch.max.bytes default)
  head.writeInt8(0, 16); // isolation_level
  head.writeInt32BE(1, 17); // one topic
  const partition = Buffer.alloc(4 + 4 + 8 + 4);
  partition.writeInt32BE(1, 0);
  partition.writeInt32BE(0, 4);
  partition.writeBigInt64BE(BigInt(offset), 8);
  partition.writeInt32BE(partitionMaxBytes, 16);
  return Buffer.concat([head, kafkaString(topic), partition]);
}

/**
 * Reads partition 0 from offset 0 until `records` records have arrived, one Fetch v4 at a time
 * (as librdkafka does: one fetch per broker in flight), `partitionMaxBytes` per fetch. Counts
 * records and value-carrying bytes from batch headers only; whole batches are required (a torn
 * batch at the end of a response is ignored, as clients do, and refetched).
 */
export async function runRawConsume(spec: Pick<RawSpec, 'bootstrap' | 'topic' | 'records' | 'size'> & { partitionMaxBytes: number }): Promise<LoadResult> {
  const connection = await RawConnection.open(spec.bootstrap);
  let offset = 0;
  let records = 0;
  const startedAtMs = performance.now();
  while (records < spec.records) {
    const body = await connection.send(connection.frame(FETCH_KEY, 4, fetchBody(spec.topic, offset, spec.partitionMaxBytes))).response;
    let at = 4 + 4; // throttle_time_ms, topics count
    at += 2 + body.readInt16BE(at); // topic name
    at += 4 + 4; // partitions count, partition index
    const errorCode = body.readInt16BE(at);
    if (errorCode !== 0) throw new Error(`Fetch failed with Kafka error code ${errorCode}`);
    at += 2 + 8 + 8; // error, high watermark, last stable offset
    const aborted = body.readInt32BE(at);
    at += 4 + Math.max(0, aborted) * 16;
    const length = body.readInt32BE(at);
    at += 4;
    const end = at + Math.max(0, length);
    while (at + 61 <= end) {
      const batchBytes = 12 + body.readInt32BE(at + 8);
      if (at + batchBytes > end) break;
      const baseOffset = Number(body.readBigInt64BE(at));
      records += body.readInt32BE(at + 57);
      offset = baseOffset + body.readInt32BE(at + 23) + 1;
      at += batchBytes;
    }
  }
  const elapsedMs = performance.now() - startedAtMs;
  connection.close();
  if (records !== spec.records) throw new Error(`read ${records} records, expected ${spec.records}`);
  return { records, bytes: records * spec.size, elapsedMs, note: `raw Fetch v4, one in flight, ${spec.partitionMaxBytes} B per partition, batch headers only` };
}
