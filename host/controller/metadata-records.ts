/**
 * The records of the metadata log (Kafka's KRaft `__cluster_metadata`): a typed union over the
 * generated codecs of ../shared/kafka-protocol/metadata-records/, and Kafka's framing of them as
 * record values (MetadataRecordSerde / AbstractApiMessageSerde):
 *
 * ```
 * unsigned varint  frame version (always 1)
 * unsigned varint  api key of the record type (TopicRecord = 2, PartitionRecord = 3, ...)
 * unsigned varint  record version
 * bytes            the record body (every metadata record version is flexible)
 * ```
 *
 * Every state change of the controller is one of these records; MetadataImage.replay applies them.
 */
import { Reader } from '../protocol/reader.js';
import { Writer } from '../protocol/writer.js';
import {
  type BrokerRegistrationChangeRecord,
  decodeBrokerRegistrationChangeRecord,
  encodeBrokerRegistrationChangeRecord,
} from '../protocol/generated/broker-registration-change-record.js';
import { type ConfigRecord, decodeConfigRecord, encodeConfigRecord } from '../protocol/generated/config-record.js';
import { type FeatureLevelRecord, decodeFeatureLevelRecord, encodeFeatureLevelRecord } from '../protocol/generated/feature-level-record.js';
import { type FenceBrokerRecord, decodeFenceBrokerRecord, encodeFenceBrokerRecord } from '../protocol/generated/fence-broker-record.js';
import { type NoOpRecord, decodeNoOpRecord, encodeNoOpRecord } from '../protocol/generated/no-op-record.js';
import {
  type PartitionChangeRecord,
  decodePartitionChangeRecord,
  encodePartitionChangeRecord,
} from '../protocol/generated/partition-change-record.js';
import { type PartitionRecord, decodePartitionRecord, encodePartitionRecord } from '../protocol/generated/partition-record.js';
import { type ProducerIdsRecord, decodeProducerIdsRecord, encodeProducerIdsRecord } from '../protocol/generated/producer-ids-record.js';
import { type RegisterBrokerRecord, decodeRegisterBrokerRecord, encodeRegisterBrokerRecord } from '../protocol/generated/register-broker-record.js';
import { type RemoveTopicRecord, decodeRemoveTopicRecord, encodeRemoveTopicRecord } from '../protocol/generated/remove-topic-record.js';
import { type TopicRecord, decodeTopicRecord, encodeTopicRecord } from '../protocol/generated/topic-record.js';
import { type UnfenceBrokerRecord, decodeUnfenceBrokerRecord, encodeUnfenceBrokerRecord } from '../protocol/generated/unfence-broker-record.js';
import {
  type UnregisterBrokerRecord,
  decodeUnregisterBrokerRecord,
  encodeUnregisterBrokerRecord,
} from '../protocol/generated/unregister-broker-record.js';

export type {
  BrokerRegistrationChangeRecord, ConfigRecord, FeatureLevelRecord, FenceBrokerRecord, NoOpRecord,
  PartitionChangeRecord, PartitionRecord, ProducerIdsRecord, RegisterBrokerRecord, RemoveTopicRecord,
  TopicRecord, UnfenceBrokerRecord, UnregisterBrokerRecord,
};

/** Kafka's MetadataRecordType api keys (the `apiKey` of each metadata-records/*.json). */
export const MetadataRecordType = {
  RegisterBrokerRecord: 0,
  UnregisterBrokerRecord: 1,
  TopicRecord: 2,
  PartitionRecord: 3,
  ConfigRecord: 4,
  PartitionChangeRecord: 5,
  FenceBrokerRecord: 7,
  UnfenceBrokerRecord: 8,
  RemoveTopicRecord: 9,
  FeatureLevelRecord: 12,
  ProducerIdsRecord: 15,
  BrokerRegistrationChangeRecord: 17,
  NoOpRecord: 20,
} as const;

/** Kafka's ConfigResource.Type codes, as ConfigRecord.resourceType and AlterConfigs carry them. */
export const ConfigResourceType = {
  UNKNOWN: 0,
  TOPIC: 2,
  BROKER: 4,
  BROKER_LOGGER: 8,
} as const;

/** The only frame version Kafka defines (MetadataRecordSerde.DEFAULT_FRAME_VERSION). */
export const METADATA_FRAME_VERSION = 1;

interface RecordBodies {
  RegisterBrokerRecord: RegisterBrokerRecord;
  UnregisterBrokerRecord: UnregisterBrokerRecord;
  TopicRecord: TopicRecord;
  PartitionRecord: PartitionRecord;
  ConfigRecord: ConfigRecord;
  PartitionChangeRecord: PartitionChangeRecord;
  FenceBrokerRecord: FenceBrokerRecord;
  UnfenceBrokerRecord: UnfenceBrokerRecord;
  RemoveTopicRecord: RemoveTopicRecord;
  FeatureLevelRecord: FeatureLevelRecord;
  ProducerIdsRecord: ProducerIdsRecord;
  BrokerRegistrationChangeRecord: BrokerRegistrationChangeRecord;
  NoOpRecord: NoOpRecord;
}

/** The name of a metadata record type we read and write. */
export type MetadataRecordName = keyof RecordBodies;

/** One metadata record: its type, the version it is (to be) written as, and its fields. */
export type MetadataRecord = {
  [K in MetadataRecordName]: { readonly type: K; readonly version: number; readonly data: RecordBodies[K] };
}[MetadataRecordName];

interface Codec<T> {
  readonly maxVersion: number;
  decode(r: Reader, version: number): T;
  encode(w: Writer, version: number, m: T): void;
}

/**
 * The codecs, and the highest version we accept. Versions written by the controller are chosen by
 * its builders (see {@link metadataRecord}); reading accepts every generated version.
 */
const CODECS: { readonly [K in MetadataRecordName]: Codec<RecordBodies[K]> } = {
  RegisterBrokerRecord: { maxVersion: 3, decode: decodeRegisterBrokerRecord, encode: encodeRegisterBrokerRecord },
  UnregisterBrokerRecord: { maxVersion: 0, decode: decodeUnregisterBrokerRecord, encode: encodeUnregisterBrokerRecord },
  TopicRecord: { maxVersion: 0, decode: decodeTopicRecord, encode: encodeTopicRecord },
  PartitionRecord: { maxVersion: 2, decode: decodePartitionRecord, encode: encodePartitionRecord },
  ConfigRecord: { maxVersion: 0, decode: decodeConfigRecord, encode: encodeConfigRecord },
  PartitionChangeRecord: { maxVersion: 2, decode: decodePartitionChangeRecord, encode: encodePartitionChangeRecord },
  FenceBrokerRecord: { maxVersion: 0, decode: decodeFenceBrokerRecord, encode: encodeFenceBrokerRecord },
  UnfenceBrokerRecord: { maxVersion: 0, decode: decodeUnfenceBrokerRecord, encode: encodeUnfenceBrokerRecord },
  RemoveTopicRecord: { maxVersion: 0, decode: decodeRemoveTopicRecord, encode: encodeRemoveTopicRecord },
  FeatureLevelRecord: { maxVersion: 0, decode: decodeFeatureLevelRecord, encode: encodeFeatureLevelRecord },
  ProducerIdsRecord: { maxVersion: 0, decode: decodeProducerIdsRecord, encode: encodeProducerIdsRecord },
  BrokerRegistrationChangeRecord: {
    maxVersion: 2, decode: decodeBrokerRegistrationChangeRecord, encode: encodeBrokerRegistrationChangeRecord,
  },
  NoOpRecord: { maxVersion: 0, decode: decodeNoOpRecord, encode: encodeNoOpRecord },
};

const NAME_BY_API_KEY: ReadonlyMap<number, MetadataRecordName> = new Map(
  (Object.entries(MetadataRecordType) as [MetadataRecordName, number][]).map(([name, key]) => [key, name]),
);

/** A metadata record value that cannot be decoded: the metadata log is corrupt or from a newer version. */
export class MetadataRecordError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MetadataRecordError';
  }
}

/**
 * The record value Kafka's metadata log stores for `record`: frame version 1, api key and version
 * as unsigned varints, then the flexible body.
 * @throws RangeError for a version outside what we generate (a caller bug)
 */
export function encodeMetadataRecord(record: MetadataRecord): Buffer {
  const w = new Writer(64);
  writeMetadataRecord(w, record);
  return w.toBuffer();
}

/**
 * The record values of `records` ({@link encodeMetadataRecord} of each), written one after the
 * other into one buffer: each value is a view of it (one allocation for a whole operation instead
 * of a buffer per record). @throws RangeError as encodeMetadataRecord
 */
export function encodeMetadataRecords(records: readonly MetadataRecord[]): Buffer[] {
  const w = new Writer(64 * records.length);
  const ends = new Array<number>(records.length);
  for (let i = 0; i < records.length; i++) {
    writeMetadataRecord(w, records[i]!);
    ends[i] = w.length;
  }
  // Views are taken once writing is done: the writer's buffer is replaced whenever it grows.
  const buffer = w.buf;
  const values = new Array<Buffer>(records.length);
  for (let i = 0, start = 0; i < records.length; start = ends[i]!, i++) values[i] = buffer.subarray(start, ends[i]!);
  return values;
}

function writeMetadataRecord(w: Writer, record: MetadataRecord): void {
  const codec = CODECS[record.type] as Codec<unknown>;
  if (record.version < 0 || record.version > codec.maxVersion) {
    throw new RangeError(`${record.type} version ${record.version} is not supported (0-${codec.maxVersion})`);
  }
  w.uvarint(METADATA_FRAME_VERSION);
  w.uvarint(MetadataRecordType[record.type]);
  w.uvarint(record.version);
  codec.encode(w, record.version, record.data);
}

/**
 * Decodes one metadata record value written by {@link encodeMetadataRecord} (or by Kafka for the
 * record types listed in {@link MetadataRecordType}).
 * @throws MetadataRecordError for an unknown frame version, record type or version, a malformed
 *   body or trailing bytes
 */
export function decodeMetadataRecord(value: Uint8Array): MetadataRecord {
  const r = new Reader(value);
  const frameVersion = r.uvarint();
  const apiKey = r.uvarint();
  const version = r.uvarint();
  if (r.error !== null) throw new MetadataRecordError(`metadata record header: ${r.error}`);
  if (frameVersion !== METADATA_FRAME_VERSION) {
    throw new MetadataRecordError(`metadata record with unknown frame version ${frameVersion}`);
  }
  const type = NAME_BY_API_KEY.get(apiKey);
  if (type === undefined) throw new MetadataRecordError(`metadata record with unknown or unsupported api key ${apiKey}`);
  const codec = CODECS[type] as Codec<unknown>;
  if (version > codec.maxVersion) throw new MetadataRecordError(`${type} version ${version} is newer than supported (0-${codec.maxVersion})`);
  const data = codec.decode(r, version);
  if (r.error !== null) throw new MetadataRecordError(`${type} v${version}: ${r.error}`);
  if (r.remaining !== 0) throw new MetadataRecordError(`${type} v${version}: ${r.remaining} trailing bytes`);
  return { type, version, data } as MetadataRecord;
}

/** Builds a typed record: `metadataRecord('TopicRecord', 0, { name, topicId })`. */
export function metadataRecord<K extends MetadataRecordName>(type: K, version: number, data: RecordBodies[K]): MetadataRecord {
  return { type, version, data } as MetadataRecord;
}
