/**
 * A big-endian reader of Kafka protocol primitives with a *sticky error* (franz-go's kbin.Reader
 * style): a read past the end, a malformed varint or an impossible length never throws; it
 * records the first problem in `error`, moves the cursor to the end (so every later read fails
 * fast) and returns a zero value (0, false, '', null, an empty array or empty bytes). A decoder
 * therefore runs straight through and the caller checks `reader.error` once, turning a short or
 * malformed frame into CORRUPT_MESSAGE (2) / INVALID_REQUEST (42).
 *
 * Encodings (Kafka protocol guide, KIP-482 for the compact/flexible forms):
 * - STRING: int16 length then UTF-8 bytes, -1 = null. COMPACT_STRING: unsigned varint length+1, 0 = null.
 * - BYTES / RECORDS: int32 length, -1 = null. COMPACT_BYTES: unsigned varint length+1, 0 = null.
 * - ARRAY: int32 count, -1 = null. COMPACT_ARRAY: unsigned varint count+1, 0 = null.
 * - Tagged-field section: unsigned varint count, then per field uvarint tag, uvarint size, bytes.
 *
 * int64 / varlong values are returned as JS numbers: exact for |v| <= 2^53 - 1 (every offset,
 * timestamp and id Kafka uses in practice); larger magnitudes are rounded to the nearest double.
 * Bytes are returned zero-copy (subarrays of the input): they stay valid as long as the input does.
 */
export class Reader {
  /** The input as a Buffer view (no copy). */
  readonly buf: Buffer;
  /** Cursor: index in `buf` of the next byte to read. */
  offset: number;
  /** Index in `buf` one past the last readable byte. */
  readonly end: number;
  /** The first decoding problem, or null while everything read so far was well-formed. */
  error: string | null = null;
  /**
   * The most array elements (of every array, nested ones included, struct and primitive elements
   * alike) this reader may read in all; a count that would pass it fails like a malformed length
   * (so a decoder allocates nothing for it) and sets {@link arrayElementsExceeded}. Unbounded by
   * default; the broker sets `request.max.array.elements` on each request's reader.
   */
  maxArrayElements = Number.POSITIVE_INFINITY;
  /** Array elements announced by the counts read so far (the sum of every non-null array length). */
  arrayElements = 0;
  /** True once a count passed {@link maxArrayElements} (the error then says so). */
  arrayElementsExceeded = false;

  /**
   * @param data the bytes to read (a Buffer or any Uint8Array; not copied)
   * @param start first byte to read (default 0)
   * @param end one past the last byte to read (default data.length)
   */
  constructor(data: Uint8Array, start = 0, end = data.length) {
    this.buf = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    if (start < 0 || end > data.length || start > end) throw new RangeError(`Reader bounds [${start}, ${end}) outside [0, ${data.length}]`);
    this.offset = start;
    this.end = end;
  }

  /** Bytes left to read (0 after an error). */
  get remaining(): number {
    return this.end - this.offset;
  }

  /** True while no error has been recorded. */
  get ok(): boolean {
    return this.error === null;
  }

  /** Records `message` as the error unless one is already set, and exhausts the reader. */
  fail(message: string): void {
    if (this.error === null) this.error = message;
    this.offset = this.end;
  }

  private short(what: string): void {
    this.fail(`truncated input: cannot read ${what} at offset ${this.offset} (${this.end - this.offset} bytes left)`);
  }

  /** Advances past `n` bytes (fails when fewer remain or n < 0). */
  skip(n: number): void {
    if (n < 0 || this.offset + n > this.end) return this.short(`${n} skipped bytes`);
    this.offset += n;
  }

  int8(): number {
    if (this.offset + 1 > this.end) { this.short('int8'); return 0; }
    return (this.buf[this.offset++]! << 24) >> 24;
  }

  uint8(): number {
    if (this.offset + 1 > this.end) { this.short('uint8'); return 0; }
    return this.buf[this.offset++]!;
  }

  bool(): boolean {
    if (this.offset + 1 > this.end) { this.short('bool'); return false; }
    return this.buf[this.offset++] !== 0;
  }

  int16(): number {
    const o = this.offset;
    if (o + 2 > this.end) { this.short('int16'); return 0; }
    this.offset = o + 2;
    const b = this.buf;
    return (((b[o]! << 8) | b[o + 1]!) << 16) >> 16;
  }

  uint16(): number {
    const o = this.offset;
    if (o + 2 > this.end) { this.short('uint16'); return 0; }
    this.offset = o + 2;
    const b = this.buf;
    return (b[o]! << 8) | b[o + 1]!;
  }

  int32(): number {
    const o = this.offset;
    if (o + 4 > this.end) { this.short('int32'); return 0; }
    this.offset = o + 4;
    const b = this.buf;
    return (b[o]! << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!;
  }

  uint32(): number {
    const o = this.offset;
    if (o + 4 > this.end) { this.short('uint32'); return 0; }
    this.offset = o + 4;
    const b = this.buf;
    return ((b[o]! << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!) >>> 0;
  }

  /** int64 as a number: exact for |v| <= 2^53 - 1, rounded beyond (see class doc). */
  int64(): number {
    const o = this.offset;
    if (o + 8 > this.end) { this.short('int64'); return 0; }
    this.offset = o + 8;
    const b = this.buf;
    const high = (b[o]! << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!;
    const low = ((b[o + 4]! << 24) | (b[o + 5]! << 16) | (b[o + 6]! << 8) | b[o + 7]!) >>> 0;
    return high * 4294967296 + low;
  }

  float64(): number {
    const o = this.offset;
    if (o + 8 > this.end) { this.short('float64'); return 0; }
    this.offset = o + 8;
    return this.buf.readDoubleBE(o);
  }

  /** UUID (16 bytes) as 32 lowercase hex digits; Kafka's Uuid.ZERO_UUID is '0' x 32. */
  uuid(): string {
    const o = this.offset;
    if (o + 16 > this.end) { this.short('uuid'); return ZERO_UUID; }
    this.offset = o + 16;
    return this.buf.toString('hex', o, o + 16);
  }

  /** Unsigned LEB128 varint of at most 32 bits (5 bytes), as a non-negative number. */
  uvarint(): number {
    const b = this.buf;
    let o = this.offset;
    const end = this.end;
    let result = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      if (o >= end) { this.short('varint'); return 0; }
      const byte = b[o++]!;
      if (shift === 28 && byte > 0x0f) { this.fail(`malformed varint: more than 32 bits at offset ${this.offset}`); return 0; }
      result += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) { this.offset = o; return result; }
    }
    this.fail(`malformed varint: longer than 5 bytes at offset ${this.offset}`);
    return 0;
  }

  /**
   * Reads an unsigned LEB128 varlong (at most 10 bytes, 64 bits) as two uint32 halves, leaving them
   * in `high`/`low` (exact, unlike a double); returns false after an error.
   */
  private varlongHalves(): boolean {
    const b = this.buf;
    let o = this.offset;
    const end = this.end;
    let low = 0;
    let high = 0;
    for (let i = 0; i < 10; i++) {
      if (o >= end) { this.short('varlong'); return false; }
      const byte = b[o++]!;
      const bits = byte & 0x7f;
      const shift = 7 * i;
      if (shift < 32) {
        low |= bits << shift;
        if (shift > 25) high |= bits >>> (32 - shift);
      } else {
        high |= bits << (shift - 32);
      }
      if (i === 9 && byte > 0x01) { this.fail(`malformed varlong: more than 64 bits at offset ${this.offset}`); return false; }
      if (byte < 0x80) {
        this.offset = o;
        this.low = low >>> 0;
        this.high = high >>> 0;
        return true;
      }
    }
    this.fail(`malformed varlong: longer than 10 bytes at offset ${this.offset}`);
    return false;
  }

  private low = 0;
  private high = 0;

  /** Unsigned LEB128 varlong of at most 64 bits (10 bytes), as a number (exact up to 2^53 - 1). */
  uvarlong(): number {
    if (!this.varlongHalves()) return 0;
    return this.high * 4294967296 + this.low;
  }

  /** Zigzag-encoded signed varint (int32 range), as used inside record batches. */
  varint(): number {
    const u = this.uvarint();
    return (u >>> 1) ^ -(u & 1);
  }

  /** Zigzag-encoded signed varlong, as a number (exact for |v| <= 2^53 - 1). */
  varlong(): number {
    if (!this.varlongHalves()) return 0;
    const high = this.high;
    const low = this.low;
    // (u >>> 1) over 64 bits, then zigzag: even -> u/2, odd -> -(u/2) - 1.
    const half = (high >>> 1) * 4294967296 + ((((high & 1) << 31) | (low >>> 1)) >>> 0);
    return (low & 1) === 0 ? half : -half - 1;
  }

  private utf8(length: number): string {
    const o = this.offset;
    if (o + length > this.end) { this.short(`string of ${length} bytes`); return ''; }
    this.offset = o + length;
    const b = this.buf;
    if (length < 24) {
      // Short ASCII strings (topic names, client ids) are cheaper to build in JS than via a native call.
      let s = '';
      for (let i = o; i < o + length; i++) {
        const c = b[i]!;
        if (c >= 0x80) return b.toString('utf8', o, o + length);
        s += String.fromCharCode(c);
      }
      return s;
    }
    return b.toString('utf8', o, o + length);
  }

  /** STRING (int16 length). A null (-1) in a non-nullable position reads as ''. */
  string(): string {
    const length = this.int16();
    if (length < 0) {
      if (length !== -1) this.fail(`invalid string length ${length}`);
      return '';
    }
    return this.utf8(length);
  }

  /** NULLABLE_STRING (int16 length, -1 = null). */
  nullableString(): string | null {
    const length = this.int16();
    if (length < 0) {
      if (length !== -1) this.fail(`invalid string length ${length}`);
      return null;
    }
    return this.utf8(length);
  }

  /** COMPACT_STRING (uvarint length+1). A null (0) in a non-nullable position reads as ''. */
  compactString(): string {
    const n = this.uvarint();
    if (n === 0) return '';
    return this.utf8(n - 1);
  }

  /** COMPACT_NULLABLE_STRING (uvarint length+1, 0 = null). */
  compactNullableString(): string | null {
    const n = this.uvarint();
    if (n === 0) return null;
    return this.utf8(n - 1);
  }

  private slice(length: number): Uint8Array {
    const o = this.offset;
    if (o + length > this.end) { this.short(`${length} bytes`); return EMPTY_BYTES; }
    this.offset = o + length;
    return this.buf.subarray(o, o + length);
  }

  /** BYTES (int32 length), zero-copy. A null (-1) in a non-nullable position reads as empty. */
  bytes(): Uint8Array {
    const length = this.int32();
    if (length < 0) {
      if (length !== -1) this.fail(`invalid bytes length ${length}`);
      return EMPTY_BYTES;
    }
    return this.slice(length);
  }

  /** NULLABLE_BYTES / RECORDS (int32 length, -1 = null), zero-copy. */
  nullableBytes(): Uint8Array | null {
    const length = this.int32();
    if (length < 0) {
      if (length !== -1) this.fail(`invalid bytes length ${length}`);
      return null;
    }
    return this.slice(length);
  }

  /** COMPACT_BYTES (uvarint length+1), zero-copy. A null (0) in a non-nullable position reads as empty. */
  compactBytes(): Uint8Array {
    const n = this.uvarint();
    if (n === 0) return EMPTY_BYTES;
    return this.slice(n - 1);
  }

  /** COMPACT_NULLABLE_BYTES / COMPACT_RECORDS (uvarint length+1, 0 = null), zero-copy. */
  compactNullableBytes(): Uint8Array | null {
    const n = this.uvarint();
    if (n === 0) return null;
    return this.slice(n - 1);
  }

  /** `n` raw bytes, zero-copy. */
  raw(n: number): Uint8Array {
    if (n < 0) { this.fail(`invalid raw length ${n}`); return EMPTY_BYTES; }
    return this.slice(n);
  }

  /**
   * ARRAY count (int32, -1 = null -> returns -1). A count larger than the bytes left (every element
   * takes at least one byte) is malformed: it fails instead of letting a decoder allocate 2^31 slots.
   */
  arrayLength(): number {
    const n = this.int32();
    return this.checkCount(n);
  }

  /** COMPACT_ARRAY count (uvarint count+1, 0 = null -> returns -1), checked like `arrayLength`. */
  compactArrayLength(): number {
    const u = this.uvarint();
    if (u === 0 && this.error !== null) return 0;
    return this.checkCount(u - 1);
  }

  private checkCount(n: number): number {
    if (n < -1) { this.fail(`invalid array length ${n}`); return 0; }
    if (n > this.end - this.offset) { this.fail(`array length ${n} exceeds the ${this.end - this.offset} bytes left`); return 0; }
    if (n > 0) {
      this.arrayElements += n;
      if (this.arrayElements > this.maxArrayElements) { this.failArrayElements(); return 0; }
    }
    return n;
  }

  private failArrayElements(): void {
    this.arrayElementsExceeded = true;
    this.fail(`more than ${this.maxArrayElements} array elements (at least ${this.arrayElements}) in one message`);
  }

  /**
   * Refuses, before anything is allocated, a body holding more array elements than
   * {@link maxArrayElements}: when the bytes left could hold more elements than that (every element
   * takes at least one byte, so smaller bodies cannot), runs `skim` (a generated pass over the
   * same layout that reads counts and skips values, allocating nothing) on a copy of this reader
   * and fails this one with the same error if the skim passed the limit. A skim that meets
   * malformed input just stops: the decoder that follows reports it. Costs O(structs in the body)
   * without allocation, and stops at the limit.
   */
  checkArrayElements(skim: (r: Reader, version: number) => void, version: number): void {
    if (this.error !== null || this.end - this.offset <= this.maxArrayElements - this.arrayElements) return;
    const ahead = new Reader(this.buf, this.offset, this.end);
    ahead.maxArrayElements = this.maxArrayElements;
    ahead.arrayElements = this.arrayElements;
    skim(ahead, version);
    if (!ahead.arrayElementsExceeded) return;
    this.arrayElements = ahead.arrayElements;
    this.failArrayElements();
  }

  /** Skips a STRING / NULLABLE_STRING (int16 length, -1 = null). For skims: a bad length skips nothing. */
  skipString(): void {
    const length = this.int16();
    if (length > 0) this.skip(length);
  }

  /** Skips a BYTES / NULLABLE_BYTES / RECORDS (int32 length, -1 = null). For skims: a bad length skips nothing. */
  skipBytes(): void {
    const length = this.int32();
    if (length > 0) this.skip(length);
  }

  /** Skips a COMPACT_(NULLABLE_)STRING, BYTES or RECORDS (uvarint length+1, 0 = null): one layout. */
  skipCompactBytes(): void {
    const n = this.uvarint();
    if (n > 1) this.skip(n - 1);
  }

  /** Reads a tagged-field section and skips every field in it (all tags unknown to the caller). */
  skipTaggedFields(): void {
    const count = this.uvarint();
    for (let i = 0; i < count && this.error === null; i++) {
      this.uvarint(); // tag
      this.skip(this.uvarint());
    }
  }

  /** Generic helper for hand-written decoders: an ARRAY (int32 count, null -> []) of `element()`. */
  array<T>(element: (r: Reader) => T): T[] {
    const n = this.arrayLength();
    const out: T[] = [];
    for (let i = 0; i < n && this.error === null; i++) out.push(element(this));
    return out;
  }

  /** Generic helper: a COMPACT_ARRAY (uvarint count+1, null -> []) of `element()`. */
  compactArray<T>(element: (r: Reader) => T): T[] {
    const n = this.compactArrayLength();
    const out: T[] = [];
    for (let i = 0; i < n && this.error === null; i++) out.push(element(this));
    return out;
  }
}

/** Kafka's Uuid.ZERO_UUID in our hex representation. */
export const ZERO_UUID = '00000000000000000000000000000000';

/** A shared empty byte array (length 0, so it cannot be mutated). */
export const EMPTY_BYTES: Uint8Array = new Uint8Array(0);
