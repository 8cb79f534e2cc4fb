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
  for (const byte of bytes) out.push(byte);
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
  for (const byte of body) out.push(byte);
  return out;
}

/** Encodes one batch; every field can be set to anything, including invalid values. */
export function encodeTestBatch(batch: TestBatch): Buffer {
  const records = batch.records ?? [];
  const recordBytes: number[] = [];
  const append = (bytes: ArrayLike<number>) => { for (let i = 0; i < bytes.length; i++) recordBytes.push(bytes[i]!); };
  if (batch.rawRecords) append(batch.rawRecords);
  else records.forEach((record, index) => append(encodeTestRecord(record, index)));

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
  for (const byte of recordBytes) afterCrc.push(byte);

  const crc = batch.crcOverride ?? referenceCrc32c(Uint8Array.from(afterCrc));
  const out: number[] = [];
  pushInt(out, BigInt(batch.baseOffset ?? 0), 8);
  pushInt(out, BigInt(4 + 1 + 4 + afterCrc.length), 4); // epoch + magic + crc + rest
  pushInt(out, BigInt(batch.partitionLeaderEpoch ?? -1), 4);
  out.push(batch.magic ?? 2);
  pushInt(out, BigInt(crc), 4);
  for (const byte of afterCrc) out.push(byte);
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

/** Reads a zig-zag varint (maxBytes 5) or varlong (maxBytes 10); null when malformed or past `end`. */
function readZigzag(bytes: Uint8Array, at: number, end: number, maxBytes: number): { value: bigint; next: number } | null {
  let raw = 0n;
  for (let i = 0; i < maxBytes; i++) {
    if (at >= end) return null;
    const b = bytes[at++]!;
    raw |= BigInt(b & 0x7f) << BigInt(7 * i);
    if ((b & 0x80) === 0) {
      const bits = maxBytes === 5 ? 32 : 64;
      raw = BigInt.asUintN(bits, raw);
      const value = (raw >> 1n) ^ -(raw & 1n);
      return { value: maxBytes === 5 ? BigInt.asIntN(32, value) : BigInt.asIntN(64, value), next: at };
    }
  }
  return null;
}

export interface DecodedTestRecord {
  offsetDelta: number;
  timestampDelta: bigint;
  key: Uint8Array | null;
  value: Uint8Array | null;
  headers: { key: Uint8Array; value: Uint8Array | null }[];
}

/**
 * Decodes an uncompressed records section with the strict rules of a fresh batch (offset deltas
 * 0..n-1, every field inside its record, records filling the section exactly). Null when the
 * section is invalid. Used as the differential oracle for the core's record walk.
 */
export function decodeTestRecordsStrict(section: Uint8Array, recordCount: number): DecodedTestRecord[] | null {
  const out: DecodedTestRecord[] = [];
  let at = 0;
  const end = section.length;
  const lengthPrefixed = (cursor: number, recordEnd: number, allowNull: boolean) => {
    const length = readZigzag(section, cursor, recordEnd, 5);
    if (!length) return null;
    const n = Number(length.value);
    if (n === -1 && allowNull) return { bytes: null, next: length.next };
    if (n < 0 || length.next + n > recordEnd) return null;
    return { bytes: section.subarray(length.next, length.next + n), next: length.next + n };
  };
  for (let i = 0; i < recordCount; i++) {
    const length = readZigzag(section, at, end, 5);
    if (!length) return null;
    const n = Number(length.value);
    if (n <= 0 || length.next + n > end) return null;
    const recordEnd = length.next + n;
    let cursor = length.next + 1;
    const timestampDelta = readZigzag(section, cursor, recordEnd, 10);
    if (!timestampDelta) return null;
    const offsetDelta = readZigzag(section, timestampDelta.next, recordEnd, 5);
    if (!offsetDelta || Number(offsetDelta.value) !== i) return null;
    const key = lengthPrefixed(offsetDelta.next, recordEnd, true);
    if (!key) return null;
    const value = lengthPrefixed(key.next, recordEnd, true);
    if (!value) return null;
    const headerCount = readZigzag(section, value.next, recordEnd, 5);
    if (!headerCount || headerCount.value < 0n) return null;
    cursor = headerCount.next;
    const headers: DecodedTestRecord['headers'] = [];
    for (let h = 0; h < Number(headerCount.value); h++) {
      const headerKey = lengthPrefixed(cursor, recordEnd, false);
      if (!headerKey) return null;
      const headerValue = lengthPrefixed(headerKey.next, recordEnd, true);
      if (!headerValue) return null;
      headers.push({ key: headerKey.bytes!, value: headerValue.bytes });
      cursor = headerValue.next;
    }
    if (cursor !== recordEnd) return null;
    out.push({ offsetDelta: i, timestampDelta: timestampDelta.value, key: key.bytes, value: value.bytes, headers });
    at = recordEnd;
  }
  return at === end ? out : null;
}

/** Re-signs the batch at `position` in place with a correct CRC (for mutating covered bytes). */
export function resignTestBatch(blob: Uint8Array, position = 0): void {
  const view = new DataView(blob.buffer, blob.byteOffset + position);
  const end = position + 12 + view.getInt32(8);
  view.setUint32(17, referenceCrc32c(blob.subarray(position + 21, end)));
}
