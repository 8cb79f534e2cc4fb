/**
 * Emits TypeScript for one message model: interfaces, and straight-line decode/encode functions
 * per struct (one `if (version ...)` guard per field, no closures or tables at runtime), in the
 * way Kafka's own MessageDataGenerator writes Java.
 */
import { formatRange, intersect, isEmpty, type VersionRange } from './schema.js';
import { structsNeedingDefault, type FieldModel, type MessageModel, type PrimitiveType, type StructModel } from './model.js';

/** Helpers the emitted code imports from ../reader.js. */
export interface EmitImports {
  emptyBytes: boolean;
  zeroUuid: boolean;
}

/** A condition over `version` within `universe`: null = never, '' = always, else a JS expression. */
export function versionCondition(range: VersionRange, universe: VersionRange): string | null {
  if (isEmpty(range) || range.max < universe.min || range.min > universe.max) return null;
  const lowOk = range.min <= universe.min;
  const highOk = range.max >= universe.max;
  if (lowOk && highOk) return '';
  if (lowOk) return `version <= ${range.max}`;
  if (highOk) return `version >= ${range.min}`;
  if (range.min === range.max) return `version === ${range.min}`;
  return `version >= ${range.min} && version <= ${range.max}`;
}

/** Picks between a flexible and a classic expression, folding constant conditions. */
function pick(cond: string | null, ifTrue: string, ifFalse: string): string {
  if (cond === null) return ifFalse;
  if (cond === '') return ifTrue;
  if (ifTrue === ifFalse) return ifTrue;
  return `(${cond} ? ${ifTrue} : ${ifFalse})`;
}

/** Like `pick` for statements (each ending in ';'): an if/else, braced so nesting stays unambiguous. */
function pickStatement(cond: string | null, ifTrue: string, ifFalse: string): string {
  if (cond === null) return ifFalse;
  if (cond === '') return ifTrue;
  if (ifTrue === ifFalse) return ifTrue;
  return `if (${cond}) { ${ifTrue} } else { ${ifFalse} }`;
}

const NUMERIC_READ: Partial<Record<PrimitiveType, string>> = {
  bool: 'bool', int8: 'int8', int16: 'int16', uint16: 'uint16', int32: 'int32', uint32: 'uint32',
  int64: 'int64', float64: 'float64', uuid: 'uuid',
};

/** Bytes of the fixed-width primitives (what a skim skips without reading). */
const FIXED_WIDTH: Partial<Record<PrimitiveType, number>> = {
  bool: 1, int8: 1, int16: 2, uint16: 2, int32: 4, uint32: 4, int64: 8, float64: 8, uuid: 16,
};

function tsPrimitive(p: PrimitiveType): string {
  switch (p) {
    case 'bool': return 'boolean';
    case 'string': case 'uuid': return 'string';
    case 'bytes': case 'records': return 'Uint8Array';
    default: return 'number';
  }
}

export class MessageEmitter {
  readonly imports: EmitImports = { emptyBytes: false, zeroUuid: false };
  private readonly out: string[] = [];
  private readonly universe: VersionRange;

  /**
   * @param readNewerAsLatest decode versions newer than the generated ones as the newest
   * @param skim also emit `skimX` functions (a non-allocating pass over the layout, counting array
   *   elements) and have the top-level decoder refuse a body over the reader's `maxArrayElements`
   *   with them before allocating anything (requests: the broker's bound on what one request may
   *   make it decode)
   */
  constructor(private readonly model: MessageModel, private readonly readNewerAsLatest = false, private readonly skim = false) {
    this.universe = model.generated;
  }

  emit(): string {
    const m = this.model;
    for (const s of m.structs) this.emitInterfaces(s);
    const needDefault = structsNeedingDefault(m);
    for (const s of m.structs) if (needDefault.has(s)) this.emitDefaultBuilder(s);
    for (const s of this.taggedStructs()) this.emitIsDefault(s);
    for (const s of m.structs) this.emitDecode(s);
    if (this.skim) for (const s of m.structs) this.emitSkim(s);
    for (const s of m.structs) this.emitEncode(s);
    return this.out.join('\n');
  }

  private line(text = ''): void {
    this.out.push(text);
  }

  /** Flexibility of field `f` as a condition valid inside `within` (the versions the code runs in). */
  private flexCond(f: FieldModel, within: VersionRange): string | null {
    return versionCondition(f.flexibleVersions, within);
  }

  private structFlexCond(s: StructModel): string | null {
    return versionCondition(this.model.flexibleVersions, s.versions);
  }

  private cond(range: VersionRange, within: VersionRange): string | null {
    return versionCondition(range, within);
  }

  // ---------------------------------------------------------------- types

  private fieldType(f: FieldModel, init: boolean): string {
    let t: string;
    if (f.kind === 'array') {
      const element = f.primitive !== undefined ? tsPrimitive(f.primitive) : f.struct!.name + (init ? 'Init' : '');
      t = `${element}[]`;
    } else if (f.kind === 'struct') {
      t = f.struct!.name + (init ? 'Init' : '');
    } else {
      t = tsPrimitive(f.primitive!);
    }
    return f.nullableType ? `${t} | null` : t;
  }

  private fieldDoc(f: FieldModel): string[] {
    const lines: string[] = [];
    if (f.about) lines.push(f.about.replace(/\*\//g, '* /'));
    const notes: string[] = [`Versions ${f.rawVersions}`];
    if (f.rawNullableVersions !== undefined) notes.push(`nullable ${f.rawNullableVersions}`);
    if (f.tag !== undefined) notes.push(`tag ${f.tag} in ${f.rawTaggedVersions ?? 'none'}`);
    const absent = f.versions.min > this.universe.min || f.versions.max < this.universe.max;
    if (absent || f.rawDefault !== undefined || f.tag !== undefined) notes.push(`default ${this.describeDefault(f)}`);
    if (absent) notes.push(`absent in other versions (decoded as the default; ignored when encoding)`);
    lines.push(notes.join('; ') + '.');
    if (f.primitive === 'int64') lines.push('int64 as a number (exact up to 2^53 - 1).');
    if (f.primitive === 'uuid') lines.push('UUID as 32 lowercase hex digits.');
    return lines;
  }

  private describeDefault(f: FieldModel): string {
    const d = f.defaultValue;
    switch (d.kind) {
      case 'number': return String(d.value);
      case 'bool': return String(d.value);
      case 'string': return JSON.stringify(d.value);
      case 'null': return 'null';
      case 'emptyBytes': return 'empty bytes';
      case 'zeroUuid': return 'the zero UUID';
      case 'emptyArray': return '[]';
      case 'defaultStruct': return `every field of ${f.struct!.name} at its default`;
    }
  }

  private emitInterfaces(s: StructModel): void {
    const m = this.model;
    const header = s.isTop
      ? `${m.name}${m.apiKey !== undefined ? ` (api key ${m.apiKey})` : ''}: versions ${formatRange(m.generated)} generated (schema ${m.validVersions.min}-${m.validVersions.max}, flexible ${m.rawFlexibleVersions}).`
      : `${s.name} (a struct of ${m.name}), versions ${formatRange(s.versions)}.`;
    this.line(`/**`);
    this.line(` * ${header}`);
    this.line(` * As decoded: every field is set (fields absent in the version read hold their defaults).`);
    this.line(` */`);
    this.line(`export interface ${s.name} {`);
    for (const f of s.fields) {
      this.line(`  /** ${this.fieldDoc(f).join(' ')} */`);
      this.line(`  ${f.name}: ${this.fieldType(f, false)};`);
    }
    this.line(`}`);
    this.line();
    this.line(`/** ${s.name} as accepted by the encoder: fields absent in some version, tagged or defaulted may be left out (the default is used). */`);
    this.line(`export interface ${s.name}Init {`);
    for (const f of s.fields) {
      this.line(`  ${f.name}${f.optionalInInit ? '?' : ''}: ${this.fieldType(f, true)};`);
    }
    this.line(`}`);
    this.line();
  }

  // ---------------------------------------------------------------- defaults

  private defaultExpr(f: FieldModel): string {
    const d = f.defaultValue;
    switch (d.kind) {
      case 'number': return String(d.value);
      case 'bool': return String(d.value);
      case 'string': return JSON.stringify(d.value);
      case 'null':
        if (!f.nullableType) {
          // A null default on a field never nullable in the generated versions: use the empty value.
          return f.kind === 'array' ? '[]' : f.primitive === 'bytes' ? this.emptyBytes() : "''";
        }
        return 'null';
      case 'emptyBytes': return this.emptyBytes();
      case 'zeroUuid': this.imports.zeroUuid = true; return 'ZERO_UUID';
      case 'emptyArray': return '[]';
      case 'defaultStruct': return `default${f.struct!.name}()`;
    }
  }

  private emptyBytes(): string {
    this.imports.emptyBytes = true;
    return 'EMPTY_BYTES';
  }

  private emitDefaultBuilder(s: StructModel): void {
    this.line(`function default${s.name}(): ${s.name} {`);
    this.line(`  return {`);
    for (const f of s.fields) this.line(`    ${f.name}: ${this.defaultExpr(f)},`);
    this.line(`  };`);
    this.line(`}`);
    this.line();
  }

  private taggedStructs(): StructModel[] {
    const out = new Set<StructModel>();
    const visit = (s: StructModel): void => {
      if (out.has(s)) return;
      out.add(s);
      for (const f of s.fields) if (f.kind === 'struct') visit(f.struct!);
    };
    for (const s of this.model.structs) {
      for (const f of s.fields) {
        if (f.kind === 'struct' && !isEmpty(f.taggedVersions) && f.defaultValue.kind === 'defaultStruct') visit(f.struct!);
      }
    }
    return [...out];
  }

  /** `isDefaultX(value)`: whether a struct equals its default (tagged struct fields are written only when not). */
  private emitIsDefault(s: StructModel): void {
    this.line(`function isDefault${s.name}(m: ${s.name}Init): boolean {`);
    const terms: string[] = [];
    for (const f of s.fields) terms.push(this.isDefaultTerm(f, `m.${f.name}`));
    this.line(`  return ${terms.length === 0 ? 'true' : terms.join(' &&\n    ')};`);
    this.line(`}`);
    this.line();
  }

  /** A boolean expression: `value` (possibly undefined in an Init) equals the field's default. */
  private isDefaultTerm(f: FieldModel, value: string): string {
    const d = f.defaultValue;
    if (f.kind === 'array') {
      if (d.kind === 'null') return `(${value} === undefined || ${value} === null)`;
      return `(${value} === undefined || (${value} !== null && ${value}.length === 0))`;
    }
    if (f.kind === 'struct') {
      if (d.kind === 'null') return `(${value} === undefined || ${value} === null)`;
      return `(${value} === undefined || (${value} !== null && isDefault${f.struct!.name}(${value})))`;
    }
    switch (d.kind) {
      case 'emptyBytes': return `(${value} === undefined || (${value} !== null && ${value}.length === 0))`;
      case 'null': return `(${value} === undefined || ${value} === null)`;
      default: return `(${value} === undefined || ${value} === ${this.defaultExpr(f)})`;
    }
  }

  // ---------------------------------------------------------------- decode

  /** Read expression for one primitive value of field `f` (element of an array when `element`). */
  private readPrimitive(f: FieldModel, p: PrimitiveType, element: boolean, within: VersionRange): string {
    const numeric = NUMERIC_READ[p];
    if (numeric !== undefined) return `r.${numeric}()`;
    const flex = this.flexCond(f, within);
    const nullable = element ? null : this.cond(f.nullableVersions, within);
    const kind = p === 'string' ? 'String' : 'Bytes';
    const classic = pick(nullable, `r.nullable${kind}()`, `r.${kind.toLowerCase()}()`);
    const compact = pick(nullable, `r.compactNullable${kind}()`, `r.compact${kind}()`);
    return pick(flex, compact, classic);
  }

  private emitDecode(s: StructModel): void {
    const m = this.model;
    const fn = `decode${s.name}`;
    if (s.isTop) {
      this.line(`/**`);
      this.line(` * Decodes a ${m.name} body of \`version\` (${formatRange(m.generated)}). Never throws: malformed or short`);
      this.line(` * input sets \`r.error\` (check it once afterwards) and yields zero values.`);
      if (this.readNewerAsLatest) this.line(` * Versions newer than ${m.generated.max} are read as ${m.generated.max} (the schema promises compatible additions).`);
      this.line(` */`);
      this.line(`export function ${fn}(r: Reader, version: number): ${s.name} {`);
      if (this.readNewerAsLatest) {
        this.line(`  if (version > ${m.generated.max}) version = ${m.generated.max};`);
        this.line(`  if (version < ${m.generated.min}) r.fail(\`${m.name} version \${version} is not supported\`);`);
      } else {
        this.line(`  if (version < ${m.generated.min} || version > ${m.generated.max}) r.fail(\`${m.name} version \${version} is not supported (${formatRange(m.generated)})\`);`);
      }
      if (this.skim) this.line(`  if (r.remaining > r.maxArrayElements - r.arrayElements) r.checkArrayElements(skim${s.name}, version);`);
    } else {
      this.line(`function ${fn}(r: Reader, version: number): ${s.name} {`);
    }
    const flex = this.structFlexCond(s);
    const tagged = s.fields.filter((f) => this.cond(f.taggedVersions, s.versions) !== null);
    for (const f of tagged) this.line(`  let $${f.name}: ${this.fieldType(f, false)} = ${this.defaultExpr(f)};`);
    for (const f of s.fields) {
      const inline = this.cond(f.inlineVersions, s.versions);
      const isTagged = tagged.includes(f);
      if (inline === null) {
        if (!isTagged) this.line(`  const $${f.name}: ${this.fieldType(f, false)} = ${this.defaultExpr(f)};`);
        continue;
      }
      const within = intersect(f.inlineVersions, s.versions);
      if (inline === '' && f.kind === 'primitive') {
        this.line(`  const $${f.name}: ${this.fieldType(f, false)} = ${this.readPrimitive(f, f.primitive!, false, within)};`);
        continue;
      }
      if (!isTagged) this.line(`  let $${f.name}: ${this.fieldType(f, false)};`);
      if (inline === '') {
        this.emitReadInto(f, `$${f.name}`, '  ', within);
      } else {
        this.line(`  if (${inline}) {`);
        this.emitReadInto(f, `$${f.name}`, '    ', within);
        if (isTagged) this.line(`  }`);
        else this.line(`  } else $${f.name} = ${this.defaultExpr(f)};`);
      }
    }
    this.emitTaggedFields(s, tagged, flex, (f, indent, within) => {
      this.emitReadInto(f, `$${f.name}`, indent, within);
      this.line(`${indent}if (r.offset !== end) r.fail('${s.name}.${f.name}: tagged field size mismatch');`);
    }, true);
    this.line(`  return {`);
    for (const f of s.fields) this.line(`    ${f.name}: $${f.name},`);
    this.line(`  };`);
    this.line(`}`);
    this.line();
  }

  /** Emits statements reading field `f` into the variable `target`. */
  private emitReadInto(f: FieldModel, target: string, indent: string, within: VersionRange): void {
    if (f.kind === 'primitive') {
      this.line(`${indent}${target} = ${this.readPrimitive(f, f.primitive!, false, within)};`);
      return;
    }
    if (f.kind === 'struct') {
      const nullable = this.cond(f.nullableVersions, within);
      if (nullable === null) {
        this.line(`${indent}${target} = decode${f.struct!.name}(r, version);`);
      } else if (nullable === '') {
        this.line(`${indent}${target} = r.int8() < 0 ? null : decode${f.struct!.name}(r, version);`);
      } else {
        this.line(`${indent}${target} = ${nullable} && r.int8() < 0 ? null : decode${f.struct!.name}(r, version);`);
      }
      return;
    }
    // array
    const flex = this.flexCond(f, within);
    const nullable = this.cond(f.nullableVersions, within);
    this.line(`${indent}{`);
    this.line(`${indent}  const n = ${pick(flex, 'r.compactArrayLength()', 'r.arrayLength()')};`);
    const ifNull = f.nullableType ? pick(nullable, 'null', '[]') : '[]';
    const elementType = f.primitive !== undefined ? tsPrimitive(f.primitive) : f.struct!.name;
    const read = f.primitive !== undefined ? this.readPrimitive(f, f.primitive, true, within) : `decode${f.struct!.name}(r, version)`;
    this.line(`${indent}  if (n < 0) ${target} = ${ifNull};`);
    this.line(`${indent}  else {`);
    this.line(`${indent}    const a: ${elementType}[] = [];`);
    this.line(`${indent}    for (let i = 0; i < n && r.error === null; i++) a.push(${read});`);
    this.line(`${indent}    ${target} = a;`);
    this.line(`${indent}  }`);
    this.line(`${indent}}`);
  }

  // ---------------------------------------------------------------- skim

  /** A statement skipping one primitive value of field `f` (array elements included: same layout). */
  private skipPrimitive(f: FieldModel, p: PrimitiveType, within: VersionRange): string {
    const width = FIXED_WIDTH[p];
    if (width !== undefined) return `r.skip(${width});`;
    const classic = p === 'string' ? 'r.skipString();' : 'r.skipBytes();';
    return pickStatement(this.flexCond(f, within), 'r.skipCompactBytes();', classic);
  }

  /**
   * `skimX(r, version)`: reads what `decodeX` reads, but only counts and lengths: array counts go
   * through the reader's element bound, values are skipped, nothing is allocated. Stops quietly on
   * malformed input (the decoder reports it).
   */
  private emitSkim(s: StructModel): void {
    this.line(`function skim${s.name}(r: Reader, version: number): void {`);
    const tagged = s.fields.filter((f) => this.cond(f.taggedVersions, s.versions) !== null);
    // Consecutive fixed-width fields are skipped with one call: `r.skip(4 + (version >= 9 ? 4 : 0) + 8)`.
    let run: string[] = [];
    const flushRun = (): void => {
      if (run.length === 0) return;
      const constant = run.filter((t) => /^\d+$/.test(t)).reduce((sum, t) => sum + Number(t), 0);
      const terms = [...(constant > 0 ? [String(constant)] : []), ...run.filter((t) => !/^\d+$/.test(t))];
      this.line(`  r.skip(${terms.join(' + ')});`);
      run = [];
    };
    for (const f of s.fields) {
      const inline = this.cond(f.inlineVersions, s.versions);
      if (inline === null) continue;
      const within = intersect(f.inlineVersions, s.versions);
      const width = f.kind === 'primitive' ? FIXED_WIDTH[f.primitive!] : undefined;
      if (width !== undefined) {
        run.push(inline === '' ? String(width) : `(${inline} ? ${width} : 0)`);
        continue;
      }
      flushRun();
      if (inline === '') {
        this.emitSkipField(f, '  ', within);
      } else {
        this.line(`  if (${inline}) {`);
        this.emitSkipField(f, '    ', within);
        this.line(`  }`);
      }
    }
    flushRun();
    const flex = this.structFlexCond(s);
    this.emitTaggedFields(s, tagged, flex, (f, indent, within) => this.emitSkipField(f, indent, within), false);
    this.line(`}`);
    this.line();
  }

  /**
   * The tagged-field section of a flexible struct (`flex`: its condition, '' when always
   * flexible, null when never): known tags handled by `emitCase` (at the indent given, `end`
   * in scope when `withEnd`), unknown tags and tags outside their versions skipped.
   */
  private emitTaggedFields(
    s: StructModel, tagged: readonly FieldModel[], flex: string | null,
    emitCase: (f: FieldModel, indent: string, within: VersionRange) => void, withEnd: boolean,
  ): void {
    if (flex === null) return;
    const indent = flex === '' ? '  ' : '    ';
    if (flex !== '') this.line(`  if (${flex}) {`);
    if (tagged.length === 0) {
      this.line(`${indent}r.skipTaggedFields();`);
    } else {
      this.line(`${indent}const tagCount = r.uvarint();`);
      this.line(`${indent}for (let t = 0; t < tagCount && r.error === null; t++) {`);
      this.line(`${indent}  const tag = r.uvarint();`);
      this.line(`${indent}  const size = r.uvarint();`);
      if (withEnd) this.line(`${indent}  const end = r.offset + size;`);
      this.line(`${indent}  switch (tag) {`);
      for (const f of [...tagged].sort((a, b) => a.tag! - b.tag!)) {
        const c = this.cond(f.taggedVersions, s.versions)!;
        const within = intersect(f.taggedVersions, s.versions);
        this.line(`${indent}    case ${f.tag}:`);
        if (c === '') {
          emitCase(f, `${indent}      `, within);
        } else {
          this.line(`${indent}      if (${c}) {`);
          emitCase(f, `${indent}        `, within);
          this.line(`${indent}      } else r.skip(size);`);
        }
        this.line(`${indent}      break;`);
      }
      this.line(`${indent}    default:`);
      this.line(`${indent}      r.skip(size);`);
      this.line(`${indent}  }`);
      this.line(`${indent}}`);
    }
    if (flex !== '') this.line(`  }`);
  }

  /** Emits statements skipping field `f` (counting the elements of its arrays). */
  private emitSkipField(f: FieldModel, indent: string, within: VersionRange): void {
    if (f.kind === 'primitive') {
      this.line(`${indent}${this.skipPrimitive(f, f.primitive!, within)}`);
      return;
    }
    if (f.kind === 'struct') {
      const nullable = this.cond(f.nullableVersions, within);
      if (nullable === null) this.line(`${indent}skim${f.struct!.name}(r, version);`);
      else if (nullable === '') this.line(`${indent}if (r.int8() >= 0) skim${f.struct!.name}(r, version);`);
      else this.line(`${indent}if (!(${nullable} && r.int8() < 0)) skim${f.struct!.name}(r, version);`);
      return;
    }
    const flex = this.flexCond(f, within);
    this.line(`${indent}{`);
    this.line(`${indent}  const n = ${pick(flex, 'r.compactArrayLength()', 'r.arrayLength()')};`);
    const width = f.primitive !== undefined ? FIXED_WIDTH[f.primitive] : undefined;
    if (width !== undefined) {
      this.line(`${indent}  if (n > 0) r.skip(n * ${width});`);
    } else {
      const skip = f.primitive !== undefined ? this.skipPrimitive(f, f.primitive, within) : `skim${f.struct!.name}(r, version);`;
      this.line(`${indent}  for (let i = 0; i < n && r.error === null; i++) { ${skip} }`);
    }
    this.line(`${indent}}`);
  }

  // ---------------------------------------------------------------- encode

  private writePrimitive(f: FieldModel, p: PrimitiveType, value: string, element: boolean, within: VersionRange): string {
    const numeric = NUMERIC_READ[p];
    if (numeric !== undefined) return `w.${numeric}(${value});`;
    const flex = this.flexCond(f, within);
    const kind = p === 'string' ? 'String' : 'Bytes';
    if (element || !f.nullableType) {
      return pickStatement(flex, `w.compact${kind}(${value});`, `w.${kind.toLowerCase()}(${value});`);
    }
    const nullable = this.cond(f.nullableVersions, within);
    const empty = nullable === '' ? '' : p === 'string' ? "''" : this.emptyBytes();
    // A null in a version where the field is not nullable is written as the empty value.
    const classic = pickStatement(nullable, `w.nullable${kind}(${value});`, `w.${kind.toLowerCase()}(${value} ?? ${empty});`);
    const compact = pickStatement(nullable, `w.compactNullable${kind}(${value});`, `w.compact${kind}(${value} ?? ${empty});`);
    return pickStatement(flex, compact, classic);
  }

  private emitEncode(s: StructModel): void {
    const m = this.model;
    const fn = `encode${s.name}`;
    if (s.isTop) {
      this.line(`/**`);
      this.line(` * Encodes a ${m.name} body as \`version\` (${formatRange(m.generated)}). Fields absent in that version are`);
      this.line(` * silently left out (like Kafka's ignorable fields); a null where the version does not allow one is`);
      this.line(` * written as the empty value. Throws RangeError for a version outside the generated range (a caller bug).`);
      this.line(` */`);
      this.line(`export function ${fn}(w: Writer, version: number, m: ${s.name}Init): void {`);
      this.line(`  if (version < ${m.generated.min} || version > ${m.generated.max}) throw new RangeError(\`${m.name} version \${version} is not supported (${formatRange(m.generated)})\`);`);
    } else {
      this.line(`function ${fn}(w: Writer, version: number, m: ${s.name}Init): void {`);
    }
    const flex = this.structFlexCond(s);
    for (const f of s.fields) {
      const inline = this.cond(f.inlineVersions, s.versions);
      if (inline === null) continue;
      const value = this.initValue(f);
      const within = intersect(f.inlineVersions, s.versions);
      if (inline === '') {
        this.emitWrite(f, value, '  ', within);
      } else {
        this.line(`  if (${inline}) {`);
        this.emitWrite(f, value, '    ', within);
        this.line(`  }`);
      }
    }
    if (flex !== null) {
      const indent = flex === '' ? '  ' : '    ';
      if (flex !== '') this.line(`  if (${flex}) {`);
      const tagged = s.fields.filter((f) => this.cond(f.taggedVersions, s.versions) !== null).sort((a, b) => a.tag! - b.tag!);
      if (tagged.length === 0) {
        this.line(`${indent}w.emptyTaggedFields();`);
      } else {
        this.line(`${indent}let tagCount = 0;`);
        const present: string[] = [];
        for (const f of tagged) {
          const c = this.cond(f.taggedVersions, s.versions)!;
          const notDefault = `!${this.isDefaultTerm(f, `m.${f.name}`)}`;
          const p = `$has${f.name.charAt(0).toUpperCase()}${f.name.slice(1)}`;
          present.push(p);
          this.line(`${indent}const ${p} = ${c === '' ? '' : `${c} && `}${notDefault};`);
          this.line(`${indent}if (${p}) tagCount++;`);
        }
        this.line(`${indent}w.uvarint(tagCount);`);
        tagged.forEach((f, i) => {
          this.line(`${indent}if (${present[i]}) {`);
          this.line(`${indent}  const mark = w.beginTaggedField(${f.tag});`);
          this.emitWrite(f, `m.${f.name}!`, `${indent}  `, intersect(f.taggedVersions, s.versions));
          this.line(`${indent}  w.endTaggedField(mark);`);
          this.line(`${indent}}`);
        });
      }
      if (flex !== '') this.line(`  }`);
    }
    this.line(`}`);
    this.line();
  }

  /** The value to encode for field `f` of Init `m`: a left-out optional field takes its default (an explicit null stays null). */
  private initValue(f: FieldModel): string {
    if (!f.optionalInInit) return `m.${f.name}`;
    const d = this.defaultExpr(f);
    if (f.nullableType && d !== 'null') return `(m.${f.name} === undefined ? ${d} : m.${f.name})`;
    return `(m.${f.name} ?? ${d})`;
  }

  private emitWrite(f: FieldModel, value: string, indent: string, within: VersionRange): void {
    if (f.kind === 'primitive') {
      this.line(`${indent}${this.writePrimitive(f, f.primitive!, value, false, within)}`);
      return;
    }
    if (f.kind === 'struct') {
      const nullable = this.cond(f.nullableVersions, within);
      if (!f.nullableType) {
        this.line(`${indent}encode${f.struct!.name}(w, version, ${value});`);
        return;
      }
      this.line(`${indent}{`);
      this.line(`${indent}  const s = ${value};`);
      if (nullable === null) {
        this.line(`${indent}  encode${f.struct!.name}(w, version, s ?? default${f.struct!.name}());`);
      } else {
        const marker = nullable === '' ? '' : `if (${nullable}) `;
        this.line(`${indent}  if (s === null) { ${marker}w.int8(-1); }`);
        this.line(`${indent}  else { ${marker}w.int8(1); encode${f.struct!.name}(w, version, s); }`);
      }
      this.line(`${indent}}`);
      return;
    }
    const flex = this.flexCond(f, within);
    const nullable = this.cond(f.nullableVersions, within);
    const writeLength = (n: string): string => pickStatement(flex, `w.compactArrayLength(${n});`, `w.arrayLength(${n});`);
    this.line(`${indent}{`);
    this.line(`${indent}  const a = ${value};`);
    const write = f.primitive !== undefined
      ? this.writePrimitive(f, f.primitive, 'a[i]!', true, within)
      : `encode${f.struct!.name}(w, version, a[i]!);`;
    if (f.nullableType) {
      this.line(`${indent}  if (a === null) { ${writeLength(pick(nullable, '-1', '0'))} } else {`);
      this.line(`${indent}    const n = a.length;`);
      this.line(`${indent}    ${writeLength('n')}`);
      this.line(`${indent}    for (let i = 0; i < n; i++) { ${write} }`);
      this.line(`${indent}  }`);
    } else {
      this.line(`${indent}  const n = a.length;`);
      this.line(`${indent}  ${writeLength('n')}`);
      this.line(`${indent}  for (let i = 0; i < n; i++) { ${write} }`);
    }
    this.line(`${indent}}`);
  }
}
