/**
 * The developers' rule "no file in host/ over 700 lines" (issue 9): a file that grows past it
 * holds more than one concern and is split into focused files. The generated protocol codecs are
 * exempt (one file per message, written by the code generator).
 */
import { describe, expect, it } from 'vitest';
import { GENERATED_FOLDER, hostSources, isUnder } from './host-sources.js';

const MAX_LINES = 700;

/** Lines as an editor counts them: a final newline does not open another line. */
function lineCount(text: string): number {
  const lines = text.split('\n').length;
  return text.endsWith('\n') ? lines - 1 : lines;
}

describe('file size', () => {
  it(`no file in host/ outside the generated codecs is over ${MAX_LINES} lines`, () => {
    const tooLong = hostSources()
      .filter((source) => !isUnder(source.path, GENERATED_FOLDER))
      .map((source) => ({ path: source.path, lines: lineCount(source.text) }))
      .filter((file) => file.lines > MAX_LINES)
      .map((file) => `${file.path}: ${file.lines} lines`);
    expect(tooLong).toEqual([]);
  });

  it('the scan sees the broker sources', () => {
    const paths = hostSources().map((source) => source.path);
    expect(paths).toContain('host/log/unified-log.ts');
    expect(paths.length).toBeGreaterThan(100);
  });
});
