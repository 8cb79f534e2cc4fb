/**
 * A growable big-endian writer of Kafka protocol primitives (the same encodings `Reader` reads).
 * Writes go straight into one Buffer that doubles when full; `toBuffer()` returns a view of the
 * written bytes (no copy). Length prefixes that are only known afterwards (frame sizes, tagged
 * field sizes) are reserved and patched in place.
 *
 * Numbers given for int64 / varlong must be integers with |v| <= 2^53 - 1 (see Reader). Values are
 * not range-checked on the hot path: an int16 given 70000 is truncated like a Java cast; that is
 * a bug in the caller, never client input.
 */
export class Writer {
  /** Backing storage; bytes [0, length) are the output. Replaced when the writer grows. */
  buf: Buffer;
  /** Number of bytes written. */
  length = 0;

  /** @param initialCapacity starting size of the backing Buffer in bytes */
  constructor(initialCapacity = 256) {
    this.buf = Buffer.allocUnsafe(Math.max(16, initialCapacity));
  }

  /** Makes room for `n` more bytes (grows by doubling). */
  ensure(n: number): void {
    const needed = this.length + n;
    if (needed <= this.buf.length) return;
    let capacity = this.buf.length * 2;
    while (capacity < needed) capacity *= 2;
    const next = Buffer.allocUnsafe(capacity);
    this.buf.copy(next, 0, 0, this.length);
    this.buf = next;
  }

  /** The bytes written so far: a view of the backing Buffer (valid until the next write that grows it). */
  toBuffer(): Buffer {
    return this.buf.subarray(0, this.length);
  }

  /** Forgets everything written (keeps the capacity) so the writer can be reused. */
  reset(): void {
    this.length = 0;
  }

  int8(v: number): void {
    this.ensure(1);
    this.buf[this.length++] = v & 0xff;
  }

  uint8(v: number): void {
    this.int8(v);
  }

  bool(v: boolean): void {
    this.ensure(1);
    this.buf[this.length++] = v ? 1 : 0;
  }

  int16(v: number): void {
    this.ensure(2);
    const b = this.buf;
    const o = this.length;
    b[o] = (v >>> 8) & 0xff;
    b[o + 1] = v & 0xff;
    this.length = o + 2;
  }

  uint16(v: number): void {
    this.int16(v);
  }

  int32(v: number): void {
    this.ensure(4);
    const b = this.buf;
    const o = this.length;
    b[o] = (v >>> 24) & 0xff;
    b[o + 1] = (v >>> 16) & 0xff;
    b[o + 2] = (v >>> 8) & 0xff;
    b[o + 3] = v & 0xff;
    this.length = o + 4;
  }

  uint32(v: number): void {
    this.int32(v);
  }

  /** int64 from a safe-integer number (two's complement for negatives). */
  int64(v: number): void {
    this.ensure(8);
    const high = Math.floor(v / 4294967296);
    const low = v - high * 4294967296;
    const b = this.buf;
    const o = this.length;
    b[o] = (high >>> 24) & 0xff;
    b[o + 1] = (high >>> 16) & 0xff;
    b[o + 2] = (high >>> 8) & 0xff;
    b[o + 3] = high & 0xff;
    b[o + 4] = (low >>> 24) & 0xff;
    b[o + 5] = (low >>> 16) & 0xff;
    b[o + 6] = (low >>> 8) & 0xff;
    b[o + 7] = low & 0xff;
    this.length = o + 8;
  }

  float64(v: number): void {
    this.ensure(8);
    this.buf.writeDoubleBE(v, this.length);
    this.length += 8;
  }

  /** UUID from 32 hex digits (dashes allowed and ignored). */
  uuid(hex: string): void {
    const digits = hex.length === 32 ? hex : hex.replace(/-/g, '');
    if (digits.length !== 32) throw new RangeError(`uuid must be 32 hex digits, got ${JSON.stringify(hex)}`);
    this.ensure(16);
    const written = this.buf.write(digits, this.length, 16, 'hex');
    if (written !== 16) throw new RangeError(`uuid must be 32 hex digits, got ${JSON.stringify(hex)}`);
    this.length += 16;
  }

  /** Unsigned LEB128 varint; `v` in [0, 2^32 - 1]. */
  uvarint(v: number): void {
    this.ensure(5);
    const b = this.buf;
    let o = this.length;
    let x = v >>> 0;
    while (x >= 0x80) {
      b[o++] = (x & 0x7f) | 0x80;
      x >>>= 7;
    }
    b[o++] = x;
    this.length = o;
  }

  /** Unsigned LEB128 varlong; `v` a non-negative safe integer. */
  uvarlong(v: number): void {
    const high = Math.floor(v / 4294967296);
    this.varlongHalves(high >>> 0, (v - high * 4294967296) >>> 0);
  }

  /** Zigzag signed varint (int32 range). */
  varint(v: number): void {
    this.uvarint(((v << 1) ^ (v >> 31)) >>> 0);
  }

  /** Zigzag signed varlong from a safe-integer number (exact over the whole safe range). */
  varlong(v: number): void {
    const magnitude = Math.abs(v);
    const h = Math.floor(magnitude / 4294967296);
    const l = (magnitude - h * 4294967296) >>> 0;
    // zigzag = 2|v| for v >= 0, 2|v| - 1 for v < 0, computed on 64 bits as two uint32 halves.
    let high = ((h << 1) | (l >>> 31)) >>> 0;
    let low = (l << 1) >>> 0;
    if (v < 0) {
      if (low === 0) high = (high - 1) >>> 0;
      low = (low - 1) >>> 0;
    }
    this.varlongHalves(high, low);
  }

  private varlongHalves(high: number, low: number): void {
    this.ensure(10);
    const b = this.buf;
    let o = this.length;
    while (high !== 0 || low >= 0x80) {
      b[o++] = (low & 0x7f) | 0x80;
      low = ((low >>> 7) | ((high & 0x7f) << 25)) >>> 0;
      high >>>= 7;
    }
    b[o++] = low;
    this.length = o;
  }

  /** Raw bytes, copied. */
  raw(data: Uint8Array): void {
    const n = data.length;
    this.ensure(n);
    this.buf.set(data, this.length);
    this.length += n;
  }

  /** STRING: int16 length + UTF-8. */
  string(s: string): void {
    this.ensure(2 + s.length * 3);
    const start = this.length;
    const n = this.buf.write(s, start + 2, 'utf8');
    this.buf[start] = (n >>> 8) & 0xff;
    this.buf[start + 1] = n & 0xff;
    this.length = start + 2 + n;
  }

  /** NULLABLE_STRING: int16 length (-1 = null) + UTF-8. */
  nullableString(s: string | null): void {
    if (s === null) this.int16(-1);
    else this.string(s);
  }

  /** COMPACT_STRING: uvarint length+1 + UTF-8. */
  compactString(s: string): void {
    const maxBytes = s.length * 3;
    if (maxBytes < 127) {
      // The length prefix is surely one byte: write the text first, then the prefix.
      this.ensure(1 + maxBytes);
      const start = this.length;
      const n = this.buf.write(s, start + 1, 'utf8');
      this.buf[start] = n + 1;
      this.length = start + 1 + n;
      return;
    }
    const n = Buffer.byteLength(s, 'utf8');
    this.uvarint(n + 1);
    this.ensure(n);
    this.length += this.buf.write(s, this.length, 'utf8');
  }

  /** COMPACT_NULLABLE_STRING: uvarint length+1 (0 = null) + UTF-8. */
  compactNullableString(s: string | null): void {
    if (s === null) this.uvarint(0);
    else this.compactString(s);
  }

  /** BYTES: int32 length + bytes. */
  bytes(data: Uint8Array): void {
    this.int32(data.length);
    this.raw(data);
  }

  /** NULLABLE_BYTES / RECORDS: int32 length (-1 = null) + bytes. */
  nullableBytes(data: Uint8Array | null): void {
    if (data === null) this.int32(-1);
    else this.bytes(data);
  }

  /** COMPACT_BYTES: uvarint length+1 + bytes. */
  compactBytes(data: Uint8Array): void {
    this.uvarint(data.length + 1);
    this.raw(data);
  }

  /** COMPACT_NULLABLE_BYTES / COMPACT_RECORDS: uvarint length+1 (0 = null) + bytes. */
  compactNullableBytes(data: Uint8Array | null): void {
    if (data === null) this.uvarint(0);
    else this.compactBytes(data);
  }

  /** ARRAY count: int32, -1 for null. */
  arrayLength(n: number): void {
    this.int32(n);
  }

  /** COMPACT_ARRAY count: uvarint count+1, pass -1 for null (writes 0). */
  compactArrayLength(n: number): void {
    this.uvarint(n + 1);
  }

  /** An empty tagged-field section (the single byte 0x00). */
  emptyTaggedFields(): void {
    this.ensure(1);
    this.buf[this.length++] = 0;
  }

  /**
   * Starts one tagged field: writes its tag and returns a mark; write the value, then call
   * `endTaggedField(mark)`, which inserts the value's uvarint size before it (shifting the value
   * by the size's width). Avoids a scratch buffer for the rare tagged values.
   */
  beginTaggedField(tag: number): number {
    this.uvarint(tag);
    return this.length;
  }

  /** Completes a tagged field begun with `beginTaggedField` (see there). */
  endTaggedField(mark: number): void {
    const size = this.length - mark;
    const width = uvarintSize(size);
    this.ensure(width);
    this.buf.copyWithin(mark + width, mark, this.length);
    let o = mark;
    let x = size;
    while (x >= 0x80) {
      this.buf[o++] = (x & 0x7f) | 0x80;
      x >>>= 7;
    }
    this.buf[o] = x;
    this.length += width;
  }

  /** Reserves 4 bytes for an int32 patched later (e.g. a frame size); returns their position. */
  reserveInt32(): number {
    this.ensure(4);
    const at = this.length;
    this.length += 4;
    return at;
  }

  /** Writes `v` as int32 at `position` (a slot from `reserveInt32`) without moving the end. */
  patchInt32(position: number, v: number): void {
    const b = this.buf;
    b[position] = (v >>> 24) & 0xff;
    b[position + 1] = (v >>> 16) & 0xff;
    b[position + 2] = (v >>> 8) & 0xff;
    b[position + 3] = v & 0xff;
  }

  /** Generic helper for hand-written encoders: an ARRAY of `items` written by `element`. */
  array<T>(items: readonly T[] | null, element: (w: Writer, item: T) => void): void {
    if (items === null) { this.int32(-1); return; }
    this.int32(items.length);
    for (const item of items) element(this, item);
  }

  /** Generic helper: a COMPACT_ARRAY of `items` written by `element`. */
  compactArray<T>(items: readonly T[] | null, element: (w: Writer, item: T) => void): void {
    if (items === null) { this.uvarint(0); return; }
    this.uvarint(items.length + 1);
    for (const item of items) element(this, item);
  }
}

/** Bytes an unsigned varint of `v` (0..2^32-1) takes. */
export function uvarintSize(v: number): number {
  if (v < 0x80) return 1;
  if (v < 0x4000) return 2;
  if (v < 0x200000) return 3;
  if (v < 0x10000000) return 4;
  return 5;
}
