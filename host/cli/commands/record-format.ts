/**
 * How `tributary consume` prints a record: `value`, `key-value` (key TAB value), `json` (one
 * JSON object per line), or a template: %t topic, %p partition, %o offset, %k key, %v value,
 * %T timestamp (ms), %h headers as k=v joined by commas, %% a percent sign; escapes \n \t \r \0 \\.
 * Keys and values print as UTF-8 text; null prints as nothing (json: null).
 */
import type { ConsumerRecord } from '../../clients/consumer.js';

function text(bytes: Buffer | null): string {
  return bytes === null ? '' : bytes.toString('utf8');
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '0': '\0', '\\': '\\' };

/** Returns a function printing records in `format` (a name or a template). */
export function recordFormatter(format: string): (record: ConsumerRecord) => string {
  if (format === 'value') return (r) => `${text(r.value)}\n`;
  if (format === 'key-value') return (r) => `${text(r.key)}\t${text(r.value)}\n`;
  if (format === 'json') {
    return (r) => `${JSON.stringify({
      topic: r.topic,
      partition: r.partition,
      offset: r.offset,
      timestamp: r.timestamp,
      key: r.key === null ? null : text(r.key),
      value: r.value === null ? null : text(r.value),
      headers: Object.fromEntries(r.headers.map((h) => [h.key, h.value === null ? null : text(h.value)])),
    })}\n`;
  }
  const parts: ((r: ConsumerRecord) => string)[] = [];
  let literal = '';
  const pushLiteral = (): void => {
    if (literal === '') return;
    const fixed = literal;
    parts.push(() => fixed);
    literal = '';
  };
  for (let i = 0; i < format.length; i++) {
    const c = format[i]!;
    const next = format[i + 1];
    if (c === '\\' && next !== undefined && ESCAPES[next] !== undefined) {
      literal += ESCAPES[next];
      i++;
      continue;
    }
    if (c !== '%' || next === undefined) {
      literal += c;
      continue;
    }
    i++;
    const field: ((r: ConsumerRecord) => string) | undefined = {
      t: (r: ConsumerRecord) => r.topic,
      p: (r: ConsumerRecord) => String(r.partition),
      o: (r: ConsumerRecord) => String(r.offset),
      k: (r: ConsumerRecord) => text(r.key),
      v: (r: ConsumerRecord) => text(r.value),
      T: (r: ConsumerRecord) => String(r.timestamp),
      h: (r: ConsumerRecord) => r.headers.map((h) => `${h.key}=${text(h.value)}`).join(','),
    }[next];
    if (next === '%') literal += '%';
    else if (field === undefined) literal += `%${next}`;
    else {
      pushLiteral();
      parts.push(field);
    }
  }
  pushLiteral();
  return (r) => parts.map((part) => part(r)).join('');
}
