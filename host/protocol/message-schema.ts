/**
 * Shapes of the schema catalog that the generator writes to host/protocol/generated/schemas.ts: the
 * generated messages' structs and fields with version ranges clipped to the generated versions.
 * The codecs never consult it (they are straight-line code); it serves tools and tests that need
 * to walk a message generically (sample builders, fuzzers, a JSON view of frames).
 */

/** An inclusive version range; null where the schema gives none within the generated versions. */
export interface VersionSpan {
  min: number;
  max: number;
}

export type PrimitiveTypeName =
  | 'bool' | 'int8' | 'int16' | 'uint16' | 'int32' | 'uint32' | 'int64' | 'float64'
  | 'string' | 'bytes' | 'records' | 'uuid';

/** A field's default, as the decoder fills it in when the field is absent. */
export type FieldDefault =
  | { kind: 'number'; value: number }
  | { kind: 'bool'; value: boolean }
  | { kind: 'string'; value: string }
  | { kind: 'null' }
  | { kind: 'emptyBytes' }
  | { kind: 'zeroUuid' }
  | { kind: 'emptyArray' }
  | { kind: 'defaultStruct' };

export interface FieldSchema {
  /** camelCase property name. */
  name: string;
  /** The schema's type text, e.g. '[]TopicProduceData', 'int32'. */
  type: string;
  kind: 'primitive' | 'struct' | 'array';
  /** The primitive type, or the element type of a primitive array. */
  primitive?: PrimitiveTypeName;
  /** The struct type name (a key of MessageSchema.structs), or the element struct of an array. */
  struct?: string;
  /** Versions in which the field exists. */
  versions: VersionSpan;
  /** Versions in which it is sent inline (not tagged). */
  inlineVersions: VersionSpan | null;
  nullableVersions: VersionSpan | null;
  taggedVersions: VersionSpan | null;
  tag?: number;
  /** Versions in which it uses compact encodings. */
  flexibleVersions: VersionSpan | null;
  /** Whether the TypeScript property admits null. */
  nullableType: boolean;
  /** Whether the encoder's Init type lets the property be left out. */
  optionalInInit: boolean;
  default: FieldDefault;
}

export interface StructSchema {
  /** Versions in which the struct can appear. */
  versions: VersionSpan;
  fields: FieldSchema[];
}

export interface MessageSchema {
  /** e.g. 'ProduceRequest', 'OffsetCommitValue'. */
  name: string;
  /** 'request' | 'response' | 'data'. */
  type: string;
  apiKey?: number;
  /** Module under host/protocol/generated/ holding the codec, e.g. 'produce.js'. */
  module: string;
  /** Generated versions. */
  versions: VersionSpan;
  flexibleVersions: VersionSpan | null;
  /** Name of the top-level struct in `structs` (= `name`). */
  top: string;
  structs: Record<string, StructSchema>;
}
