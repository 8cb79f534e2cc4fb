/**
 * Building RecordBatch v2 batches (Kafka's MemoryRecordsBuilder with magic 2, KIP-98), for our
 * clients, the group coordinator (__consumer_offsets records), control batches, compaction and
 * the tests of other modules. The CRC-32C comes from the WebAssembly core (the JS one in the
 * browser bundle). RecordBatchWriter appends records one at a time into one buffer for the
 * producer; buildRecordBatch encodes a whole list at once, byte-identically.
 *
 * Layout written: see host/wasm/batch-layout.ts (header) and records.ts (records).
 */
import type { Clock } from '../io/clock.js';
import { SystemTime } from '../io/time.js';
import { BatchAttributes, BatchLayout } from '../wasm/batch-layout.js';
import { getCore } from '../wasm/core.js';
import { compress, CompressionType } from './compression.js';

/** The clock of batches built without any timestamp (clients; broker code passes its own). */
const SYSTEM_CLOCK: Clock = new SystemTime();

export type Bytes = Uint8Array | string;

export interface RecordHeaderInput {
  key: string;
  value: Bytes | null;
}

export interface RecordInput {
  key?: Bytes | null;
  value?: Bytes | null;
  headers?: RecordHeaderInput[];
  /** ms since epoch; defaults to the batch's baseTimestamp (or now). */
  timestamp?: number;
  /**
   * Offset relative to baseOffset; defaults to the record's index. Set it to keep original
   * offsets when rewriting a compacted batch; must be strictly increasing.
   */
  offsetDelta?: number;
}

export interface BuildRecordBatchOptions {
  records: RecordInput[];
  /** Default 0 (producers send 0; the leader stamps the real one). */
  baseOffset?: number;
  /** Default -1 (the leader stamps it). */
  partitionLeaderEpoch?: number;
  /** CompressionType id 0-4, default 0. */
  compression?: number;
  /** gzip/zstd level; codec default when absent. */
  compressionLevel?: number;
  /** 0 CreateTime (default) or 1 LogAppendTime. */
  timestampType?: 0 | 1;
  isTransactional?: boolean;
  isControl?: boolean;
  /** Default -1 (not idempotent). */
  producerId?: number;
  /** Default -1. */
  producerEpoch?: number;
  /** Default -1. */
  baseSequence?: number;
  /** Default: the first record's timestamp, else now (`clock`). */
  baseTimestamp?: number;
  /** Where "now" comes from when no timestamp is given; default the system clock. */
  clock?: Clock;
  /** Default: the largest record timestamp (-1 for a batch without records). */
  maxTimestamp?: number;
  /** Default: the last record's offsetDelta. Required when records is empty (a batch kept only for its offsets). */
  lastOffsetDelta?: number;
  /**
   * Sets attributes bit 6 and stores this in baseTimestamp, as Kafka's cleaner does for batches
   * holding tombstones or transaction markers (KIP-534); record timestamps are kept exact.
   */
  deleteHorizonMs?: number;
}

const encoder = new TextEncoder();

function toBytes(value: Bytes): Uint8Array {
  return typeof value === 'string' ? encoder.encode(value) : value;
}

/** Zig-zag encodes a safe integer (exact up to 2^53 in magnitude). */
function zigzag(value: number): number {
  return value >= 0 ? value * 2 : -value * 2 - 1;
}

function varintSize(zigzagged: number): number {
  let size = 1;
  while (zigzagged >= 128) {
    zigzagged = Math.floor(zigzagged / 128);
    size++;
  }
  return size;
}

class Output {
  position = 0;
  constructor(readonly buffer: Buffer) {}

  varint(value: number): void {
    let zz = zigzag(value);
    while (zz >= 128) {
      this.buffer[this.position++] = (zz % 128) | 0x80;
      zz = Math.floor(zz / 128);
    }
    this.buffer[this.position++] = zz;
  }

  bytes(value: Uint8Array | null): void {
    if (value === null) { this.varint(-1); return; }
    this.varint(value.length);
    this.buffer.set(value, this.position);
    this.position += value.length;
  }
}

interface PreparedRecord {
  timestampDelta: number;
  offsetDelta: number;
  key: Uint8Array | null;
  value: Uint8Array | null;
  headers: { key: Uint8Array; value: Uint8Array | null }[];
  bodySize: number;
}

function assertInt(value: number, min: number, max: number, name: string): void {
  if (!Number.isSafeInteger(value) || value < min || value > max) throw new RangeError(`${name} ${value} is outside [${min}, ${max}]`);
}

/**
 * Encodes one v2 batch with a valid CRC-32C.
 * @throws RangeError for values outside their Kafka field types, non-increasing offset deltas,
 *   an empty records list without lastOffsetDelta, or an unknown compression codec.
 */
export function buildRecordBatch(options: BuildRecordBatchOptions): Buffer {
  const { records } = options;
  const compression = options.compression ?? CompressionType.NONE;
  assertInt(compression, 0, 4, 'compression');
  const firstTimestamp = records[0]?.timestamp ?? options.baseTimestamp ?? (options.clock ?? SYSTEM_CLOCK).nowMs();
  const baseTimestamp = options.deleteHorizonMs ?? options.baseTimestamp ?? firstTimestamp;

  let previousOffsetDelta = -1;
  let maxRecordTimestamp = -1;
  const prepared: PreparedRecord[] = records.map((record, index) => {
    const offsetDelta = record.offsetDelta ?? index;
    assertInt(offsetDelta, previousOffsetDelta + 1, 2147483647, 'offsetDelta');
    previousOffsetDelta = offsetDelta;
    const timestamp = record.timestamp ?? options.baseTimestamp ?? firstTimestamp;
    assertInt(timestamp, -Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, 'timestamp');
    if (timestamp > maxRecordTimestamp) maxRecordTimestamp = timestamp;
    const key = record.key === undefined || record.key === null ? null : toBytes(record.key);
    const value = record.value === undefined || record.value === null ? null : toBytes(record.value);
    const headers = (record.headers ?? []).map((header) => ({
      key: encoder.encode(header.key),
      value: header.value === null ? null : toBytes(header.value),
    }));
    const timestampDelta = timestamp - baseTimestamp;
    let bodySize = 1 + varintSize(zigzag(timestampDelta)) + varintSize(zigzag(offsetDelta));
    bodySize += key === null ? 1 : varintSize(zigzag(key.length)) + key.length;
    bodySize += value === null ? 1 : varintSize(zigzag(value.length)) + value.length;
    bodySize += varintSize(zigzag(headers.length));
    for (const header of headers) {
      bodySize += varintSize(zigzag(header.key.length)) + header.key.length;
      bodySize += header.value === null ? 1 : varintSize(zigzag(header.value.length)) + header.value.length;
    }
    return { timestampDelta, offsetDelta, key, value, headers, bodySize };
  });

  const lastOffsetDelta = options.lastOffsetDelta ?? (records.length > 0 ? previousOffsetDelta : undefined);
  if (lastOffsetDelta === undefined) throw new RangeError('a batch without records needs lastOffsetDelta');
  assertInt(lastOffsetDelta, Math.max(0, previousOffsetDelta), 2147483647, 'lastOffsetDelta');

  const sectionSize = prepared.reduce((sum, r) => sum + varintSize(zigzag(r.bodySize)) + r.bodySize, 0);
  const section = new Output(Buffer.allocUnsafe(sectionSize));
  for (const record of prepared) {
    section.varint(record.bodySize);
    section.buffer[section.position++] = 0; // attributes
    section.varint(record.timestampDelta);
    section.varint(record.offsetDelta);
    section.bytes(record.key);
    section.bytes(record.value);
    section.varint(record.headers.length);
    for (const header of record.headers) {
      section.bytes(header.key);
      section.bytes(header.value);
    }
  }
  const recordsBytes = compression === CompressionType.NONE ? section.buffer : compress(compression, section.buffer, options.compressionLevel);

  const batch = Buffer.allocUnsafe(BatchLayout.RECORDS + recordsBytes.length);
  const baseOffset = options.baseOffset ?? 0;
  const partitionLeaderEpoch = options.partitionLeaderEpoch ?? -1;
  const producerId = options.producerId ?? -1;
  const producerEpoch = options.producerEpoch ?? -1;
  const baseSequence = options.baseSequence ?? -1;
  const maxTimestamp = options.maxTimestamp ?? maxRecordTimestamp;
  assertInt(baseOffset, 0, Number.MAX_SAFE_INTEGER, 'baseOffset');
  assertInt(partitionLeaderEpoch, -2147483648, 2147483647, 'partitionLeaderEpoch');
  assertInt(producerId, -1, Number.MAX_SAFE_INTEGER, 'producerId');
  assertInt(producerEpoch, -32768, 32767, 'producerEpoch');
  assertInt(baseSequence, -2147483648, 2147483647, 'baseSequence');
  assertInt(baseTimestamp, -Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, 'baseTimestamp');
  assertInt(maxTimestamp, -Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, 'maxTimestamp');
  const attributes = compression |
    ((options.timestampType ?? 0) === 1 ? BatchAttributes.TIMESTAMP_TYPE_MASK : 0) |
    (options.isTransactional ? BatchAttributes.TRANSACTIONAL_FLAG_MASK : 0) |
    (options.isControl ? BatchAttributes.CONTROL_FLAG_MASK : 0) |
    (options.deleteHorizonMs !== undefined ? BatchAttributes.DELETE_HORIZON_FLAG_MASK : 0);

  batch.writeBigInt64BE(BigInt(baseOffset), BatchLayout.BASE_OFFSET);
  batch.writeInt32BE(batch.length - BatchLayout.LOG_OVERHEAD, BatchLayout.BATCH_LENGTH);
  batch.writeInt32BE(partitionLeaderEpoch, BatchLayout.PARTITION_LEADER_EPOCH);
  batch.writeInt8(2, BatchLayout.MAGIC);
  batch.writeInt16BE(attributes, BatchLayout.ATTRIBUTES);
  batch.writeInt32BE(lastOffsetDelta, BatchLayout.LAST_OFFSET_DELTA);
  batch.writeBigInt64BE(BigInt(baseTimestamp), BatchLayout.BASE_TIMESTAMP);
  batch.writeBigInt64BE(BigInt(maxTimestamp), BatchLayout.MAX_TIMESTAMP);
  batch.writeBigInt64BE(BigInt(producerId), BatchLayout.PRODUCER_ID);
  batch.writeInt16BE(producerEpoch, BatchLayout.PRODUCER_EPOCH);
  batch.writeInt32BE(baseSequence, BatchLayout.BASE_SEQUENCE);
  batch.writeInt32BE(records.length, BatchLayout.RECORDS_COUNT);
  batch.set(recordsBytes, BatchLayout.RECORDS);
  batch.writeUInt32BE(getCore().crc32c(batch.subarray(BatchLayout.ATTRIBUTES)), BatchLayout.CRC);
  return batch;
}

/**
 * A control batch holding one transaction marker (Kafka's EndTransactionMarker): key = version
 * int16 0 + type int16 (0 ABORT, 1 COMMIT), value = version int16 0 + coordinatorEpoch int32.
 */
export function buildControlBatch(options: {
  type: 0 | 1; producerId: number; producerEpoch: number; coordinatorEpoch: number;
  baseOffset?: number; partitionLeaderEpoch?: number; timestamp?: number;
}): Buffer {
  const key = Buffer.alloc(4);
  key.writeInt16BE(0, 0);
  key.writeInt16BE(options.type, 2);
  const value = Buffer.alloc(6);
  value.writeInt16BE(0, 0);
  value.writeInt32BE(options.coordinatorEpoch, 2);
  return buildRecordBatch({
    records: [{ key, value, ...(options.timestamp === undefined ? {} : { timestamp: options.timestamp }) }],
    isControl: true,
    isTransactional: true,
    producerId: options.producerId,
    producerEpoch: options.producerEpoch,
    ...(options.baseOffset === undefined ? {} : { baseOffset: options.baseOffset }),
    ...(options.partitionLeaderEpoch === undefined ? {} : { partitionLeaderEpoch: options.partitionLeaderEpoch }),
  });
}

/** Bytes of a zig-zag varint of a safe integer (bit operations while it fits 31 bits). */
function zigzagVarintSize(value: number): number {
  const zz = value >= 0 ? value * 2 : -value * 2 - 1;
  if (zz < 0x80) return 1;
  if (zz < 0x4000) return 2;
  if (zz < 0x200000) return 3;
  if (zz < 0x10000000) return 4;
  return varintSize(zz);
}

/** Producer-side fields a writer stamps into its header when it is (re)built. */
export interface RecordBatchWriterBuildOptions {
  /** CompressionType id 0-4. */
  compression: number;
  compressionLevel?: number;
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  /** Attribute bit 4: the batch belongs to its producer's open transaction (KIP-98). */
  isTransactional?: boolean;
}

/**
 * Appends records one at a time straight into one growing batch buffer (Kafka's
 * MemoryRecordsBuilder for magic 2): no per-record objects are kept, and `build()` only writes the
 * 61-byte header and the CRC-32C in front of the records already in place. For the producer's
 * accumulator: a batch is written while records arrive and built once when drained (again only
 * when a retry needs a new producer id or sequence).
 *
 * Output is byte-identical to buildRecordBatch() given the same records (offsetDelta = index,
 * baseTimestamp = the first record's timestamp, maxTimestamp = the largest, CreateTime).
 */
export class RecordBatchWriter {
  private buffer: Buffer;
  private position: number = BatchLayout.RECORDS;
  private recordCount = 0;
  private baseTimestamp = 0;
  private maxTimestamp = -1;

  /** @param initialCapacity bytes of records to allocate room for at first (grows as needed). */
  constructor(initialCapacity = 1024) {
    this.buffer = Buffer.allocUnsafe(BatchLayout.RECORDS + Math.max(64, initialCapacity));
  }

  /** Records appended so far. */
  get count(): number {
    return this.recordCount;
  }

  /** Bytes of the uncompressed batch so far (header included). */
  get sizeInBytes(): number {
    return this.position;
  }

  /**
   * Appends one record with offsetDelta = its index.
   * @param timestamp CreateTime, ms since epoch (a safe integer)
   * @returns the record's encoded size, bytes (length prefix included)
   * @throws RangeError for a timestamp that is not a safe integer
   */
  append(key: Uint8Array | null, value: Uint8Array | null, headers: readonly RecordHeaderInput[], timestamp: number): number {
    assertInt(timestamp, -Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, 'timestamp');
    const offsetDelta = this.recordCount;
    if (offsetDelta === 0) this.baseTimestamp = timestamp;
    const timestampDelta = timestamp - this.baseTimestamp;
    let encodedHeaders: { key: Uint8Array; value: Uint8Array | null }[] | null = null;
    let bodySize = 1 + zigzagVarintSize(timestampDelta) + zigzagVarintSize(offsetDelta);
    bodySize += key === null ? 1 : zigzagVarintSize(key.length) + key.length;
    bodySize += value === null ? 1 : zigzagVarintSize(value.length) + value.length;
    bodySize += zigzagVarintSize(headers.length);
    if (headers.length > 0) {
      encodedHeaders = headers.map((header) => ({ key: encoder.encode(header.key), value: header.value === null ? null : toBytes(header.value) }));
      for (const header of encodedHeaders) {
        bodySize += zigzagVarintSize(header.key.length) + header.key.length;
        bodySize += header.value === null ? 1 : zigzagVarintSize(header.value.length) + header.value.length;
      }
    }
    const recordSize = zigzagVarintSize(bodySize) + bodySize;
    this.ensure(recordSize);
    this.varint(bodySize);
    this.buffer[this.position++] = 0; // attributes
    this.varint(timestampDelta);
    this.varint(offsetDelta);
    this.bytes(key);
    this.bytes(value);
    this.varint(headers.length);
    if (encodedHeaders !== null) {
      for (const header of encodedHeaders) {
        this.bytes(header.key);
        this.bytes(header.value);
      }
    }
    this.recordCount++;
    if (timestamp > this.maxTimestamp) this.maxTimestamp = timestamp;
    return recordSize;
  }

  /**
   * The finished batch (baseOffset 0, partitionLeaderEpoch -1, CreateTime, valid CRC-32C).
   * Uncompressed, it is a view of the writer's own buffer, rewritten by the next build(): build
   * again only once the previous result is no longer in use (a retry after the answer).
   * @throws RangeError for fields outside their Kafka types or an unknown codec; an empty writer
   */
  build(options: RecordBatchWriterBuildOptions): Buffer {
    if (this.recordCount === 0) throw new RangeError('RecordBatchWriter.build: no records');
    const { compression } = options;
    assertInt(compression, 0, 4, 'compression');
    assertInt(options.producerId, -1, Number.MAX_SAFE_INTEGER, 'producerId');
    assertInt(options.producerEpoch, -32768, 32767, 'producerEpoch');
    assertInt(options.baseSequence, -2147483648, 2147483647, 'baseSequence');
    let batch: Buffer;
    if (compression === CompressionType.NONE) {
      batch = this.buffer.subarray(0, this.position);
    } else {
      const compressed = compress(compression, this.buffer.subarray(BatchLayout.RECORDS, this.position), options.compressionLevel);
      batch = Buffer.allocUnsafe(BatchLayout.RECORDS + compressed.length);
      batch.set(compressed, BatchLayout.RECORDS);
    }
    batch.writeInt32BE(0, BatchLayout.BASE_OFFSET);
    batch.writeInt32BE(0, BatchLayout.BASE_OFFSET + 4);
    batch.writeInt32BE(batch.length - BatchLayout.LOG_OVERHEAD, BatchLayout.BATCH_LENGTH);
    batch.writeInt32BE(-1, BatchLayout.PARTITION_LEADER_EPOCH);
    batch[BatchLayout.MAGIC] = 2;
    batch.writeInt16BE(compression | (options.isTransactional === true ? BatchAttributes.TRANSACTIONAL_FLAG_MASK : 0), BatchLayout.ATTRIBUTES);
    batch.writeInt32BE(this.recordCount - 1, BatchLayout.LAST_OFFSET_DELTA);
    writeInt64(batch, this.baseTimestamp, BatchLayout.BASE_TIMESTAMP);
    writeInt64(batch, this.maxTimestamp, BatchLayout.MAX_TIMESTAMP);
    writeInt64(batch, options.producerId, BatchLayout.PRODUCER_ID);
    batch.writeInt16BE(options.producerEpoch, BatchLayout.PRODUCER_EPOCH);
    batch.writeInt32BE(options.baseSequence, BatchLayout.BASE_SEQUENCE);
    batch.writeInt32BE(this.recordCount, BatchLayout.RECORDS_COUNT);
    batch.writeUInt32BE(getCore().crc32c(batch.subarray(BatchLayout.ATTRIBUTES)), BatchLayout.CRC);
    return batch;
  }

  private ensure(bytes: number): void {
    const needed = this.position + bytes;
    if (needed <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(needed, this.buffer.length * 2));
    this.buffer.copy(grown, 0, 0, this.position);
    this.buffer = grown;
  }

  private varint(value: number): void {
    const buffer = this.buffer;
    let zz = value >= 0 ? value * 2 : -value * 2 - 1;
    if (zz < 0x80000000) {
      while (zz >= 0x80) {
        buffer[this.position++] = (zz & 0x7f) | 0x80;
        zz >>>= 7;
      }
      buffer[this.position++] = zz;
      return;
    }
    while (zz >= 128) {
      buffer[this.position++] = (zz % 128) | 0x80;
      zz = Math.floor(zz / 128);
    }
    buffer[this.position++] = zz;
  }

  private bytes(value: Uint8Array | null): void {
    if (value === null) {
      this.buffer[this.position++] = 1; // zig-zag -1
      return;
    }
    this.varint(value.length);
    const length = value.length;
    if (length < 32) {
      const buffer = this.buffer;
      const at = this.position;
      for (let i = 0; i < length; i++) buffer[at + i] = value[i]!;
    } else {
      this.buffer.set(value, this.position);
    }
    this.position += length;
  }
}

/** Writes a safe integer as a big-endian int64 without BigInt. */
function writeInt64(buffer: Buffer, value: number, at: number): void {
  const high = Math.floor(value / 4294967296);
  buffer.writeInt32BE(high, at);
  buffer.writeUInt32BE(value - high * 4294967296, at + 4);
}
