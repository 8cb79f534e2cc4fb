/**
 * Config definitions shared by the broker and topic tables: a name, a type, a default, bounds and
 * a one-line doc, in the manner of Kafka's `ConfigDef`. Parsing follows ConfigDef's rules: values
 * are trimmed, booleans are `true`/`false` in any case, LIST is comma-separated (an empty string
 * is the empty list), INT/SHORT/LONG are decimal integers in Java's ranges.
 *
 * LONG values are held as JS numbers. Kafka writes "never" as Long.MAX_VALUE (2^63-1); any value
 * above 2^53-1 is held as Number.MAX_SAFE_INTEGER, which means the same thing in milliseconds or
 * bytes (285 000 years; 8 PiB). The text the user wrote is kept for DescribeConfigs.
 */
import { ConfigError } from './config-error.js';

/** Kafka's ConfigDef.Type names. CLASS values are kept as text (Tributary loads no classes). */
export type ConfigType = 'BOOLEAN' | 'STRING' | 'INT' | 'SHORT' | 'LONG' | 'DOUBLE' | 'LIST' | 'CLASS' | 'PASSWORD';

/** A parsed config value. `null` only for configs whose default is null and that were not set. */
export type ConfigValue = boolean | number | string | readonly string[] | null;

/**
 * DescribeConfigs v3+ `ConfigType` codes (Kafka's DescribeConfigsResponse.ConfigType).
 */
export const ConfigTypeCode = {
  UNKNOWN: 0, BOOLEAN: 1, STRING: 2, INT: 3, SHORT: 4, LONG: 5, DOUBLE: 6, LIST: 7, CLASS: 8, PASSWORD: 9,
} as const;

/**
 * DescribeConfigs v1+ `ConfigSource` codes (Kafka's DescribeConfigsResponse.ConfigSource).
 * Tributary produces DYNAMIC_TOPIC_CONFIG, STATIC_BROKER_CONFIG and DEFAULT_CONFIG: broker configs
 * are static (server.properties / --override), topic configs are dynamic.
 */
export const ConfigSource = {
  UNKNOWN: 0,
  DYNAMIC_TOPIC_CONFIG: 1,
  DYNAMIC_BROKER_CONFIG: 2,
  DYNAMIC_DEFAULT_BROKER_CONFIG: 3,
  STATIC_BROKER_CONFIG: 4,
  DEFAULT_CONFIG: 5,
  DYNAMIC_BROKER_LOGGER_CONFIG: 6,
} as const;
export type ConfigSourceCode = (typeof ConfigSource)[keyof typeof ConfigSource];

/** Java's Long.MAX_VALUE as Kafka prints it; Kafka's "never" for flush and lag configs. */
export const LONG_MAX_TEXT = '9223372036854775807';
/** Java's Integer.MAX_VALUE. */
export const INT_MAX = 2147483647;

export interface ConfigDef {
  /** Kafka's name, e.g. `log.retention.ms`. Tributary-only configs say so in `doc`. */
  readonly name: string;
  readonly type: ConfigType;
  /** The default as text, Kafka's spelling (`9223372036854775807`, `delete`); null = no default. */
  readonly defaultValue: string | null;
  /** One line for DescribeConfigs documentation and the config reference. */
  readonly doc: string;
  /** Inclusive numeric bounds (INT, SHORT, LONG, DOUBLE). */
  readonly min?: number;
  readonly max?: number;
  /** Integers accepted outside [min, max] (gzip's level -1, Java's Deflater.DEFAULT_COMPRESSION). */
  readonly alsoAccepts?: readonly number[];
  /** STRING: the accepted values; LIST: the accepted elements. Case-sensitive, like Kafka's ValidString. */
  readonly oneOf?: readonly string[];
  /** LIST or STRING must not be empty. */
  readonly nonEmpty?: boolean;
  /** Further check on the parsed value; returns the reason it is invalid, or null. */
  readonly check?: (value: ConfigValue) => string | null;
  /** Overrides the generated "accepted" phrase (used with `check`). */
  readonly accepted?: string;
  /** Sensitive values are never printed (DescribeConfigs answers null). */
  readonly sensitive?: boolean;
  /**
   * Set for Kafka configs Tributary accepts so that a Kafka server.properties loads, but that have
   * no effect here; says why. The broker logs a warning naming them.
   */
  readonly noEffect?: string;
}

const INT_RANGE = { min: -(2n ** 31n), max: 2n ** 31n - 1n };
const SHORT_RANGE = { min: -(2n ** 15n), max: 2n ** 15n - 1n };
const LONG_RANGE = { min: -(2n ** 63n), max: 2n ** 63n - 1n };
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const INTEGER_TEXT = /^[+-]?\d+$/;
const DOUBLE_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** The phrase naming what a config accepts, as printed in errors: `an integer >= 1`. */
export function acceptedPhrase(def: ConfigDef): string {
  if (def.accepted !== undefined) return def.accepted;
  const bounds = boundsPhrase(def);
  switch (def.type) {
    case 'BOOLEAN':
      return 'true or false';
    case 'INT':
      return `an integer${bounds}`;
    case 'SHORT':
      return `a 16-bit integer${bounds}`;
    case 'LONG':
      return `a 64-bit integer${bounds}`;
    case 'DOUBLE':
      return `a number${bounds}`;
    case 'CLASS':
      return 'a class name';
    case 'STRING':
    case 'PASSWORD':
      if (def.oneOf) return `one of ${def.oneOf.join(', ')}`;
      return def.nonEmpty ? 'a non-empty string' : 'a string';
    case 'LIST':
      if (def.oneOf) {
        return `a comma-separated list of ${def.nonEmpty ? 'one or more of ' : ''}${def.oneOf.join(', ')}`;
      }
      return def.nonEmpty ? 'a non-empty comma-separated list' : 'a comma-separated list';
  }
}

function boundsPhrase(def: ConfigDef): string {
  const also = def.alsoAccepts?.length ? ` (or ${def.alsoAccepts.join(', ')})` : '';
  return boundsOnly(def) + also;
}

function boundsOnly(def: ConfigDef): string {
  if (def.min !== undefined && def.max !== undefined) return ` between ${def.min} and ${def.max}`;
  if (def.min !== undefined) return ` >= ${def.min}`;
  if (def.max !== undefined) return ` <= ${def.max}`;
  return '';
}

/**
 * Parses and validates one value for `def`.
 * @param raw the text as written (trimmed here, except PASSWORD)
 * @param origin where it came from, for the message (e.g. `--override`, `server.properties line 4`)
 * @throws ConfigError naming the key, the value and what is accepted
 */
export function parseConfigValue(def: ConfigDef, raw: string, origin?: string): ConfigValue {
  const reason = { text: '' };
  const value = parseTyped(def, raw, reason);
  if (value === undefined) throw invalidValue(def, raw, reason.text, origin);
  const extra = def.check?.(value) ?? null;
  if (extra !== null) throw invalidValue(def, raw, extra, origin);
  return value;
}

/**
 * The reason `raw` is invalid for `def`, or null if valid. The non-throwing form for client
 * requests (AlterConfigs, CreateTopics), where errors are values.
 */
export function configValueProblem(def: ConfigDef, raw: string): string | null {
  try {
    parseConfigValue(def, raw);
    return null;
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
}

function invalidValue(def: ConfigDef, raw: string, reason: string, origin: string | undefined): ConfigError {
  const accepted = acceptedPhrase(def);
  const shown = def.sensitive ? '[hidden]' : JSON.stringify(raw);
  const from = origin ? ` (from ${origin})` : '';
  return new ConfigError(`Invalid value ${shown} for config ${def.name}${from}: ${reason}. Accepted: ${accepted}.`, {
    key: def.name,
    value: def.sensitive ? undefined : raw,
    accepted,
  });
}

/** Returns the parsed value, or undefined with `reason.text` set. */
function parseTyped(def: ConfigDef, raw: string, reason: { text: string }): ConfigValue | undefined {
  const text = def.type === 'PASSWORD' ? raw : raw.trim();
  switch (def.type) {
    case 'BOOLEAN': {
      const lower = text.toLowerCase();
      if (lower === 'true') return true;
      if (lower === 'false') return false;
      reason.text = 'not a boolean';
      return undefined;
    }
    case 'INT':
    case 'SHORT':
    case 'LONG': {
      if (!INTEGER_TEXT.test(text)) {
        reason.text = text === '' ? 'empty' : 'not an integer';
        return undefined;
      }
      const big = BigInt(text);
      if (def.alsoAccepts?.includes(Number(big))) return Number(big);
      const range = def.type === 'INT' ? INT_RANGE : def.type === 'SHORT' ? SHORT_RANGE : LONG_RANGE;
      if (big < range.min || big > range.max) {
        reason.text = `out of the ${def.type === 'INT' ? '32' : def.type === 'SHORT' ? '16' : '64'}-bit integer range`;
        return undefined;
      }
      if (def.min !== undefined && big < BigInt(def.min)) {
        reason.text = `below the minimum ${def.min}`;
        return undefined;
      }
      if (def.max !== undefined && big > BigInt(def.max)) {
        reason.text = `above the maximum ${def.max}`;
        return undefined;
      }
      if (big > MAX_SAFE) return Number.MAX_SAFE_INTEGER;
      if (big < -MAX_SAFE) return -Number.MAX_SAFE_INTEGER;
      return Number(big);
    }
    case 'DOUBLE': {
      if (!DOUBLE_TEXT.test(text)) {
        reason.text = text === '' ? 'empty' : 'not a number';
        return undefined;
      }
      const number = Number(text);
      if (!Number.isFinite(number)) {
        reason.text = 'not a finite number';
        return undefined;
      }
      if (def.min !== undefined && number < def.min) {
        reason.text = `below the minimum ${def.min}`;
        return undefined;
      }
      if (def.max !== undefined && number > def.max) {
        reason.text = `above the maximum ${def.max}`;
        return undefined;
      }
      return number;
    }
    case 'CLASS':
    case 'STRING':
    case 'PASSWORD': {
      if (def.nonEmpty && text === '') {
        reason.text = 'empty';
        return undefined;
      }
      if (def.oneOf && !def.oneOf.includes(text)) {
        reason.text = 'not an accepted value';
        return undefined;
      }
      return text;
    }
    case 'LIST': {
      const items = text === '' ? [] : text.split(/\s*,\s*/);
      if (items.some((item) => item === '')) {
        reason.text = 'the list has an empty element';
        return undefined;
      }
      if (def.nonEmpty && items.length === 0) {
        reason.text = 'empty';
        return undefined;
      }
      if (def.oneOf) {
        const bad = items.find((item) => !def.oneOf!.includes(item));
        if (bad !== undefined) {
          reason.text = `${JSON.stringify(bad)} is not an accepted element`;
          return undefined;
        }
      }
      return items;
    }
  }
}

/** A parsed value as Kafka prints it (DescribeConfigs): lists comma-joined, null stays null. */
export function formatConfigValue(value: ConfigValue): string | null {
  if (value === null) return null;
  if (Array.isArray(value)) return value.join(',');
  if (value === Number.MAX_SAFE_INTEGER) return LONG_MAX_TEXT;
  return String(value);
}

/**
 * Known names close to `unknown` (edit distance, shared dotted words), best first, at most 3:
 * the "did you mean" of unknown-key errors.
 */
export function suggestConfigNames(unknown: string, known: Iterable<string>): string[] {
  const target = unknown.trim().toLowerCase();
  const scored: { name: string; score: number }[] = [];
  for (const name of known) {
    const distance = editDistance(target, name);
    const limit = Math.max(2, Math.floor(name.length / 4));
    if (distance <= limit) scored.push({ name, score: distance });
    else if (target.length >= 4 && (name.includes(target) || target.includes(name))) {
      scored.push({ name, score: limit + 1 });
    }
  }
  scored.sort((a, b) => a.score - b.score || a.name.localeCompare(b.name));
  // A near-miss spelling beats a name that merely contains the text.
  const best = scored[0]?.score;
  return scored.filter((entry) => best !== undefined && (entry.score === best || entry.score <= 1))
    .slice(0, 3).map((entry) => entry.name);
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length]!;
}
