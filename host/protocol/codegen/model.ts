/**
 * The generator's model of a message: the schema's structs and fields with every version range
 * already clipped to the versions we generate, and the TypeScript names and defaults resolved.
 * Shared by the code emitter and by tests (which build sample messages from it).
 */
import type { FieldDefault, PrimitiveTypeName } from '../message-schema.js';
import {
  intersect, isEmpty, parseVersions, type RawField, type RawMessage, type RawStruct, type VersionRange,
} from './schema.js';

/**
 * The schema catalog's types (host/protocol/message-schema.ts): the generator writes its model's
 * primitives and defaults into generated/schemas.ts as they are, so both sides share one union.
 */
export type PrimitiveType = PrimitiveTypeName;

const PRIMITIVES = new Set<string>([
  'bool', 'int8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'float64', 'string', 'bytes', 'records', 'uuid',
]);

export interface FieldModel {
  /** Name in the schema, e.g. 'TopicData'. */
  schemaName: string;
  /** camelCase property name, e.g. 'topicData'. */
  name: string;
  about: string;
  /** The schema's `type` text, e.g. '[]TopicProduceData'. */
  schemaType: string;
  kind: 'primitive' | 'struct' | 'array';
  /** For 'primitive', or the element type of a primitive array. */
  primitive?: PrimitiveType;
  /** For 'struct', or the element type of a struct array. */
  struct?: StructModel;
  /** Versions (within the generated range) in which the field exists at all. */
  versions: VersionRange;
  /** The schema's own version texts, for documentation. */
  rawVersions: string;
  rawNullableVersions?: string;
  rawTaggedVersions?: string;
  rawDefault?: string;
  /** Versions in which the field is sent inline (present and not tagged). */
  inlineVersions: VersionRange;
  /** Versions in which the field may be null (within `versions`). */
  nullableVersions: VersionRange;
  /** Versions in which the field is a tagged field (within `versions`). */
  taggedVersions: VersionRange;
  tag?: number;
  /** Versions in which this field uses compact encodings (message flexible versions unless overridden). */
  flexibleVersions: VersionRange;
  /** True when the property can hold null in some generated version. */
  nullableType: boolean;
  /** True when the property may be left out when encoding (absent in some version, tagged, or defaulted). */
  optionalInInit: boolean;
  /** The default as a JS value description, see `defaultValue`. */
  defaultValue: DefaultValue;
}

/** A field's default (see message-schema.ts's FieldDefault). */
export type DefaultValue = FieldDefault;

export interface StructModel {
  /** TypeScript interface name (the schema's struct type name, or the message name at the top). */
  name: string;
  /** Versions (within the generated range) in which this struct can appear. */
  versions: VersionRange;
  fields: FieldModel[];
  /** The message's top-level struct. */
  isTop: boolean;
}

export interface MessageModel {
  /** Schema name, e.g. 'ProduceRequest'. */
  name: string;
  /** 'request' | 'response' | 'data' | 'header' ... */
  type: string;
  apiKey?: number;
  /** The schema's validVersions. */
  validVersions: VersionRange;
  /** The versions generated: validVersions clipped to the supported maximum. */
  generated: VersionRange;
  /** Flexible versions (within `generated`). */
  flexibleVersions: VersionRange;
  /** The schema's flexibleVersions text. */
  rawFlexibleVersions: string;
  top: StructModel;
  /** Every struct, top first, in definition order. */
  structs: StructModel[];
}

/** 'TopicData' -> 'topicData'; 'group' stays 'group'. */
export function camelCase(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1);
}

/**
 * Builds the model of one schema, generating versions [validMin, min(validMax, maxVersion)].
 * @param structPrefix prepended to nested struct names (to keep a request's and a response's
 *   structs apart when both define the same type name differently)
 */
export function buildMessageModel(raw: RawMessage, maxVersion: number | 'all', structPrefix = ''): MessageModel {
  const valid = parseVersions(raw.validVersions, `${raw.name}.validVersions`);
  const generated: VersionRange = { min: valid.min, max: maxVersion === 'all' ? valid.max : Math.min(valid.max, maxVersion) };
  if (isEmpty(generated)) throw new Error(`${raw.name}: no versions to generate (valid ${raw.validVersions}, max ${maxVersion})`);
  const flexible = intersect(parseVersions(raw.flexibleVersions, `${raw.name}.flexibleVersions`), generated);
  const common = new Map<string, RawStruct>();
  for (const s of raw.commonStructs ?? []) common.set(s.name, s);
  const structs: StructModel[] = [];
  const byName = new Map<string, StructModel>();

  const buildStruct = (name: string, fields: RawField[], versions: VersionRange, isTop: boolean): StructModel => {
    const model: StructModel = { name, versions, fields: [], isTop };
    structs.push(model);
    if (!isTop) byName.set(name, model);
    for (const f of fields) {
      const fm = buildField(f, versions, `${raw.name}.${name}.${f.name}`);
      if (fm !== null) model.fields.push(fm);
    }
    return model;
  };

  const resolveStruct = (typeName: string, inline: RawField[] | undefined, versions: VersionRange, where: string): StructModel => {
    const tsName = structPrefix + typeName;
    const existing = byName.get(tsName);
    if (inline !== undefined) {
      if (existing !== undefined) throw new Error(`${where}: struct ${typeName} defined twice`);
      return buildStruct(tsName, inline, versions, false);
    }
    if (existing !== undefined) return existing;
    const c = common.get(typeName);
    if (c === undefined) throw new Error(`${where}: struct type ${typeName} has no fields and is not a common struct`);
    return buildStruct(tsName, c.fields, intersect(generated, parseVersions(c.versions ?? '0+', where)), false);
  };

  const buildField = (f: RawField, parentVersions: VersionRange, where: string): FieldModel | null => {
    const versions = intersect(intersect(parseVersions(f.versions, `${where}.versions`), generated), parentVersions);
    if (isEmpty(versions)) return null;
    const nullableVersions = intersect(parseVersions(f.nullableVersions, `${where}.nullableVersions`), versions);
    const taggedVersions = f.tag === undefined ? { min: 1, max: 0 } : intersect(parseVersions(f.taggedVersions, `${where}.taggedVersions`), versions);
    if (f.tag !== undefined && !isEmpty(taggedVersions) && !isEmpty(intersect(taggedVersions, { min: 0, max: flexible.min - 1 }))) {
      throw new Error(`${where}: tagged in non-flexible versions`);
    }
    let inlineVersions = versions;
    if (!isEmpty(taggedVersions)) {
      if (taggedVersions.max < versions.max) throw new Error(`${where}: tagged versions must extend to the field's last version`);
      inlineVersions = { min: versions.min, max: taggedVersions.min - 1 };
    }
    const fieldFlexible = f.flexibleVersions === undefined ? flexible : intersect(flexible, parseVersions(f.flexibleVersions, `${where}.flexibleVersions`));
    let kind: FieldModel['kind'];
    let primitive: PrimitiveType | undefined;
    let struct: StructModel | undefined;
    if (f.type.startsWith('[]')) {
      kind = 'array';
      const element = f.type.slice(2);
      if (PRIMITIVES.has(element)) primitive = element as PrimitiveType;
      else struct = resolveStruct(element, f.fields, versions, where);
    } else if (PRIMITIVES.has(f.type)) {
      kind = 'primitive';
      primitive = f.type as PrimitiveType;
    } else {
      kind = 'struct';
      struct = resolveStruct(f.type, f.fields, versions, where);
    }
    return describeField(f, where, generated, { versions, inlineVersions, nullableVersions, taggedVersions, flexibleVersions: fieldFlexible, kind, primitive, struct });
  };

  const top = buildStruct(raw.name, raw.fields, generated, true);
  const model: MessageModel = {
    name: raw.name,
    type: raw.type,
    validVersions: valid,
    generated,
    flexibleVersions: flexible,
    rawFlexibleVersions: raw.flexibleVersions,
    top,
    structs,
  };
  if (raw.apiKey !== undefined) model.apiKey = raw.apiKey;
  return model;
}

/** What {@link buildMessageModel} resolved of a field before describing it. */
interface ResolvedField {
  versions: VersionRange;
  inlineVersions: VersionRange;
  nullableVersions: VersionRange;
  taggedVersions: VersionRange;
  flexibleVersions: VersionRange;
  kind: FieldModel['kind'];
  primitive: PrimitiveType | undefined;
  struct: StructModel | undefined;
}

/** The {@link FieldModel} of schema field `f` (at `where`) from its resolved versions and type. */
function describeField(f: RawField, where: string, generated: VersionRange, resolved: ResolvedField): FieldModel {
  const { versions, inlineVersions, nullableVersions, taggedVersions, kind, primitive, struct } = resolved;
  const nullableType = !isEmpty(nullableVersions) || primitive === 'records' && kind === 'primitive';
  const coversAll = versions.min === generated.min && versions.max === generated.max;
  const field: FieldModel = {
    schemaName: f.name,
    name: camelCase(f.name),
    about: f.about ?? '',
    schemaType: f.type,
    kind,
    versions,
    rawVersions: f.versions ?? 'none',
    inlineVersions,
    nullableVersions,
    taggedVersions,
    flexibleVersions: resolved.flexibleVersions,
    nullableType,
    optionalInInit: !coversAll || !isEmpty(taggedVersions) || f.default !== undefined,
    defaultValue: { kind: 'null' },
  };
  if (primitive !== undefined) field.primitive = primitive;
  if (struct !== undefined) field.struct = struct;
  if (f.nullableVersions !== undefined) field.rawNullableVersions = f.nullableVersions;
  if (f.taggedVersions !== undefined) field.rawTaggedVersions = f.taggedVersions;
  if (f.default !== undefined) field.rawDefault = String(f.default);
  // A few metadata-record schemas spell the tag as a string ("tag": "0").
  if (f.tag !== undefined) field.tag = Number(f.tag);
  field.defaultValue = resolveDefault(field, f.default, where);
  return field;
}

function resolveDefault(field: FieldModel, raw: string | number | boolean | undefined, where: string): DefaultValue {
  if (field.kind === 'array') {
    if (raw === 'null') return { kind: 'null' };
    return { kind: 'emptyArray' };
  }
  if (field.kind === 'struct') {
    if (raw === 'null') return { kind: 'null' };
    return { kind: 'defaultStruct' };
  }
  const p = field.primitive!;
  switch (p) {
    case 'bool':
      if (raw === undefined) return { kind: 'bool', value: false };
      if (raw === true || raw === 'true') return { kind: 'bool', value: true };
      if (raw === false || raw === 'false') return { kind: 'bool', value: false };
      throw new Error(`${where}: bad bool default ${String(raw)}`);
    case 'string':
      if (raw === 'null') return { kind: 'null' };
      return { kind: 'string', value: raw === undefined ? '' : String(raw) };
    case 'bytes':
      if (raw === 'null') return { kind: 'null' };
      return { kind: 'emptyBytes' };
    case 'records':
      return { kind: 'null' };
    case 'uuid':
      return { kind: 'zeroUuid' };
    default: {
      if (raw === undefined) return { kind: 'number', value: 0 };
      const n = Number(raw);
      if (!Number.isFinite(n)) throw new Error(`${where}: bad numeric default ${String(raw)}`);
      return { kind: 'number', value: n };
    }
  }
}

/** Structs that need a `defaultX()` builder: used as non-array struct fields. */
export function structsNeedingDefault(model: MessageModel): Set<StructModel> {
  const out = new Set<StructModel>();
  const visit = (s: StructModel): void => {
    for (const f of s.fields) {
      if (f.kind === 'struct' && f.defaultValue.kind === 'defaultStruct' && !out.has(f.struct!)) {
        out.add(f.struct!);
        visit(f.struct!);
      }
    }
  };
  for (const s of model.structs) visit(s);
  return out;
}
