import { describe, expect, it } from 'vitest';
import { decodeCreatePartitionsRequest, encodeCreatePartitionsRequest } from '../../host/protocol/generated/create-partitions.js';
import { decodeFetchRequest, encodeFetchRequest, type FetchRequestInit } from '../../host/protocol/generated/fetch.js';
import { MESSAGE_SCHEMAS } from '../../host/protocol/generated/schemas.js';
import type { MessageSchema } from '../../host/protocol/message-schema.js';
import { Reader } from '../../host/protocol/reader.js';
import { Writer } from '../../host/protocol/writer.js';
import { normalize, SampleBuilder } from './samples.js';

type Decode = (r: Reader, version: number) => unknown;
type Encode = (w: Writer, version: number, m: unknown) => void;

const modules = import.meta.glob<Record<string, unknown>>('../../host/protocol/generated/*.ts', { eager: true });

function codec(schema: MessageSchema): { decode: Decode; encode: Encode } {
  const mod = modules[`../../host/protocol/generated/${schema.module.replace(/\.js$/, '.ts')}`]!;
  return { decode: mod[`decode${schema.name}`] as Decode, encode: mod[`encode${schema.name}`] as Encode };
}

function bytesOf(encode: (w: Writer) => void): Buffer {
  const w = new Writer(1024);
  encode(w);
  return Buffer.from(w.toBuffer());
}

/** Decodes `bytes` with at most `max` array elements. */
function decodeBounded<T>(decode: (r: Reader, version: number) => T, bytes: Uint8Array, version: number, max: number): { r: Reader; message: T } {
  const r = new Reader(bytes);
  r.maxArrayElements = max;
  return { r, message: decode(r, version) };
}

/** What a decoder returns when it reads nothing (the reader failed before the first field). */
function nothingRead<T>(decode: (r: Reader, version: number) => T, bytes: Uint8Array, version: number): T {
  const r = new Reader(bytes);
  r.fail('refused');
  return decode(r, version);
}

function fetchRequest(topics: number, partitions: number): FetchRequestInit {
  return {
    replicaId: -1, maxWaitMs: 100, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
    topics: Array.from({ length: topics }, (_, t) => ({
      topic: `topic-${t}`,
      partitions: Array.from({ length: partitions }, (_, partition) => ({ partition, currentLeaderEpoch: -1, fetchOffset: 0, logStartOffset: -1, partitionMaxBytes: 1 << 20 })),
    })),
    forgottenTopicsData: [], rackId: '',
  };
}

describe('request.max.array.elements in the generated request decoders (issue 15)', () => {
  it('counts the same elements in the skim as in the decoder, for every request API and version: the count passes, one fewer is refused before anything is decoded', () => {
    let checked = 0;
    for (const schema of MESSAGE_SCHEMAS.filter((s) => s.type === 'request')) {
      const { decode, encode } = codec(schema);
      for (let version = schema.versions.min; version <= schema.versions.max; version++) {
        for (let seed = 1; seed <= 8; seed++) {
          const { input } = new SampleBuilder(schema, seed * 104_729 + version).build(version);
          const bytes = bytesOf((w) => encode(w, version, input));
          const unbounded = decodeBounded(decode, bytes, version, Number.POSITIVE_INFINITY);
          const elements = unbounded.r.arrayElements;
          const where = `${schema.name} v${version} seed ${seed} (${elements} elements, ${bytes.length} bytes)`;
          expect(unbounded.r.error, where).toBeNull();
          if (elements === 0) continue;
          const atLimit = decodeBounded(decode, bytes, version, elements);
          expect(atLimit.r.error, where).toBeNull();
          expect(normalize(atLimit.message), where).toEqual(normalize(unbounded.message));
          const over = decodeBounded(decode, bytes, version, elements - 1);
          expect(over.r.arrayElementsExceeded, where).toBe(true);
          expect(over.r.error, where).toContain(`more than ${elements - 1} array elements`);
          // The bytes could hold more than elements - 1 elements, so the skim ran and refused first.
          expect(normalize(over.message), where).toEqual(normalize(nothingRead(decode, bytes, version)));
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(300);
  });

  it('refuses a CreatePartitions of a million assignments from its counts alone (no element visited)', () => {
    const bytes = bytesOf((w) => encodeCreatePartitionsRequest(w, 1, {
      topics: [{ name: 'grow', count: 1_000_001, assignments: Array.from({ length: 1_000_000 }, () => ({ brokerIds: [1] })) }],
      timeoutMs: 1000, validateOnly: false,
    }));
    const { r, message } = decodeBounded(decodeCreatePartitionsRequest, bytes, 1, 100_000);
    expect(r.arrayElementsExceeded).toBe(true);
    expect(r.error).toBe('more than 100000 array elements (at least 1000001) in one message');
    expect(r.arrayElements).toBe(1_000_001); // the topic, then the assignments' count: refused there
    expect(message.topics).toEqual([]);
  });

  it('stops skimming many small arrays as soon as they pass the limit', () => {
    // 200 topics of 50 partitions (10,200 elements); limit 1000: the skim stops at the 17th topic.
    for (const version of [4, 11, 12]) {
      const bytes = bytesOf((w) => encodeFetchRequest(w, version, fetchRequest(200, 50)));
      const { r, message } = decodeBounded(decodeFetchRequest, bytes, version, 1000);
      expect(r.arrayElementsExceeded, `v${version}`).toBe(true);
      expect(r.arrayElements, `v${version}`).toBe(200 + 17 * 50); // the topics' count, then 17 topics' partitions: 1050 > 1000
      expect(message.topics, `v${version}`).toEqual([]);
    }
  });

  it('decodes a legitimately large request in full under the default limit (50,000 partitions)', () => {
    const bytes = bytesOf((w) => encodeFetchRequest(w, 11, fetchRequest(500, 100)));
    const { r, message } = decodeBounded(decodeFetchRequest, bytes, 11, 100_000);
    expect(r.error).toBeNull();
    expect(r.arrayElements).toBe(500 + 500 * 100);
    expect(message.topics).toHaveLength(500);
    expect(message.topics[499]!.partitions[99]!.partition).toBe(99);
  });

  it('leaves readers unbounded by default and skips no skim for bodies too small to pass the limit', () => {
    const r = new Reader(Buffer.alloc(0));
    expect(r.maxArrayElements).toBe(Number.POSITIVE_INFINITY);
    // 12 bytes cannot hold 13 elements: no skim, the decoder's own count decides.
    const bytes = bytesOf((w) => encodeCreatePartitionsRequest(w, 0, { topics: [], timeoutMs: 1, validateOnly: false }));
    const small = new Reader(bytes);
    small.maxArrayElements = 13;
    small.checkArrayElements(() => { throw new Error('skimmed'); }, 0);
    expect(small.error).toBeNull();
  });
});
