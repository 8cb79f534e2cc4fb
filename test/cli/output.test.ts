import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../host/config/config-error.js';
import { CliError, CliIo, describeCliError, formatJson, formatTable, printResult, runCliAction } from '../../host/cli/output.js';

function recordingIo(): CliIo & { out: string; err: string; codes: number[] } {
  const io = {
    out: '', err: '', codes: [] as number[],
    stdout: { write: (text: string) => { io.out += text; } },
    stderr: { write: (text: string) => { io.err += text; } },
    exit: (code: number) => { io.codes.push(code); },
  };
  return io;
}

interface Row { topic: string; partitions: number; replicas: number[]; note: string | null }
const rows: Row[] = [
  { topic: 'orders', partitions: 12, replicas: [1, 2], note: null },
  { topic: 'a', partitions: 3, replicas: [1], note: 'x' },
];
const columns = [
  { header: 'Topic', value: 'topic' as const },
  { header: 'Partitions', value: 'partitions' as const },
  { header: 'Replicas', value: (row: Row) => row.replicas },
  { header: 'Note', value: 'note' as const },
];

describe('formatTable', () => {
  it('pads columns, right-aligns numbers, prints lists comma-joined and null as -', () => {
    expect(formatTable(rows, columns)).toBe(
      'TOPIC   PARTITIONS  REPLICAS  NOTE\n' +
      'orders          12  1,2       -\n' +
      'a                3  1         x\n',
    );
  });

  it('prints only the header for no rows', () => {
    expect(formatTable([], columns)).toBe('TOPIC  PARTITIONS  REPLICAS  NOTE\n');
  });
});

describe('printResult', () => {
  it('prints a table by default and JSON with --json', () => {
    const human = recordingIo();
    printResult(human, { rows, columns }, { json: false });
    expect(human.out).toBe(formatTable(rows, columns));
    const machine = recordingIo();
    printResult(machine, { rows, columns, json: { topics: rows } }, { json: true });
    expect(JSON.parse(machine.out)).toEqual({ topics: rows });
    expect(machine.out).toBe(formatJson({ topics: rows }));
  });
});

describe('errors', () => {
  it('prints a CliError as the problem and the fix, with its exit code', () => {
    expect(describeCliError(new CliError('topic "x" does not exist', 'create it with tributary topic create x', 2))).toEqual({
      text: 'tributary: topic "x" does not exist\n  fix: create it with tributary topic create x\n',
      exitCode: 2,
    });
  });

  it('prints a ConfigError as an invalid configuration with exit code 2', () => {
    const { text, exitCode } = describeCliError(new ConfigError('Unknown broker config "a.b".'));
    expect(exitCode).toBe(2);
    expect(text).toContain('tributary: invalid configuration: Unknown broker config "a.b".');
    expect(text).toContain('fix: ');
  });

  it('prints anything else as an unexpected failure with exit code 1', () => {
    expect(describeCliError(new Error('boom'))).toEqual({ text: 'tributary: unexpected failure: boom\n', exitCode: 1 });
  });

  it('runs an action and turns its error into stderr text and an exit code', async () => {
    const io = recordingIo();
    await runCliAction(io, () => {
      throw new CliError('no broker at 127.0.0.1:9092', 'start one with tributary broker');
    });
    expect(io.err).toBe('tributary: no broker at 127.0.0.1:9092\n  fix: start one with tributary broker\n');
    expect(io.codes).toEqual([1]);
    const fine = recordingIo();
    await runCliAction(fine, async () => {});
    expect(fine.codes).toEqual([]);
  });
});
