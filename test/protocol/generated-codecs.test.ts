import { describe, expect, it } from 'vitest';
import { MESSAGE_SCHEMAS } from '../../host/protocol/generated/schemas.js';
import type { MessageSchema } from '../../host/protocol/message-schema.js';
import { Reader } from '../../host/protocol/reader.js';
import { Writer } from '../../host/protocol/writer.js';
import { normalize, prng, SampleBuilder } from './samples.js';

type Decode = (r: Reader, version: number) => unknown;
type Encode = (w: Writer, version: number, m: unknown) => void;

const modules = import.meta.glob<Record<string, unknown>>('../../host/protocol/generated/*.ts', { eager: true });

function codec(schema: MessageSchema): { decode: Decode; encode: Encode } {
  const mod = modules[`../../host/protocol/generated/${schema.module.replace(/\.js$/, '.ts')}`];
  if (mod === undefined) throw new Error(`no generated module ${schema.module}`);
  const decode = mod[`decode${schema.name}`] as Decode | undefined;
  const encode = mod[`encode${schema.name}`] as Encode | undefined;
  if (decode === undefined || encode === undefined) throw new Error(`${schema.module} lacks decode/encode${schema.name}`);
  return { decode, encode };
}

function versionsOf(schema: MessageSchema): number[] {
  const out: number[] = [];
  for (let v = schema.versions.min; v <= schema.versions.max; v++) out.push(v);
  return out;
}

function isFlexible(schema: MessageSchema, version: number): boolean {
  const f = schema.flexibleVersions;
  return f !== null && version >= f.min && version <= f.max;
}

function encodeToBuffer(encode: Encode, version: number, message: unknown): Buffer {
  const w = new Writer(8);
  encode(w, version, message);
  return Buffer.from(w.toBuffer());
}

const SEEDS_PER_VERSION = 12;

describe('generated codecs', () => {
  it('cover every API of the Level A table, the SASL and transaction APIs, coordinator records and the consumer protocol', () => {
    const names = new Set(MESSAGE_SCHEMAS.map((s) => s.name));
    for (const api of ['Produce', 'Fetch', 'ListOffsets', 'Metadata', 'OffsetCommit', 'OffsetFetch', 'FindCoordinator', 'JoinGroup',
      'Heartbeat', 'LeaveGroup', 'SyncGroup', 'DescribeGroups', 'ListGroups', 'ApiVersions', 'CreateTopics', 'DeleteTopics',
      'DeleteRecords', 'InitProducerId', 'DescribeConfigs', 'AlterConfigs', 'CreatePartitions', 'DeleteGroups', 'OffsetDelete',
      'SaslHandshake', 'SaslAuthenticate', 'AddPartitionsToTxn', 'AddOffsetsToTxn', 'EndTxn', 'TxnOffsetCommit', 'WriteTxnMarkers']) {
      expect(names.has(`${api}Request`), api).toBe(true);
      expect(names.has(`${api}Response`), api).toBe(true);
    }
    for (const name of ['OffsetCommitKey', 'OffsetCommitValue', 'GroupMetadataKey', 'GroupMetadataValue', 'ConsumerProtocolSubscription', 'ConsumerProtocolAssignment']) {
      expect(names.has(name), name).toBe(true);
    }
    const max = new Map(MESSAGE_SCHEMAS.map((s) => [s.name, s.versions.max]));
    expect(max.get('ProduceRequest')).toBe(8);
    // Fetch is generated to its newest version (KRaft followers and replica fetchers need v12+:
    // LastFetchedEpoch, DivergingEpoch); the client-facing handler still advertises 0..11.
    expect(max.get('FetchResponse')).toBe(17);
    for (const api of ['BrokerRegistration', 'BrokerHeartbeat', 'UnregisterBroker', 'DescribeCluster', 'AlterPartition', 'Vote', 'BeginQuorumEpoch', 'EndQuorumEpoch', 'FetchSnapshot', 'DescribeQuorum']) {
      expect(names.has(`${api}Request`), api).toBe(true);
      expect(names.has(`${api}Response`), api).toBe(true);
    }
    expect(max.get('ApiVersionsRequest')).toBe(4);
    expect(max.get('OffsetFetchRequest')).toBe(5);
  });

  for (const schema of MESSAGE_SCHEMAS) {
    describe(schema.name, () => {
      const { decode, encode } = codec(schema);

      it('round-trips sample messages of every generated version (encode, decode, re-encode)', () => {
        for (const version of versionsOf(schema)) {
          for (let seed = 1; seed <= SEEDS_PER_VERSION; seed++) {
            const { input, expected } = new SampleBuilder(schema, seed * 7919 + version).build(version);
            const bytes = encodeToBuffer(encode, version, input);
            const r = new Reader(bytes);
            const decoded = decode(r, version);
            const where = `${schema.name} v${version} seed ${seed}`;
            expect(r.error, where).toBeNull();
            expect(r.remaining, where).toBe(0);
            expect(normalize(decoded), where).toEqual(normalize(expected));
            expect(encodeToBuffer(encode, version, decoded).equals(bytes), where).toBe(true);
          }
        }
      });

      it('never throws on truncated input and reports every strict prefix as an error', () => {
        for (const version of versionsOf(schema)) {
          const { input } = new SampleBuilder(schema, 4242 + version).build(version);
          const bytes = encodeToBuffer(encode, version, input);
          for (let cut = 0; cut < bytes.length; cut++) {
            const r = new Reader(bytes.subarray(0, cut));
            expect(() => decode(r, version)).not.toThrow();
            expect(r.error, `${schema.name} v${version} cut at ${cut} of ${bytes.length}`).not.toBeNull();
          }
        }
      });

      it('never throws on random or corrupted bytes', () => {
        const random = prng(schema.name.length * 31 + 17);
        for (const version of versionsOf(schema)) {
          const { input } = new SampleBuilder(schema, 99 + version).build(version);
          const valid = encodeToBuffer(encode, version, input);
          for (let i = 0; i < 40; i++) {
            const bytes = i % 2 === 0
              ? Buffer.from(Array.from({ length: Math.floor(random() * 64) }, () => Math.floor(random() * 256)))
              : Buffer.from(valid);
            if (i % 2 === 1 && bytes.length > 0) {
              for (let k = 0; k < 3; k++) bytes[Math.floor(random() * bytes.length)] = Math.floor(random() * 256);
            }
            expect(() => decode(new Reader(bytes), version), `${schema.name} v${version} input ${bytes.toString('hex')}`).not.toThrow();
          }
        }
      });

      const flexibleVersions = versionsOf(schema).filter((v) => isFlexible(schema, v));
      if (flexibleVersions.length > 0) {
        it('skips unknown tagged fields in flexible versions', () => {
          for (const version of flexibleVersions) {
            const { input, expected } = new SampleBuilder(schema, 7 + version, { defaultTagged: true }).build(version);
            const bytes = encodeToBuffer(encode, version, input);
            // With every tagged field at its default, the top-level struct ends with an empty tag section (0x00).
            expect(bytes[bytes.length - 1]).toBe(0);
            const unknownTags = Buffer.from([2, 90, 3, 0x61, 0x62, 0x63, 0x80, 0x01, 0]); // tags 90 (3 bytes) and 128 (empty)
            const withTags = Buffer.concat([bytes.subarray(0, bytes.length - 1), unknownTags]);
            const r = new Reader(withTags);
            const decoded = decode(r, version);
            expect(r.error, `${schema.name} v${version}`).toBeNull();
            expect(r.remaining).toBe(0);
            expect(normalize(decoded)).toEqual(normalize(expected));
          }
        });
      }

      it('reports a version outside the generated range as an error when decoding and throws when encoding', () => {
        const above = schema.versions.max + 1;
        const r = new Reader(Buffer.alloc(64));
        expect(() => decode(r, -1)).not.toThrow();
        expect(r.error).not.toBeNull();
        if (!schema.name.startsWith('ConsumerProtocol')) {
          const r2 = new Reader(Buffer.alloc(64));
          decode(r2, above);
          expect(r2.error).toMatch(/not supported/);
        }
        expect(() => encode(new Writer(), above, {})).toThrow(RangeError);
      });
    });
  }
});
