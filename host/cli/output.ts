/**
 * What every `tributary` command prints: human tables by default, one JSON document with
 * `--json`, and errors that name the problem and the fix on stderr with a meaningful exit code.
 *
 * Exit codes: 0 success, 1 the operation failed (broker unreachable, request refused, start-up
 * failure), 2 the command line or the configuration is wrong (usage errors, ConfigError).
 */
import { ConfigError } from '../config/config-error.js';

export const ExitCode = { OK: 0, FAILURE: 1, USAGE: 2 } as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** Where a command writes; `process` in production, buffers in tests. */
export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  exit(code: number): void;
}

export const processIo: CliIo = {
  stdout: process.stdout,
  stderr: process.stderr,
  exit: (code) => process.exit(code),
};

/**
 * An error for the user: what is wrong and what to do about it.
 * `tributary: <problem>` then `  fix: <fix>` on stderr, exit code `exitCode`.
 */
export class CliError extends Error {
  readonly problem: string;
  readonly fix: string;
  readonly exitCode: ExitCodeValue;

  constructor(problem: string, fix: string, exitCode: ExitCodeValue = ExitCode.FAILURE) {
    super(problem);
    this.name = 'CliError';
    this.problem = problem;
    this.fix = fix;
    this.exitCode = exitCode;
  }
}

/**
 * The stderr text and exit code for an error thrown by a command: CliError as problem + fix,
 * ConfigError as an invalid configuration (exit 2; its message already names the key, the value
 * and what is accepted), anything else as an unexpected failure (exit 1).
 */
export function describeCliError(error: unknown): { text: string; exitCode: ExitCodeValue } {
  if (error instanceof CliError) {
    return { text: `tributary: ${error.problem}\n  fix: ${error.fix}\n`, exitCode: error.exitCode };
  }
  if (error instanceof ConfigError) {
    return {
      text: `tributary: invalid configuration: ${error.message}\n` +
        '  fix: correct it in the --config file or the --override, then run the command again\n',
      exitCode: ExitCode.USAGE,
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { text: `tributary: unexpected failure: ${message}\n`, exitCode: ExitCode.FAILURE };
}

/**
 * Runs a command body; on error prints {@link describeCliError} to stderr and exits with its code.
 */
export async function runCliAction(io: CliIo, body: () => Promise<void> | void): Promise<void> {
  try {
    await body();
  } catch (error) {
    const { text, exitCode } = describeCliError(error);
    io.stderr.write(text);
    io.exit(exitCode);
  }
}

/** One column of a human table. */
export interface Column<Row> {
  /** Header text; printed upper-case, as rpk and kafka-topics do. */
  header: string;
  /** The cell: a field of the row or a function of it. null/undefined print as `-`. */
  value: keyof Row | ((row: Row) => unknown);
  /** Default: right for numbers, left otherwise. */
  align?: 'left' | 'right';
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (Array.isArray(value)) return value.map(cellText).join(',');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/**
 * A plain-text table: an upper-case header line, then one line per row; columns separated by two
 * spaces, padded to the widest cell, numbers right-aligned; no trailing spaces.
 */
export function formatTable<Row>(rows: readonly Row[], columns: readonly Column<Row>[]): string {
  const cells = rows.map((row) =>
    columns.map((column) => {
      const raw = typeof column.value === 'function' ? column.value(row) : row[column.value];
      return { text: cellText(raw), numeric: typeof raw === 'number' || typeof raw === 'bigint' };
    }),
  );
  const widths = columns.map((column, index) =>
    Math.max(column.header.length, ...cells.map((row) => row[index]!.text.length)),
  );
  const line = (texts: { text: string; right: boolean }[]): string =>
    texts
      .map(({ text, right }, index) => (right ? text.padStart(widths[index]!) : text.padEnd(widths[index]!)))
      .join('  ')
      .trimEnd();
  const header = line(columns.map((column) => ({ text: column.header.toUpperCase(), right: column.align === 'right' })));
  const body = cells.map((row) =>
    line(row.map((cell, index) => ({ text: cell.text, right: (columns[index]!.align ?? (cell.numeric ? 'right' : 'left')) === 'right' }))),
  );
  return [header, ...body].join('\n') + '\n';
}

/** `--json` output: one pretty-printed JSON document and a newline. */
export function formatJson(data: unknown): string {
  return JSON.stringify(data, null, 2) + '\n';
}

/**
 * Prints a command's result: a table of `rows` for humans, or `json` (default: the rows) with `--json`.
 */
export function printResult<Row>(
  io: CliIo,
  result: { rows: readonly Row[]; columns: readonly Column<Row>[]; json?: unknown },
  options: { json: boolean },
): void {
  io.stdout.write(options.json ? formatJson(result.json ?? result.rows) : formatTable(result.rows, result.columns));
}
