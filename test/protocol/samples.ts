/**
 * Builds sample messages for any generated message and version from the schema catalog
 * (host/protocol/generated/schemas.ts), with a seeded PRNG so failures reproduce.
 *
 * A sample is a pair: `input` for the encoder (with junk in fields the version lacks, which the
 * encoder must ignore) and `expected`, what the decoder must return (those fields at their defaults).
 */
import type { FieldSchema, MessageSchema, StructSchema, VersionSpan } from '../../host/protocol/message-schema.js';
import { SeededRandom } from '../../host/io/random.js';
import { ZERO_UUID } from '../../host/protocol/reader.js';

/** mulberry32 in [0, 1): host/io/random.ts's SeededRandom as a function (the same sequence for a seed). */
export function prng(seed: number): () => number {
  const random = new SeededRandom(seed);
  return () => random.next();
}

function inSpan(span: VersionSpan | null, version: number): boolean {
  return span !== null && version >= span.min && version <= span.max;
}

export interface SampleOptions {
  /** Leave every tagged field at its default (so a flexible struct ends in an empty tag section). */
  defaultTagged?: boolean;
}

export class SampleBuilder {
  private readonly random: () => number;

  constructor(private readonly schema: MessageSchema, seed: number, private readonly options: SampleOptions = {}) {
    this.random = prng(seed);
  }

  private int(min: number, max: number): number {
    return min + Math.floor(this.random() * (max - min + 1));
  }

  private chance(p: number): boolean {
    return this.random() < p;
  }

  build(version: number): { input: Record<string, unknown>; expected: Record<string, unknown> } {
    return this.struct(this.schema.structs[this.schema.top]!, version);
  }

  private struct(s: StructSchema, version: number): { input: Record<string, unknown>; expected: Record<string, unknown> } {
    const input: Record<string, unknown> = {};
    const expected: Record<string, unknown> = {};
    for (const f of s.fields) {
      const present = inSpan(f.versions, version);
      const tagged = inSpan(f.taggedVersions, version);
      if (!present) {
        expected[f.name] = this.defaultValue(f, version);
        // Junk the encoder must ignore (only when the Init type allows a value at all).
        if (this.chance(0.5)) input[f.name] = this.value(f, version, true).input;
        continue;
      }
      if (tagged && (this.options.defaultTagged || this.chance(0.3))) {
        expected[f.name] = this.defaultValue(f, version);
        if (this.chance(0.5)) input[f.name] = this.defaultValue(f, version);
        continue;
      }
      if (f.optionalInInit && !tagged && this.chance(0.2)) {
        // Left out: the encoder writes the default.
        expected[f.name] = this.defaultValue(f, version);
        continue;
      }
      const v = this.value(f, version, false);
      input[f.name] = v.input;
      expected[f.name] = v.expected;
    }
    return { input, expected };
  }

  private value(f: FieldSchema, version: number, junk: boolean): { input: unknown; expected: unknown } {
    const nullable = !junk && inSpan(f.nullableVersions, version);
    if (nullable && this.chance(0.25)) return { input: null, expected: null };
    if (f.kind === 'array') {
      const n = this.int(0, 3);
      const input: unknown[] = [];
      const expected: unknown[] = [];
      for (let i = 0; i < n; i++) {
        if (f.primitive !== undefined) {
          const v = this.primitive(f.primitive);
          input.push(v);
          expected.push(v);
        } else {
          const s = this.struct(this.schema.structs[f.struct!]!, version);
          input.push(s.input);
          expected.push(s.expected);
        }
      }
      return { input, expected };
    }
    if (f.kind === 'struct') {
      const s = this.struct(this.schema.structs[f.struct!]!, version);
      return { input: s.input, expected: s.expected };
    }
    const v = this.primitive(f.primitive!);
    return { input: v, expected: v };
  }

  private primitive(type: string): unknown {
    switch (type) {
      case 'bool': return this.chance(0.5);
      case 'int8': return this.int(-128, 127);
      case 'int16': return this.int(-32768, 32767);
      case 'uint16': return this.int(0, 65535);
      case 'int32': return this.int(-2147483648, 2147483647);
      case 'uint32': return this.int(0, 4294967295);
      case 'int64': return this.chance(0.5) ? this.int(-1000, 1000) : Math.round((this.random() * 2 - 1) * Number.MAX_SAFE_INTEGER);
      case 'float64': return (this.random() - 0.5) * 1e12;
      case 'uuid': return Buffer.from(Array.from({ length: 16 }, () => this.int(0, 255))).toString('hex');
      case 'string': return this.text();
      case 'bytes': case 'records': return Uint8Array.from({ length: this.chance(0.1) ? 300 : this.int(0, 12) }, () => this.int(0, 255));
      default: throw new Error(`unknown primitive ${type}`);
    }
  }

  private text(): string {
    const alphabet = ['a', 'b', 'z', '-', '_', '.', '0', '9', 'é', 'ß', '€', '中', '😀'];
    const n = this.chance(0.1) ? 150 : this.int(0, 10);
    let s = '';
    for (let i = 0; i < n; i++) s += alphabet[this.int(0, alphabet.length - 1)];
    return s;
  }

  /** The value the decoder fills in for an absent field. */
  defaultValue(f: FieldSchema, version: number): unknown {
    const d = f.default;
    switch (d.kind) {
      case 'number': case 'bool': case 'string': return d.value;
      case 'null':
        if (!f.nullableType) return f.kind === 'array' ? [] : f.primitive === 'bytes' ? new Uint8Array(0) : '';
        return null;
      case 'emptyBytes': return new Uint8Array(0);
      case 'zeroUuid': return ZERO_UUID;
      case 'emptyArray': return [];
      case 'defaultStruct': {
        const s = this.schema.structs[f.struct!]!;
        const out: Record<string, unknown> = {};
        for (const g of s.fields) out[g.name] = this.defaultValue(g, version);
        return out;
      }
    }
  }
}

/** Replaces every Uint8Array (Buffer or not) by a plain array of its bytes, for deep equality. */
export function normalize(value: unknown): unknown {
  if (value instanceof Uint8Array) return { bytes: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex') };
  if (Array.isArray(value)) return value.map(normalize);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = normalize(v);
    return out;
  }
  return value;
}
