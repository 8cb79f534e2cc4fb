import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EMPTY_BYTES, Reader, ZERO_UUID } from '../../host/protocol/reader.js';
import { uvarintSize, Writer } from '../../host/protocol/writer.js';

/** One primitive: how to write a value, how to read it back, its zero value, and values to try. */
interface Primitive<T> {
  name: string;
  arbitrary: fc.Arbitrary<T>;
  write: (w: Writer, v: T) => void;
  read: (r: Reader) => T;
  zero: unknown;
}

function primitive<T>(p: Primitive<T>): Primitive<unknown> {
  return p as unknown as Primitive<unknown>;
}

const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), fc.string({ maxLength: 10 }));
const blob: fc.Arbitrary<Uint8Array> = fc.uint8Array({ maxLength: 300 });

const PRIMITIVES: Primitive<unknown>[] = [
  primitive({ name: 'int8', arbitrary: fc.integer({ min: -128, max: 127 }), write: (w, v) => w.int8(v), read: (r) => r.int8(), zero: 0 }),
  primitive({ name: 'uint8', arbitrary: fc.integer({ min: 0, max: 255 }), write: (w, v) => w.uint8(v), read: (r) => r.uint8(), zero: 0 }),
  primitive({ name: 'bool', arbitrary: fc.boolean(), write: (w, v) => w.bool(v), read: (r) => r.bool(), zero: false }),
  primitive({ name: 'int16', arbitrary: fc.integer({ min: -32768, max: 32767 }), write: (w, v) => w.int16(v), read: (r) => r.int16(), zero: 0 }),
  primitive({ name: 'uint16', arbitrary: fc.integer({ min: 0, max: 65535 }), write: (w, v) => w.uint16(v), read: (r) => r.uint16(), zero: 0 }),
  primitive({ name: 'int32', arbitrary: fc.integer(), write: (w, v) => w.int32(v), read: (r) => r.int32(), zero: 0 }),
  primitive({ name: 'uint32', arbitrary: fc.integer({ min: 0, max: 0xffffffff }), write: (w, v) => w.uint32(v), read: (r) => r.uint32(), zero: 0 }),
  primitive({ name: 'int64', arbitrary: fc.maxSafeInteger(), write: (w, v) => w.int64(v), read: (r) => r.int64(), zero: 0 }),
  primitive({ name: 'float64', arbitrary: fc.double(), write: (w, v) => w.float64(v), read: (r) => r.float64(), zero: 0 }),
  primitive({ name: 'uuid', arbitrary: fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => Buffer.from(b).toString('hex')), write: (w, v) => w.uuid(v), read: (r) => r.uuid(), zero: ZERO_UUID }),
  primitive({ name: 'uvarint', arbitrary: fc.integer({ min: 0, max: 0xffffffff }), write: (w, v) => w.uvarint(v), read: (r) => r.uvarint(), zero: 0 }),
  primitive({ name: 'uvarlong', arbitrary: fc.maxSafeNat(), write: (w, v) => w.uvarlong(v), read: (r) => r.uvarlong(), zero: 0 }),
  primitive({ name: 'varint', arbitrary: fc.integer(), write: (w, v) => w.varint(v), read: (r) => r.varint(), zero: 0 }),
  primitive({ name: 'varlong', arbitrary: fc.maxSafeInteger(), write: (w, v) => w.varlong(v), read: (r) => r.varlong(), zero: 0 }),
  primitive({ name: 'string', arbitrary: text, write: (w, v) => w.string(v), read: (r) => r.string(), zero: '' }),
  primitive({ name: 'nullableString', arbitrary: fc.option(text), write: (w, v) => w.nullableString(v), read: (r) => r.nullableString(), zero: null }),
  primitive({ name: 'compactString', arbitrary: text, write: (w, v) => w.compactString(v), read: (r) => r.compactString(), zero: '' }),
  primitive({ name: 'compactNullableString', arbitrary: fc.option(text), write: (w, v) => w.compactNullableString(v), read: (r) => r.compactNullableString(), zero: null }),
  primitive({ name: 'bytes', arbitrary: blob, write: (w, v) => w.bytes(v), read: (r) => r.bytes(), zero: EMPTY_BYTES }),
  primitive({ name: 'nullableBytes', arbitrary: fc.option(blob), write: (w, v) => w.nullableBytes(v), read: (r) => r.nullableBytes(), zero: null }),
  primitive({ name: 'compactBytes', arbitrary: blob, write: (w, v) => w.compactBytes(v), read: (r) => r.compactBytes(), zero: EMPTY_BYTES }),
  primitive({ name: 'compactNullableBytes', arbitrary: fc.option(blob), write: (w, v) => w.compactNullableBytes(v), read: (r) => r.compactNullableBytes(), zero: null }),
  primitive({ name: 'arrayLength', arbitrary: fc.integer({ min: -1, max: 3 }), write: (w, v) => { w.arrayLength(v); w.raw(new Uint8Array(Math.max(0, v))); }, read: (r) => { const n = r.arrayLength(); r.skip(Math.max(0, n)); return n; }, zero: 0 }),
  primitive({ name: 'compactArrayLength', arbitrary: fc.integer({ min: -1, max: 200 }), write: (w, v) => { w.compactArrayLength(v); w.raw(new Uint8Array(Math.max(0, v))); }, read: (r) => { const n = r.compactArrayLength(); r.skip(Math.max(0, n)); return n; }, zero: 0 }),
];

function plain(v: unknown): unknown {
  return v instanceof Uint8Array ? Array.from(v) : v;
}

describe('Reader and Writer', () => {
  for (const p of PRIMITIVES) {
    it(`round-trip any ${p.name}, also between other values`, () => {
      fc.assert(fc.property(fc.array(p.arbitrary, { minLength: 1, maxLength: 5 }), (values) => {
        const w = new Writer(16); // small, so writes cross growth boundaries
        w.int8(0x5a);
        for (const v of values) p.write(w, v);
        w.int8(0x33);
        const r = new Reader(w.toBuffer());
        expect(r.int8()).toBe(0x5a);
        for (const v of values) expect(plain(p.read(r))).toEqual(plain(v));
        expect(r.int8()).toBe(0x33);
        expect(r.error).toBeNull();
        expect(r.remaining).toBe(0);
      }), { numRuns: 150 });
    });

    it(`sets the sticky error and returns the zero value for every truncation of a ${p.name}`, () => {
      fc.assert(fc.property(p.arbitrary, (v) => {
        const w = new Writer();
        p.write(w, v);
        const bytes = Buffer.from(w.toBuffer());
        for (let cut = 0; cut < bytes.length; cut++) {
          const r = new Reader(bytes.subarray(0, cut));
          let value: unknown;
          expect(() => { value = p.read(r); }).not.toThrow();
          expect(r.error, `${p.name} cut at ${cut}/${bytes.length}`).not.toBeNull();
          // A nullable read cut inside its payload may yield either zero value of its type.
          expect([plain(p.zero), ...(p.zero === null ? [''] : []), ...(p.zero === null ? [[]] : [])]).toContainEqual(plain(value));
          // Sticky: the first error stays, and later reads keep returning zero values.
          const first = r.error;
          expect(r.int32()).toBe(0);
          expect(r.error).toBe(first);
          expect(r.remaining).toBe(0);
        }
      }), { numRuns: 40 });
    });
  }

  it('encodes int64 big-endian in two\'s complement and reads it back exactly up to 2^53 - 1', () => {
    const w = new Writer();
    w.int64(-1);
    w.int64(Number.MAX_SAFE_INTEGER);
    w.int64(-Number.MAX_SAFE_INTEGER);
    w.int64(0x0102030405);
    expect(w.toBuffer().toString('hex')).toBe(
      'ffffffffffffffff' + '001fffffffffffff' + 'ffe0000000000001' + '0000000102030405');
    const r = new Reader(w.toBuffer());
    expect([r.int64(), r.int64(), r.int64(), r.int64()]).toEqual([-1, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 0x0102030405]);
    expect(new Reader(Buffer.from(w.toBuffer())).buf.readBigInt64BE(8)).toBe(BigInt(Number.MAX_SAFE_INTEGER));
  });

  it('matches the reference varint encodings (LEB128, zigzag)', () => {
    const cases: [(w: Writer) => void, string][] = [
      [(w) => w.uvarint(0), '00'], [(w) => w.uvarint(127), '7f'], [(w) => w.uvarint(128), '8001'],
      [(w) => w.uvarint(300), 'ac02'], [(w) => w.uvarint(0xffffffff), 'ffffffff0f'],
      [(w) => w.varint(0), '00'], [(w) => w.varint(-1), '01'], [(w) => w.varint(1), '02'], [(w) => w.varint(-64), '7f'],
      [(w) => w.varint(2147483647), 'feffffff0f'], [(w) => w.varint(-2147483648), 'ffffffff0f'],
      [(w) => w.varlong(-1), '01'], [(w) => w.varlong(2 ** 40), '808080808040'],
    ];
    for (const [write, hex] of cases) {
      const w = new Writer();
      write(w);
      expect(w.toBuffer().toString('hex')).toBe(hex);
    }
    for (const v of [0, 1, 127, 128, 16383, 16384, 2097151, 2097152, 268435455, 268435456, 0xffffffff]) {
      const w = new Writer();
      w.uvarint(v);
      expect(w.length).toBe(uvarintSize(v));
    }
  });

  it('rejects malformed varints: too long, or more than 32/64 bits', () => {
    for (const hex of ['ffffffffff01', 'ffffffff10', 'ffffffffffffffffffff']) {
      const r = new Reader(Buffer.from(hex, 'hex'));
      expect(r.uvarint()).toBe(0);
      expect(r.error).toMatch(/malformed varint/);
    }
    const r = new Reader(Buffer.from('ffffffffffffffffff02', 'hex'));
    expect(r.uvarlong()).toBe(0);
    expect(r.error).toMatch(/malformed varlong/);
    const r2 = new Reader(Buffer.from('ffffffffffffffffffff01', 'hex'));
    expect(r2.varlong()).toBe(0);
    expect(r2.error).toMatch(/malformed varlong/);
  });

  it('rejects lengths below -1 and array counts larger than the bytes left', () => {
    const cases: [string, (r: Reader) => unknown][] = [
      ['fffe', (r) => r.string()], ['fffe', (r) => r.nullableString()],
      ['fffffffe', (r) => r.bytes()], ['fffffffe', (r) => r.nullableBytes()], ['fffffffe', (r) => r.arrayLength()],
      ['000003e8000000', (r) => r.arrayLength()], ['e807', (r) => r.compactArrayLength()],
      ['7fffffff', (r) => r.bytes()], ['7fff', (r) => r.string()],
    ];
    for (const [hex, read] of cases) {
      const r = new Reader(Buffer.from(hex, 'hex'));
      read(r);
      expect(r.error, hex).not.toBeNull();
    }
  });

  it('reads null as the empty value where null is not allowed', () => {
    const r = new Reader(Buffer.from('ffff' + 'ffffffff' + '00' + '00', 'hex'));
    expect(r.string()).toBe('');
    expect(r.bytes().length).toBe(0);
    expect(r.compactString()).toBe('');
    expect(r.compactBytes().length).toBe(0);
    expect(r.error).toBeNull();
  });

  it('returns bytes as zero-copy views of the input', () => {
    const input = Buffer.from('00000003aabbcc', 'hex');
    const bytes = new Reader(input).bytes();
    input[4] = 0x11;
    expect(bytes[0]).toBe(0x11);
  });

  it('reads from a sub-range of a Uint8Array that is not a Buffer', () => {
    const data = new Uint8Array([9, 9, 0, 1, 0, 2, 9]);
    const r = new Reader(data, 2, 6);
    expect([r.int16(), r.int16()]).toEqual([1, 2]);
    expect(r.remaining).toBe(0);
    r.int8();
    expect(r.error).not.toBeNull();
  });

  it('writes tagged fields with their uvarint size in front, whatever the size\'s width', () => {
    fc.assert(fc.property(fc.array(fc.uint8Array({ maxLength: 20000 }), { maxLength: 4 }), (values) => {
      const w = new Writer(8);
      w.uvarint(values.length);
      values.forEach((v, i) => {
        const mark = w.beginTaggedField(i * 3);
        w.raw(v);
        w.endTaggedField(mark);
      });
      w.int8(0x7e);
      const r = new Reader(w.toBuffer());
      expect(r.uvarint()).toBe(values.length);
      values.forEach((v, i) => {
        expect(r.uvarint()).toBe(i * 3);
        const size = r.uvarint();
        expect(size).toBe(v.length);
        expect(Array.from(r.raw(size))).toEqual(Array.from(v));
      });
      expect(r.int8()).toBe(0x7e);
      const skipper = new Reader(w.toBuffer());
      skipper.skipTaggedFields();
      expect(skipper.int8()).toBe(0x7e);
      expect(skipper.error).toBeNull();
    }), { numRuns: 50 });
  });

  it('patches a reserved int32 length prefix without moving the end', () => {
    const w = new Writer(4);
    w.int8(1);
    const at = w.reserveInt32();
    w.raw(new Uint8Array(100));
    w.patchInt32(at, w.length - at - 4);
    expect(w.toBuffer().readInt32BE(1)).toBe(100);
    expect(w.length).toBe(105);
  });

  it('rejects a uuid that is not 32 hex digits (a caller bug)', () => {
    expect(() => new Writer().uuid('abc')).toThrow(RangeError);
    expect(() => new Writer().uuid('zz'.repeat(16))).toThrow(RangeError);
    const w = new Writer();
    w.uuid('123e4567-e89b-12d3-a456-426614174000');
    expect(new Reader(w.toBuffer()).uuid()).toBe('123e4567e89b12d3a456426614174000');
  });
});
