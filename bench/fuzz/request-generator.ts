/**
 * Plausible request bodies of any generated request and version, written straight from the
 * schema catalog (host/protocol/generated/schemas.ts), so the fuzzer's frames get past the
 * decoders into the handlers: every field of the version in its wire form (compact encodings in
 * flexible versions, an empty tagged-field section per struct), with values drawn from the
 * boundaries that break code (0, -1, 2^15, 2^16, 2^31-1, INT64 extremes, empty and long strings,
 * nulls where the version allows them, up to a few array elements, a valid small record batch or
 * garbage in `records` fields).
 *
 * Names are drawn from a small set of fuzz topic and group names plus random short strings, so
 * operations hit the same few objects again and again; they never name the well-behaved client's
 * topic (its name is longer than any generated string and outside the set).
 */
import type { FieldSchema, MessageSchema, PrimitiveTypeName, StructSchema, VersionSpan } from '../../host/protocol/message-schema.js';
import { Writer } from '../../host/protocol/writer.js';
import { buildRecordBatch } from '../../host/record/batch-builder.js';

/** A uniform number in [0, 1). */
export type Random = () => number;

/** mulberry32: a tiny deterministic PRNG (public domain, Tommy Ettinger). */
export function prng(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One element of `items`, uniformly. */
export function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

/** An integer in [min, max]. */
export function between(random: Random, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

const NAMES = ['fuzz-a', 'fuzz-b', 'fuzz-c', 'fuzz-group', 'fuzz-txn', ''];
const INT8 = [0, 1, -1, 2, 3, 127, -128];
const INT16 = [0, 1, -1, 2, 3, 0x7fff, -0x8000, 255];
const INT32 = [0, 1, -1, 2, 3, 100, 1000, 10_001, 0x8000, 0x10000, 0x7fffffff, -0x80000000, 1_000_000];
const INT64 = [0, 1, -1, 2, 1000, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, -2];
const FLOAT64 = [0, 1, -1, Number.NaN, Number.POSITIVE_INFINITY, 1e308, 0.5];
/** Deepest nesting of arrays of structs (keeps frames small). */
const MAX_DEPTH = 4;

const inSpan = (span: VersionSpan | null, version: number): boolean => span !== null && version >= span.min && version <= span.max;

function randomString(random: Random): string {
  const roll = random();
  if (roll < 0.7) return pick(random, NAMES);
  if (roll < 0.9) return Math.floor(random() * 36 ** 6).toString(36);
  if (roll < 0.97) return 'x'.repeat(between(random, 100, 400));
  return '\u00e9\u0000\ud83d\ude00';
}

function randomBytes(random: Random, max: number): Uint8Array {
  const bytes = new Uint8Array(between(random, 0, max));
  for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(random() * 256);
  return bytes;
}

/** A valid one-record batch most of the time, else garbage. */
function recordsValue(random: Random): Uint8Array {
  if (random() < 0.7) {
    const count = between(random, 1, 3);
    const records = Array.from({ length: count }, (_, i) => ({ key: `k${i}`, value: `fuzz-${Math.floor(random() * 1e6)}` }));
    return buildRecordBatch({ records, ...(random() < 0.2 ? { producerId: between(random, 0, 5), producerEpoch: 0, baseSequence: between(random, -1, 5) } : {}) });
  }
  return randomBytes(random, 80);
}

function writeInt(w: Writer, primitive: PrimitiveTypeName, random: Random): void {
  const small = random() < 0.3;
  switch (primitive) {
    case 'int8': w.int8(small ? between(random, -2, 10) : pick(random, INT8)); break;
    case 'int16': case 'uint16': w.int16(small ? between(random, -2, 10) : pick(random, INT16)); break;
    case 'int32': case 'uint32': w.int32(small ? between(random, -2, 10) : pick(random, INT32)); break;
    case 'int64': w.int64(small ? between(random, -2, 10) : pick(random, INT64)); break;
    case 'float64': w.float64(pick(random, FLOAT64)); break;
    default: throw new Error(`not an integer type: ${primitive}`);
  }
}

function writePrimitive(w: Writer, primitive: PrimitiveTypeName, nullable: boolean, flexible: boolean, random: Random): void {
  const asNull = nullable && random() < 0.15;
  switch (primitive) {
    case 'bool': w.bool(random() < 0.5); return;
    case 'uuid': w.uuid(random() < 0.5 ? '0'.repeat(32) : Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16)).join('')); return;
    case 'string': {
      const value = asNull ? null : randomString(random);
      if (flexible) w.compactNullableString(value); else w.nullableString(value);
      return;
    }
    case 'bytes': case 'records': {
      const value = asNull ? null : primitive === 'records' ? recordsValue(random) : randomBytes(random, 32);
      if (flexible) w.compactNullableBytes(value); else w.nullableBytes(value);
      return;
    }
    default: writeInt(w, primitive, random);
  }
}

function arrayLength(w: Writer, count: number, flexible: boolean): void {
  if (flexible) w.compactArrayLength(count); else w.arrayLength(count);
}

function writeField(w: Writer, schema: MessageSchema, field: FieldSchema, version: number, random: Random, depth: number): void {
  const flexible = inSpan(field.flexibleVersions, version);
  const nullable = inSpan(field.nullableVersions, version);
  if (field.kind === 'primitive') return writePrimitive(w, field.primitive!, nullable, flexible, random);
  if (field.kind === 'struct') return writeStruct(w, schema, schema.structs[field.struct!]!, version, random, depth + 1);
  if (nullable && random() < 0.1) return arrayLength(w, -1, flexible);
  const count = depth >= MAX_DEPTH ? 0 : Math.min(between(random, 0, 3), between(random, 0, 3));
  arrayLength(w, count, flexible);
  for (let i = 0; i < count; i++) {
    if (field.struct !== undefined) writeStruct(w, schema, schema.structs[field.struct]!, version, random, depth + 1);
    else writePrimitive(w, field.primitive!, false, flexible, random);
  }
}

function writeStruct(w: Writer, schema: MessageSchema, struct: StructSchema, version: number, random: Random, depth: number): void {
  for (const field of struct.fields) {
    if (inSpan(field.inlineVersions, version)) writeField(w, schema, field, version, random, depth);
  }
  if (inSpan(schema.flexibleVersions, version)) w.emptyTaggedFields();
}

/**
 * The body (no header) of a plausible `schema` request at `version`.
 * @throws Error when the version is outside the schema's generated versions
 */
export function plausibleBody(schema: MessageSchema, version: number, random: Random): Uint8Array {
  if (version < schema.versions.min || version > schema.versions.max) throw new Error(`${schema.name} has no version ${version}`);
  const w = new Writer(128);
  writeStruct(w, schema, schema.structs[schema.top]!, version, random, 0);
  return w.toBuffer();
}
