/**
 * The fuzzer's frames (issue 15): for frame `index` of seed `seed`, always the same bytes, so a
 * frame that broke the broker is replayed from the two numbers the campaign prints.
 *
 * Kinds (by weight): a plausible request of a served API and version (request-generator.ts), sent
 * as is (35%) or mutated (40%: bit flips, boundary bytes, a boundary int32 written over any four
 * bytes, which lies about a length or an array count, inserted or deleted bytes, truncation, the
 * tail of another frame spliced in); a valid header with a body of random pieces, boundary integers,
 * lying compact lengths and unterminated varints (15%); an unknown API key or an unserved version
 * (5%); and frame-level lies (5%): a size prefix larger or smaller than the bytes sent, a negative or
 * huge size, two frames in one write.
 *
 * Every frame is a complete write: `bytes` is what goes on the socket (size prefix included).
 */
import { requestHeaderVersion } from '../../host/protocol/headers.js';
import { MESSAGE_SCHEMAS } from '../../host/protocol/generated/schemas.js';
import type { MessageSchema } from '../../host/protocol/message-schema.js';
import { Writer } from '../../host/protocol/writer.js';
import { between, pick, plausibleBody, prng, type Random } from './request-generator.js';

/** An API the broker serves, with its version range (ApiVersions' entries). */
export interface ServedApi {
  readonly apiKey: number;
  readonly minVersion: number;
  readonly maxVersion: number;
}

export type FrameKind = 'plausible' | 'mutated' | 'random-body' | 'unknown-api' | 'frame-lie';

export interface FuzzFrame {
  readonly index: number;
  readonly kind: FrameKind;
  readonly apiKey: number;
  readonly apiVersion: number;
  /** The bytes to write, size prefix included. */
  readonly bytes: Buffer;
}

const BOUNDARY_INT32 = [0, -1, 1, 2, 0x7fffffff, -0x80000000, 0xffff, 0x7fff, 1_000_000, 0x10000];

/** Frames of one seed for the APIs `served`; `frameAt(i)` is pure in (seed, i). */
export class FuzzFrames {
  private readonly requestSchemas = new Map<number, MessageSchema>();

  constructor(readonly seed: number, private readonly served: readonly ServedApi[]) {
    for (const schema of MESSAGE_SCHEMAS) if (schema.type === 'request' && schema.apiKey !== undefined) this.requestSchemas.set(schema.apiKey, schema);
  }

  /** Frame `index` (0-based) of this seed. */
  frameAt(index: number): FuzzFrame {
    const random = prng(Math.imul(this.seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(index + 1, 0xc2b2ae35));
    const roll = random();
    if (roll < 0.35) return this.plausible(index, random, 'plausible');
    if (roll < 0.75) return this.mutated(index, random);
    if (roll < 0.9) return this.randomBody(index, random, 'random-body');
    if (roll < 0.95) return this.randomBody(index, random, 'unknown-api');
    return this.frameLie(index, random);
  }

  private servedVersion(random: Random): { apiKey: number; apiVersion: number; schema: MessageSchema | undefined } {
    const api = pick(random, this.served);
    const apiVersion = between(random, api.minVersion, api.maxVersion);
    const schema = this.requestSchemas.get(api.apiKey);
    const usable = schema !== undefined && apiVersion >= schema.versions.min && apiVersion <= schema.versions.max;
    return { apiKey: api.apiKey, apiVersion, schema: usable ? schema : undefined };
  }

  private plausible(index: number, random: Random, kind: FrameKind): FuzzFrame {
    const { apiKey, apiVersion, schema } = this.servedVersion(random);
    const body = schema === undefined ? randomBody(random) : plausibleBody(schema, apiVersion, random);
    return { index, kind, apiKey, apiVersion, bytes: frame(apiKey, apiVersion, index, clientId(random), body) };
  }

  private mutated(index: number, random: Random): FuzzFrame {
    const base = this.plausible(index, random, 'mutated');
    let payload: Buffer = Buffer.from(base.bytes.subarray(4));
    const mutations = between(random, 1, 3);
    for (let m = 0; m < mutations; m++) payload = this.mutate(payload, random, index);
    return { ...base, bytes: Buffer.concat([int32(payload.length), payload]) };
  }

  /** One mutation of a payload (header + body, no size prefix); keeps the first 4 bytes (key, version) mostly intact. */
  private mutate(payload: Buffer, random: Random, index: number): Buffer {
    if (payload.length <= 8) return payload;
    const at = between(random, 8, payload.length - 1);
    const out = Buffer.from(payload);
    switch (between(random, 0, 6)) {
      case 0: out[at] = out[at]! ^ (1 << between(random, 0, 7)); return out;
      case 1: out[at] = pick(random, [0x00, 0xff, 0x7f, 0x80, 0x01]); return out;
      case 2: if (at + 4 <= out.length) out.writeInt32BE(pick(random, BOUNDARY_INT32) | 0, at); return out;
      case 3: return Buffer.concat([out.subarray(0, at), randomBytes(random, 8), out.subarray(at)]);
      case 4: return Buffer.concat([out.subarray(0, at), out.subarray(Math.min(out.length, at + between(random, 1, 8)))]);
      case 5: return out.subarray(0, at);
      default: {
        const other = this.plausible(index ^ 0x5a5a5a, random, 'plausible').bytes.subarray(4);
        return Buffer.concat([out.subarray(0, at), other.subarray(between(random, 0, other.length))]);
      }
    }
  }

  private randomBody(index: number, random: Random, kind: 'random-body' | 'unknown-api'): FuzzFrame {
    let apiKey: number;
    let apiVersion: number;
    if (kind === 'unknown-api') {
      if (random() < 0.5) {
        apiKey = pick(random, [-1, 999, 0x7fff, 67, 68, 100]);
        apiVersion = between(random, -1, 20);
      } else {
        const api = pick(random, this.served);
        apiKey = api.apiKey;
        apiVersion = pick(random, [api.maxVersion + 1, -1, 0x7fff, api.minVersion - 1]);
      }
    } else {
      ({ apiKey, apiVersion } = this.servedVersion(random));
    }
    return { index, kind, apiKey, apiVersion, bytes: frame(apiKey, apiVersion, index, clientId(random), randomBody(random)) };
  }

  private frameLie(index: number, random: Random): FuzzFrame {
    const base = this.plausible(index, random, 'frame-lie');
    const bytes = Buffer.from(base.bytes);
    switch (between(random, 0, 3)) {
      case 0: bytes.writeInt32BE(bytes.length - 4 + between(random, 1, 64), 0); break; // claims more than sent
      case 1: bytes.writeInt32BE(pick(random, [-1, -0x80000000, 0x7fffffff, 200_000_000]), 0); break; // negative or past socket.request.max.bytes
      case 2: bytes.writeInt32BE(Math.max(0, bytes.length - 4 - between(random, 1, 16)), 0); break; // claims less: the rest is a bogus next frame
      default: return { ...base, bytes: Buffer.concat([bytes, this.plausible(index ^ 0x3c3c3c, random, 'plausible').bytes]) }; // two frames in one write
    }
    return { ...base, bytes };
  }
}

function int32(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeInt32BE(value | 0, 0);
  return bytes;
}

function randomBytes(random: Random, max: number): Buffer {
  const bytes = Buffer.alloc(between(random, 0, max));
  for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(random() * 256);
  return bytes;
}

/** A client id: usually short, sometimes null or absurd. */
function clientId(random: Random): string | null {
  const roll = random();
  if (roll < 0.1) return null;
  if (roll < 0.15) return 'c'.repeat(between(random, 200, 1000));
  return `fuzz-${Math.floor(random() * 1000)}`;
}

/** Random pieces: bytes, boundary integers, lying compact lengths, unterminated varints. */
function randomBody(random: Random): Buffer {
  const parts: Buffer[] = [];
  const count = between(random, 0, 10);
  for (let i = 0; i < count; i++) {
    switch (between(random, 0, 3)) {
      case 0: parts.push(randomBytes(random, 48)); break;
      case 1: parts.push(int32(pick(random, BOUNDARY_INT32))); break;
      case 2: {
        const b = Buffer.alloc(2);
        b.writeInt16BE(pick(random, [0, -1, 1, 0x7fff, -0x8000, 255]), 0);
        parts.push(b);
        break;
      }
      default: parts.push(Buffer.from(pick(random, [[0xff, 0xff, 0xff, 0xff, 0x0f], [0x80, 0x80, 0x80, 0x80, 0x80, 0x80], [0x00], [0x01]])));
    }
  }
  return Buffer.concat(parts);
}

/** Header (the version's layout when the API and version are known, else v1) + body, size-prefixed. */
function frame(apiKey: number, apiVersion: number, correlationId: number, client: string | null, body: Uint8Array): Buffer {
  let headerVersion = 1;
  try {
    headerVersion = requestHeaderVersion(apiKey, apiVersion);
  } catch {
    headerVersion = 1;
  }
  const w = new Writer(64 + body.length);
  const start = w.reserveInt32();
  w.int16(apiKey);
  w.int16(apiVersion);
  w.int32(correlationId);
  if (headerVersion >= 1) w.nullableString(client);
  if (headerVersion >= 2) w.emptyTaggedFields();
  w.raw(body);
  w.patchInt32(start, w.length - start - 4);
  return Buffer.from(w.toBuffer());
}
