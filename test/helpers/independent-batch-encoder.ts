/**
 * A RecordBatch v2 encoder written for tests only, straight from Kafka's format description
 * (../shared/kafka-protocol/README.md, CLIENTS.md section 4.1), sharing no code with host/record
 * or the WebAssembly core, so the two can check each other. Plain arrays and a bitwise CRC-32C:
 * slow and obvious on purpose.
 */

export interface TestHeader { key: string; value: Uint8Array | null }

export interface TestRecord {
  timestampDelta?: number;
  /** Defaults to the record's index in the batch. */
  offsetDelta?: number;
  key?: Uint8Array | null;
  value?: Uint8Array | null;
  headers?: TestHeader[];
  attributes?: number;
}

export interface TestBatch {
  baseOffset?: number;
  partitionLeaderEpoch?: number;
  magic?: number;
  /** Full attributes value; when absent, built from the fields below. */
  attributes?: number;
  compression?: number;
  logAppendTime?: boolean;
  transactional?: boolean;
  control?: boolean;
  /** Defaults to records.length - 1 (or 0 for no records). */
  lastOffsetDelta?: number;
  baseTimestamp?: number;
  /** Defaults to baseTimestamp + the largest timestampDelta. */
  maxTimestamp?: number;
  producerId?: number;
  producerEpoch?: number;
  baseSequence?: number;
  /** Defaults to records.length. */
  recordCount?: number;
  records?: TestRecord[];
  /** Replaces the encoded records section (e.g. an opaque "compressed" payload). */
  rawRecords?: Uint8Array;
  /** Write this CRC instead of the correct one. */
  crcOverride?: number;
}

/** CRC-32C computed one bit at a time (RFC 3720 B.4 definition). */
export function referenceCrc32c(data: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of data) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function pushInt(out: number[], value: bigint, bytes: number): void {
  const mask = (1n << BigInt(bytes * 8)) - 1n;
  let v = BigInt.asUintN(bytes * 8, value) & mask;
  const tmp: number[] = [];
  for (let i = 0; i < bytes; i++) { tmp.unshift(Number(v & 0xffn)); v >>= 8n; }
  out.push(...tmp);
}

/** Zig-zag varint/varlong (protobuf encoding as Kafka's ByteUtils.writeVarlong). */
export function pushZigzag(out: number[], value: number | bigint): void {
  const v = BigInt(value);
  let zz = BigInt.asUintN(64, (v << 1n) ^ (v >> 63n));
  while (zz >= 0x80n) { out.push(Number((zz & 0x7fn) | 0x80n)); zz >>= 7n; }
  out.push(Number(zz));
}

function pushBytes(out: number[], bytes: Uint8Array | null | undefined): void {
  if (bytes === null || bytes === undefined) { pushZigzag(out, -1); return; }
  pushZigzag(out, bytes.length);
  out.push(...bytes);
}

export function encodeTestRecord(record: TestRecord, index: number): number[] {
  const body: number[] = [];
  body.push(record.attributes ?? 0);
  pushZigzag(body, record.timestampDelta ?? 0);
  pushZigzag(body, record.offsetDelta ?? index);
  pushBytes(body, record.key === undefined ? null : record.key);
  pushBytes(body, record.value === undefined ? null : record.value);
  const headers = record.headers ?? [];
  pushZigzag(body, headers.length);
  for (const header of headers) {
    pushBytes(body, new TextEncoder().encode(header.key));
    pushBytes(body, header.value);
  }
  const out: number[] = [];
  pushZigzag(out, body.length);
  out.push(...body);
  return out;
}

/** Encodes one batch; every field can be set to anything, including invalid values. */
export function encodeTestBatch(batch: TestBatch): Buffer {
  const records = batch.records ?? [];
  const recordBytes: number[] = [];
  if (batch.rawRecords) recordBytes.push(...batch.rawRecords);
  else records.forEach((record, index) => recordBytes.push(...encodeTestRecord(record, index)));

  const baseTimestamp = batch.baseTimestamp ?? 1_700_000_000_000;
  const maxDelta = records.reduce((max, r) => Math.max(max, r.timestampDelta ?? 0), records.length ? -Infinity : 0);
  const attributes = batch.attributes ?? (
    (batch.compression ?? 0) |
    (batch.logAppendTime ? 0x08 : 0) |
    (batch.transactional ? 0x10 : 0) |
    (batch.control ? 0x20 : 0));

  const afterCrc: number[] = [];
  pushInt(afterCrc, BigInt(attributes), 2);
  pushInt(afterCrc, BigInt(batch.lastOffsetDelta ?? Math.max(0, records.length - 1)), 4);
  pushInt(afterCrc, BigInt(baseTimestamp), 8);
  pushInt(afterCrc, BigInt(batch.maxTimestamp ?? baseTimestamp + maxDelta), 8);
  pushInt(afterCrc, BigInt(batch.producerId ?? -1), 8);
  pushInt(afterCrc, BigInt(batch.producerEpoch ?? -1), 2);
  pushInt(afterCrc, BigInt(batch.baseSequence ?? -1), 4);
  pushInt(afterCrc, BigInt(batch.recordCount ?? records.length), 4);
  afterCrc.push(...recordBytes);

  const crc = batch.crcOverride ?? referenceCrc32c(Uint8Array.from(afterCrc));
  const out: number[] = [];
  pushInt(out, BigInt(batch.baseOffset ?? 0), 8);
  pushInt(out, BigInt(4 + 1 + 4 + afterCrc.length), 4); // epoch + magic + crc + rest
  pushInt(out, BigInt(batch.partitionLeaderEpoch ?? -1), 4);
  out.push(batch.magic ?? 2);
  pushInt(out, BigInt(crc), 4);
  out.push(...afterCrc);
  return Buffer.from(out);
}

/** Reads the header fields of the batch at `position` (test-side, independent of host code). */
export function readTestBatchHeader(blob: Uint8Array, position = 0) {
  const view = new DataView(blob.buffer, blob.byteOffset + position);
  return {
    baseOffset: Number(view.getBigInt64(0)),
    batchLength: view.getInt32(8),
    partitionLeaderEpoch: view.getInt32(12),
    magic: view.getInt8(16),
    crc: view.getUint32(17),
    attributes: view.getInt16(21),
    lastOffsetDelta: view.getInt32(23),
    baseTimestamp: Number(view.getBigInt64(27)),
    maxTimestamp: Number(view.getBigInt64(35)),
    producerId: Number(view.getBigInt64(43)),
    producerEpoch: view.getInt16(51),
    baseSequence: view.getInt32(53),
    recordCount: view.getInt32(57),
  };
}

/** True when the stored CRC of the batch at `position` matches its bytes (bitwise reference). */
export function testBatchCrcValid(blob: Uint8Array, position = 0): boolean {
  const header = readTestBatchHeader(blob, position);
  const end = position + 12 + header.batchLength;
  return referenceCrc32c(blob.subarray(position + 21, end)) === header.crc;
}
