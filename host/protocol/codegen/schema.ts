/**
 * Loading Kafka's message schemas (clients/src/main/resources/common/message/*.json in Apache
 * Kafka; a copy lives in ../shared/kafka-protocol/). The files are JSON with `//` line comments.
 */
import { readFileSync } from 'node:fs';

/** An inclusive version range; `none` is represented as min > max. */
export interface VersionRange {
  min: number;
  max: number;
}

export const NO_VERSIONS: VersionRange = { min: 1, max: 0 };

/** Parses Kafka's version syntax: "3+", "0-2", "5", "none". */
export function parseVersions(text: string | undefined, what: string): VersionRange {
  if (text === undefined) return NO_VERSIONS;
  const t = text.trim();
  if (t === 'none') return NO_VERSIONS;
  let m = /^(\d+)\+$/.exec(t);
  if (m) return { min: Number(m[1]), max: Number.MAX_SAFE_INTEGER };
  m = /^(\d+)-(\d+)$/.exec(t);
  if (m) return { min: Number(m[1]), max: Number(m[2]) };
  m = /^(\d+)$/.exec(t);
  if (m) return { min: Number(m[1]), max: Number(m[1]) };
  throw new Error(`${what}: cannot parse version range ${JSON.stringify(text)}`);
}

/** Intersection of two ranges (may be empty: min > max). */
export function intersect(a: VersionRange, b: VersionRange): VersionRange {
  return { min: Math.max(a.min, b.min), max: Math.min(a.max, b.max) };
}

export function isEmpty(r: VersionRange): boolean {
  return r.min > r.max;
}

export function formatRange(r: VersionRange): string {
  if (isEmpty(r)) return 'none';
  if (r.max === Number.MAX_SAFE_INTEGER) return `${r.min}+`;
  if (r.min === r.max) return `${r.min}`;
  return `${r.min}-${r.max}`;
}

/** One field as written in the JSON. */
export interface RawField {
  name: string;
  type: string;
  versions?: string;
  nullableVersions?: string;
  taggedVersions?: string;
  tag?: number;
  default?: string | number | boolean;
  flexibleVersions?: string;
  about?: string;
  ignorable?: boolean;
  fields?: RawField[];
}

export interface RawStruct {
  name: string;
  versions?: string;
  fields: RawField[];
}

/** One message schema as written in the JSON. */
export interface RawMessage {
  apiKey?: number;
  type: string;
  name: string;
  validVersions: string;
  flexibleVersions: string;
  fields: RawField[];
  commonStructs?: RawStruct[];
}

/** Removes `//` comments outside string literals (the schema files carry license and version notes). */
export function stripJsonComments(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      out += c;
      if (c === '\\') { out += text[i + 1] ?? ''; i++; }
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else {
      out += c;
    }
  }
  return out;
}

export function loadMessage(path: string): RawMessage {
  const text = readFileSync(path, 'utf8');
  try {
    return JSON.parse(stripJsonComments(text)) as RawMessage;
  } catch (err) {
    throw new Error(`${path}: ${(err as Error).message}`);
  }
}
