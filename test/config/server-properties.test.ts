import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../host/config/config-error.js';
import { parsePropertiesEntries, parseServerProperties } from '../../host/config/server-properties.js';

const parse = (text: string): Record<string, string> => Object.fromEntries(parseServerProperties(text));

describe('parseServerProperties', () => {
  it('skips blank lines and # or ! comments, even indented ones', () => {
    expect(parse('# a comment\n\n   ! another\n\t# indented\na=1\n   \n')).toEqual({ a: '1' });
  });

  it('accepts =, : and whitespace as separators, with whitespace around them', () => {
    expect(parse('a=1\nb:2\nc 3\nd = 4\ne\t:\t5\nf   6')).toEqual({ a: '1', b: '2', c: '3', d: '4', e: '5', f: '6' });
  });

  it('keeps later separators in the value and only skips one separator', () => {
    expect(parse('a=b=c\nx==y\nk: :v')).toEqual({ a: 'b=c', x: '=y', k: ':v' });
  });

  it('reads a key without a value as the empty string', () => {
    expect(parse('flag\nother=')).toEqual({ flag: '', other: '' });
  });

  it('strips leading whitespace and keeps trailing whitespace of values', () => {
    expect(parse('   key =   value  ')).toEqual({ key: 'value  ' });
  });

  it('joins continuation lines and drops the next line\'s leading whitespace', () => {
    expect(parse('listeners=PLAINTEXT://a:1,\\\n    CONTROLLER://b:2\nnext=1')).toEqual({
      listeners: 'PLAINTEXT://a:1,CONTROLLER://b:2',
      next: '1',
    });
  });

  it('continues over several lines and treats a # on a continuation line as data', () => {
    expect(parse('a=1\\\n  2\\\n  # 3\nb=4')).toEqual({ a: '12# 3', b: '4' });
  });

  it('does not continue a line ending in an even number of backslashes', () => {
    expect(parse('a=x\\\\\nb=y')).toEqual({ a: 'x\\', b: 'y' });
  });

  it('never continues a comment line', () => {
    expect(parse('# comment \\\na=1')).toEqual({ a: '1' });
  });

  it('ends a continued line at an empty next line', () => {
    expect(parse('a=1\\\n\nb=2')).toEqual({ a: '1', b: '2' });
  });

  it('drops a continuation backslash on the last line', () => {
    expect(parse('a=1\\')).toEqual({ a: '1' });
  });

  it('unescapes \\t \\n \\r \\f, \\uXXXX and any other escaped character', () => {
    expect(parse('a=x\\ty\\nz\\r\\f\nb=caf\\u00e9\nc=\\q\\\\')).toEqual({ a: 'x\ty\nz\r\f', b: 'café', c: 'q\\' });
  });

  it('lets escaped separators, spaces and comment marks be part of a key', () => {
    expect(parse('key\\ with\\ spaces=v\na\\=b=c\nx\\:y:z\n\\#not-a-comment=1')).toEqual({
      'key with spaces': 'v',
      'a=b': 'c',
      'x:y': 'z',
      '#not-a-comment': '1',
    });
  });

  it('accepts CRLF and CR line endings', () => {
    expect(parse('a=1\r\nb=2\rc=3\r\n')).toEqual({ a: '1', b: '2', c: '3' });
  });

  it('keeps the last value of a repeated key', () => {
    expect(parse('a=1\nb=2\na=3')).toEqual({ a: '3', b: '2' });
  });

  it('rejects a malformed \\u escape with the line number', () => {
    expect(() => parse('ok=1\n# c\nbad=\\u12G4')).toThrow(ConfigError);
    expect(() => parse('ok=1\n# c\nbad=\\u12G4')).toThrow(/line 3/);
    expect(() => parse('bad=\\u12')).toThrow(/four hex digits/);
  });

  it('reports the line a continued entry starts on', () => {
    const entries = parsePropertiesEntries('# head\na=1\\\n  2\n\nb=3');
    expect(entries).toEqual([
      { key: 'a', value: '12', line: 2 },
      { key: 'b', value: '3', line: 5 },
    ]);
  });
});
