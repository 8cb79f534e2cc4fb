/**
 * Decoding the records of RecordBatch v2 batches (Kafka's DefaultRecordBatch / DefaultRecord,
 * KIP-98) for the code that must look inside them: clients, compaction, the JSON API. Not the
 * broker's hot path, which keeps batches opaque and lets the WebAssembly core validate them.
 *
 * Keys, values and header values are views (subarray) into the batch, or into the decompressed
 * records section for compressed batches: nothing is copied per record. Copy them if the batch
 * bytes are about to be reused (e.g. a PreparedAppend view into WebAssembly memory).
 *
 * Record layout (zig-zag varints): length | attributes int8 | timestampDelta varlong |
 * offsetDelta varint | keyLength (-1 = null) key | valueLength (-1 = null) value | headerCount |
 * [headerKeyLength headerKey (UTF-8, never null) | headerValueLength (-1 = null) headerValue]*.
 */
import { BatchAttributes, BatchLayout } from '../wasm/batch-layout.js';
import { getCore } from '../wasm/core.js';
import { decompress, DEFAULT_MAX_DECOMPRESSED_BYTES } from './compression.js';

export { BatchLayout };

const CORRUPT_MESSAGE = 2;

/** Malformed batch or record bytes; `errorCode` is Kafka's CORRUPT_MESSAGE (2). */
export class CorruptRecordError extends Error {
  readonly errorCode = CORRUPT_MESSAGE;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CorruptRecordError';
  }
}

export interface RecordHeader {
  key: string;
  value: Buffer | null;
}

/** One record with its absolute offset and effective timestamp (ms). */
export interface KafkaRecord {
  offset: number;
  /** baseTimestamp + timestampDelta, or the batch's maxTimestamp for LogAppendTime batches. */
  timestamp: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: RecordHeader[];
}
/** Alias for the contract's name; prefer KafkaRecord where TypeScript's own Record<K, V> is in scope. */
export type { KafkaRecord as Record };

export interface RecordBatchHeader {
  baseOffset: number;
  batchLength: number;
  /** 12 + batchLength. */
  sizeInBytes: number;
  partitionLeaderEpoch: number;
  magic: number;
  crc: number;
  attributes: number;
  compression: number;
  /** 0 CreateTime, 1 LogAppendTime. */
  timestampType: number;
  isTransactional: boolean;
  isControl: boolean;
  hasDeleteHorizon: boolean;
  lastOffsetDelta: number;
  lastOffset: number;
  baseTimestamp: number;
  maxTimestamp: number;
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  recordCount: number;
}

export interface ReadRecordsOptions {
  /** Check the CRC-32C before decoding (default true, like a Kafka consumer's check.crcs). */
  verifyCrc?: boolean;
  /** Bound on the decompressed records section (default DEFAULT_MAX_DECOMPRESSED_BYTES). */
  maxDecompressedBytes?: number;
}

function asBuffer(data: Uint8Array): Buffer {
  return Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

function readInt64(bytes: Buffer, at: number): number {
  return bytes.readInt32BE(at) * 4294967296 + bytes.readUInt32BE(at + 4);
}

/**
 * Reads the 61-byte header of the batch at the start of `batch`.
 * @throws CorruptRecordError when fewer than 61 bytes are present, magic is not 2, or
 *   batchLength is out of range.
 */
export function readBatchHeader(batch: Uint8Array): RecordBatchHeader {
  const bytes = asBuffer(batch);
  if (bytes.length < BatchLayout.RECORDS) throw new CorruptRecordError(`batch of ${bytes.length} bytes is shorter than its header`);
  const magic = bytes.readInt8(BatchLayout.MAGIC);
  if (magic !== 2) throw new CorruptRecordError(`unsupported record batch magic ${magic}`);
  const batchLength = bytes.readInt32BE(BatchLayout.BATCH_LENGTH);
  if (batchLength < BatchLayout.RECORDS - BatchLayout.LOG_OVERHEAD) throw new CorruptRecordError(`batchLength ${batchLength} too small`);
  const attributes = bytes.readInt16BE(BatchLayout.ATTRIBUTES);
  const baseOffset = readInt64(bytes, BatchLayout.BASE_OFFSET);
  const lastOffsetDelta = bytes.readInt32BE(BatchLayout.LAST_OFFSET_DELTA);
  return {
    baseOffset,
    batchLength,
    sizeInBytes: BatchLayout.LOG_OVERHEAD + batchLength,
    partitionLeaderEpoch: bytes.readInt32BE(BatchLayout.PARTITION_LEADER_EPOCH),
    magic,
    crc: bytes.readUInt32BE(BatchLayout.CRC),
    attributes,
    compression: attributes & BatchAttributes.COMPRESSION_CODEC_MASK,
    timestampType: (attributes & BatchAttributes.TIMESTAMP_TYPE_MASK) !== 0 ? 1 : 0,
    isTransactional: (attributes & BatchAttributes.TRANSACTIONAL_FLAG_MASK) !== 0,
    isControl: (attributes & BatchAttributes.CONTROL_FLAG_MASK) !== 0,
    hasDeleteHorizon: (attributes & BatchAttributes.DELETE_HORIZON_FLAG_MASK) !== 0,
    lastOffsetDelta,
    lastOffset: baseOffset + lastOffsetDelta,
    baseTimestamp: readInt64(bytes, BatchLayout.BASE_TIMESTAMP),
    maxTimestamp: readInt64(bytes, BatchLayout.MAX_TIMESTAMP),
    producerId: readInt64(bytes, BatchLayout.PRODUCER_ID),
    producerEpoch: bytes.readInt16BE(BatchLayout.PRODUCER_EPOCH),
    baseSequence: bytes.readInt32BE(BatchLayout.BASE_SEQUENCE),
    recordCount: bytes.readInt32BE(BatchLayout.RECORDS_COUNT),
  };
}

/**
 * Splits a blob of batches (a Fetch response's records, a segment slice) into whole batches,
 * as views. A partial batch at the end is skipped, as Kafka consumers do for fetch responses
 * cut at maxBytes. Does not validate the batches.
 */
export function* iterateBatches(blob: Uint8Array): Generator<Buffer> {
  const bytes = asBuffer(blob);
  let position = 0;
  while (bytes.length - position >= BatchLayout.LOG_OVERHEAD) {
    const batchLength = bytes.readInt32BE(position + BatchLayout.BATCH_LENGTH);
    const size = BatchLayout.LOG_OVERHEAD + batchLength;
    if (batchLength < 0 || size > bytes.length - position) return;
    yield bytes.subarray(position, position + size);
    position += size;
  }
}

/** Bounds-checked zig-zag varint reading over one records section. */
class RecordReader {
  position = 0;
  constructor(private readonly bytes: Buffer, private end: number) {}

  limit(end: number): number {
    const previous = this.end;
    this.end = end;
    return previous;
  }

  byte(): number {
    if (this.position >= this.end) throw new CorruptRecordError('record ends early');
    return this.bytes[this.position++]!;
  }

  /** Zig-zag varint (at most 5 bytes) or varlong (at most 10 bytes) as a number. */
  zigzag(maxBytes: 5 | 10): number {
    let raw = 0;
    let scale = 1;
    for (let i = 0; i < maxBytes; i++) {
      const byte = this.byte();
      raw += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) {
        if (maxBytes === 5) raw %= 4294967296;
        // raw is even for non-negative values: raw / 2; odd for negative: -(raw + 1) / 2.
        return raw % 2 === 0 ? raw / 2 : -(raw + 1) / 2;
      }
      scale *= 128;
    }
    throw new CorruptRecordError(`varint longer than ${maxBytes} bytes`);
  }

  bytesOrNull(allowNull: boolean): Buffer | null {
    const length = this.zigzag(5);
    if (length === -1 && allowNull) return null;
    if (length < 0) throw new CorruptRecordError(`invalid field length ${length}`);
    if (length > this.end - this.position) throw new CorruptRecordError(`field of ${length} bytes runs past its record`);
    const value = this.bytes.subarray(this.position, this.position + length);
    this.position += length;
    return value;
  }
}

/** The batch's records section, decompressed when needed. */
function recordsSection(bytes: Buffer, header: RecordBatchHeader, options: ReadRecordsOptions): Buffer {
  const section = bytes.subarray(BatchLayout.RECORDS, header.sizeInBytes);
  if (header.compression === 0) return section;
  if (header.compression > 4) throw new CorruptRecordError(`unknown compression codec ${header.compression}`);
  try {
    return decompress(header.compression, section, options.maxDecompressedBytes ?? DEFAULT_MAX_DECOMPRESSED_BYTES);
  } catch (error) {
    throw new CorruptRecordError((error as Error).message, { cause: error });
  }
}

/**
 * Receives each decoded record of a batch (see decodeRecords); returns nothing. `headers` is a
 * fresh array per record; `key`/`value` are views into the batch (or its decompressed section).
 */
export type RecordVisitor = (offset: number, timestamp: number, key: Buffer | null, value: Buffer | null, headers: RecordHeader[]) => void;

/**
 * Decodes one batch and hands each record to `visit` in offset order, without building an
 * intermediate record list (the consumer builds its own record objects directly). Every record
 * is parsed and checked, exactly as readBatch does.
 * @returns the batch header
 * @throws CorruptRecordError (CORRUPT_MESSAGE) for a short batch, bad magic, CRC mismatch (when
 *   verifyCrc), damaged compression, or records that do not parse exactly.
 */
export function decodeRecords(batch: Uint8Array, options: ReadRecordsOptions, visit: RecordVisitor): RecordBatchHeader {
  const bytes = asBuffer(batch);
  const header = readBatchHeader(bytes);
  if (header.sizeInBytes > bytes.length) throw new CorruptRecordError(`batch of ${header.sizeInBytes} bytes cut at ${bytes.length}`);
  if (options.verifyCrc !== false) {
    const crc = getCore().crc32c(bytes.subarray(BatchLayout.ATTRIBUTES, header.sizeInBytes));
    if (crc !== header.crc) throw new CorruptRecordError(`CRC mismatch: stored ${header.crc}, computed ${crc}`);
  }
  if (header.recordCount < 0) throw new CorruptRecordError(`negative record count ${header.recordCount}`);
  const section = recordsSection(bytes, header, options);
  // Every record takes at least 7 bytes: reject absurd counts before allocating anything.
  if (header.recordCount > section.length / 7) throw new CorruptRecordError(`record count ${header.recordCount} exceeds the records' size`);
  const reader = new RecordReader(section, section.length);
  const logAppendTime = header.timestampType === 1;
  for (let i = 0; i < header.recordCount; i++) {
    const length = reader.zigzag(5);
    if (length <= 0 || length > section.length - reader.position) throw new CorruptRecordError(`invalid record length ${length}`);
    const recordEnd = reader.position + length;
    const outer = reader.limit(recordEnd);
    reader.byte(); // attributes: unused
    const timestampDelta = reader.zigzag(10);
    const offsetDelta = reader.zigzag(5);
    const key = reader.bytesOrNull(true);
    const value = reader.bytesOrNull(true);
    const headerCount = reader.zigzag(5);
    if (headerCount < 0 || headerCount > (recordEnd - reader.position) / 2) throw new CorruptRecordError(`invalid header count ${headerCount}`);
    const headers: RecordHeader[] = new Array(headerCount);
    for (let h = 0; h < headerCount; h++) {
      const headerKey = reader.bytesOrNull(false)!;
      headers[h] = { key: headerKey.toString('utf8'), value: reader.bytesOrNull(true) };
    }
    if (reader.position !== recordEnd) throw new CorruptRecordError(`record ${i} has ${recordEnd - reader.position} unread bytes`);
    reader.limit(outer);
    visit(header.baseOffset + offsetDelta, logAppendTime ? header.maxTimestamp : header.baseTimestamp + timestampDelta, key, value, headers);
  }
  if (reader.position !== section.length) throw new CorruptRecordError(`${section.length - reader.position} bytes after the last record`);
  return header;
}

/**
 * Decodes one batch: its header and its records (decompressed if needed), with absolute offsets
 * and effective timestamps. Extra bytes after the batch are ignored.
 * @throws CorruptRecordError (CORRUPT_MESSAGE) for a short batch, bad magic, CRC mismatch (when
 *   verifyCrc), damaged compression, or records that do not parse exactly.
 */
export function readBatch(batch: Uint8Array, options: ReadRecordsOptions = {}): { header: RecordBatchHeader; records: KafkaRecord[] } {
  const records: KafkaRecord[] = [];
  const header = decodeRecords(batch, options, (offset, timestamp, key, value, headers) => {
    records.push({ offset, timestamp, key, value, headers });
  });
  return { header, records };
}

/** The records of one batch (see readBatch). @throws CorruptRecordError (CORRUPT_MESSAGE). */
export function readRecords(batch: Uint8Array, options: ReadRecordsOptions = {}): KafkaRecord[] {
  return readBatch(batch, options).records;
}

/** Kafka's control record types (ControlRecordType). */
export const ControlRecordType = { ABORT: 0, COMMIT: 1 } as const;

/**
 * The type of a control record from its key (int16 version, int16 type), or null when the key
 * is not a control record key.
 */
export function readControlRecordType(record: KafkaRecord): number | null {
  if (record.key === null || record.key.length < 4) return null;
  return record.key.readInt16BE(2);
}
