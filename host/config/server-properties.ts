/**
 * `server.properties` parsing with the rules of java.util.Properties.load(Reader), which is what
 * Kafka reads its config file with:
 * - natural lines end at `\n`, `\r` or `\r\n`; leading spaces, tabs and form feeds are skipped;
 * - a line whose first non-blank character is `#` or `!` is a comment (comments never continue);
 * - a line ending in an odd number of backslashes continues on the next line: the backslash and
 *   the line break are dropped, and so is the next line's leading whitespace;
 * - the key ends at the first unescaped `=`, `:` or whitespace; the value starts after optional
 *   whitespace, at most one `=` or `:`, and more whitespace; trailing whitespace is kept (config
 *   parsing trims it later, as Kafka's ConfigDef does);
 * - escapes: `\t \n \r \f`, `\uXXXX`, and `\` before any other character stands for that
 *   character (so `\=`, `\:`, `\ `, `\#`, `\\`);
 * - a repeated key: the last one wins.
 */
import { ConfigError } from './config-error.js';

/** One key/value pair with the 1-based line its logical line started on. */
export interface PropertiesEntry {
  readonly key: string;
  readonly value: string;
  readonly line: number;
}

const BLANK = new Set([' ', '\t', '\f']);

/**
 * Parses Java .properties text into entries in file order (repeated keys kept; see
 * {@link parseServerProperties} for last-wins).
 * @throws ConfigError on a malformed `\uXXXX` escape, naming the line
 */
export function parsePropertiesEntries(text: string): PropertiesEntry[] {
  const naturalLines = text.split(/\r\n|\r|\n/);
  const entries: PropertiesEntry[] = [];
  let logical: string | null = null;
  let startLine = 0;
  for (let index = 0; index < naturalLines.length; index++) {
    const line = stripLeadingBlanks(naturalLines[index]!);
    if (logical === null) {
      if (line === '' || line[0] === '#' || line[0] === '!') continue;
      startLine = index + 1;
      logical = '';
    }
    if (endsWithOddBackslashes(line)) {
      logical += line.slice(0, -1);
      if (index < naturalLines.length - 1) continue;
    } else {
      logical += line;
    }
    entries.push(splitKeyValue(logical, startLine));
    logical = null;
  }
  return entries;
}

/**
 * Parses a `server.properties` text: key -> value (unescaped, value untrimmed), last one wins,
 * in first-appearance order.
 * @throws ConfigError on a malformed `\uXXXX` escape, naming the line
 */
export function parseServerProperties(text: string): Map<string, string> {
  const result = new Map<string, string>();
  for (const entry of parsePropertiesEntries(text)) result.set(entry.key, entry.value);
  return result;
}

function stripLeadingBlanks(line: string): string {
  let start = 0;
  while (start < line.length && BLANK.has(line[start]!)) start++;
  return line.slice(start);
}

function endsWithOddBackslashes(line: string): boolean {
  let count = 0;
  for (let index = line.length - 1; index >= 0 && line[index] === '\\'; index--) count++;
  return count % 2 === 1;
}

function splitKeyValue(logical: string, line: number): PropertiesEntry {
  let keyEnd = 0;
  let escaped = false;
  for (; keyEnd < logical.length; keyEnd++) {
    const char = logical[keyEnd]!;
    if (escaped) {
      escaped = false;
      continue;
    }
    if (char === '\\') escaped = true;
    else if (char === '=' || char === ':' || BLANK.has(char)) break;
  }
  let valueStart = keyEnd;
  let separatorSeen = false;
  while (valueStart < logical.length) {
    const char = logical[valueStart]!;
    if (BLANK.has(char)) valueStart++;
    else if (!separatorSeen && (char === '=' || char === ':')) {
      separatorSeen = true;
      valueStart++;
    } else break;
  }
  return {
    key: unescape(logical.slice(0, keyEnd), line),
    value: unescape(logical.slice(valueStart), line),
    line,
  };
}

function unescape(text: string, line: number): string {
  if (!text.includes('\\')) return text;
  let out = '';
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!;
    if (char !== '\\') {
      out += char;
      continue;
    }
    index++;
    if (index >= text.length) break; // a lone trailing backslash at end of input stands for nothing
    const next = text[index]!;
    switch (next) {
      case 't': out += '\t'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 'f': out += '\f'; break;
      case 'u': {
        const hex = text.slice(index + 1, index + 5);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
          throw new ConfigError(
            `Malformed \\uXXXX escape on line ${line}: "\\u${hex}" needs exactly four hex digits (e.g. \\u00e9).`,
          );
        }
        out += String.fromCharCode(parseInt(hex, 16));
        index += 4;
        break;
      }
      default:
        out += next;
    }
  }
  return out;
}
