/**
 * Child-process helpers for the compat suite: every real client runs as its own
 * process with a hard timeout, and every failure message carries the command,
 * exit status, stdout and stderr so a broker bug can be diagnosed from the test
 * output alone.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Debian's Python with confluent_kafka and kafka-python (plain `python3` on PATH is a different one). */
export const PYTHON = '/usr/bin/python3';
/** Debian's kcat 1.7.1 (librdkafka 2.0.2). */
export const KCAT = '/usr/bin/kcat';

/** Directory of the Python client programs. */
export const PY_DIR = fileURLToPath(new URL('./py/', import.meta.url));

export interface RunOptions {
  /** Hard timeout in ms; the process is SIGKILLed when it expires (default 30 000). */
  timeoutMs?: number;
  /** Written to stdin, which is then closed. */
  input?: string | Buffer;
  env?: Record<string, string>;
}

export interface RunResult {
  command: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

const live = new Set<ChildProcess>();

/** Linux refuses a single argv element over 128 KiB (MAX_ARG_STRLEN); longer JSON goes through a file. */
const MAX_INLINE_JSON = 100_000;
let argsDir: string | undefined;

/** The argv element for a Python program's JSON argument: the JSON itself, or `@file` when it is long. */
function pythonArg(args: unknown): string {
  const json = JSON.stringify(args);
  if (json.length <= MAX_INLINE_JSON) return json;
  argsDir ??= mkdtempSync(join(tmpdir(), 'tributary-compat-args-'));
  const file = join(argsDir, `${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, json);
  return `@${file}`;
}

/** SIGKILLs every process started by this module that is still running. For `afterAll`. */
export function killAllClientProcesses(): void {
  for (const child of live) child.kill('SIGKILL');
  live.clear();
  if (argsDir !== undefined) rmSync(argsDir, { recursive: true, force: true });
  argsDir = undefined;
}

process.once('exit', killAllClientProcesses);

/** Quotes argv for failure messages (not for a shell). */
export function describeCommand(file: string, args: readonly string[]): string {
  return [file, ...args].map((part) => (/^[\w@%+=:,./-]+$/.test(part) ? part : `'${part.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/** Formats a finished run for an assertion message. */
export function formatRun(result: RunResult): string {
  return [
    `command: ${result.command}`,
    `exit: code ${result.code}, signal ${result.signal}${result.timedOut ? ' (TIMED OUT, killed)' : ''}`,
    '--- stdout ---',
    result.stdout.length > 20_000 ? `${result.stdout.slice(0, 20_000)}\n...[truncated]` : result.stdout,
    '--- stderr ---',
    result.stderr.length > 20_000 ? `...[truncated]\n${result.stderr.slice(-20_000)}` : result.stderr,
  ].join('\n');
}

/** Runs a process to completion (or timeout). Never rejects on a non-zero exit. */
export function run(file: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const command = describeCommand(file, args);
  return new Promise((resolve) => {
    const child = spawn(file, args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...options.env },
    });
    live.add(child);
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.stdin.on('error', () => { /* the process may exit before reading its input */ });
    child.once('error', (error) => {
      stderr.push(Buffer.from(`[spawn error] ${error.message}\n`));
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      live.delete(child);
      resolve({
        command,
        code,
        signal,
        timedOut,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      });
    });
    if (options.input !== undefined) child.stdin.end(options.input);
    else child.stdin.end();
  });
}

/** Runs a process and throws (with the full output) unless it exits 0 in time. */
export async function runOk(file: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  const result = await run(file, args, options);
  if (result.code !== 0 || result.timedOut) {
    throw new Error(`process failed\n${formatRun(result)}`);
  }
  return result;
}

/**
 * Runs `test/compat/py/<script>` with `/usr/bin/python3`, passing `args` as one
 * JSON argv element, and parses the last non-empty stdout line as the JSON result.
 *
 * @throws Error with stdout/stderr on a non-zero exit, timeout or unparsable output.
 */
export async function runPython<T>(script: string, args: unknown, options: RunOptions = {}): Promise<T> {
  const result = await runOk(PYTHON, [`${PY_DIR}${script}`, pythonArg(args)], {
    ...options,
    env: { PYTHONDONTWRITEBYTECODE: '1', ...options.env },
  });
  const lines = result.stdout.split('\n').filter((line) => line.trim() !== '');
  const last = lines.at(-1);
  if (last === undefined) throw new Error(`no JSON result on stdout\n${formatRun(result)}`);
  try {
    return JSON.parse(last) as T;
  } catch {
    throw new Error(`last stdout line is not JSON\n${formatRun(result)}`);
  }
}

/**
 * A long-running child that prints one JSON object per stdout line and reads
 * commands (one per line) on stdin. Used for consumer-group members whose
 * assignments change while the test watches.
 */
export class JsonLineProcess {
  readonly events: Record<string, unknown>[] = [];
  readonly stderrLines: string[] = [];
  readonly otherStdout: string[] = [];
  readonly command: string;
  private readonly child: ChildProcess;
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private readonly exitPromise: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly waiters = new Set<() => void>();
  private readonly hardTimer: NodeJS.Timeout;

  /** @param hardTimeoutMs the process is SIGKILLed after this long whatever happens (default 120 000). */
  constructor(file: string, args: readonly string[], hardTimeoutMs = 120_000) {
    this.command = describeCommand(file, args);
    this.child = spawn(file, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } });
    live.add(this.child);
    this.hardTimer = setTimeout(() => this.child.kill('SIGKILL'), hardTimeoutMs);
    this.lines(this.child.stdout, (line) => {
      if (line.startsWith('{')) {
        try {
          this.events.push(JSON.parse(line) as Record<string, unknown>);
        } catch {
          this.otherStdout.push(line);
        }
      } else if (line.trim() !== '') {
        this.otherStdout.push(line);
      }
      this.notify();
    });
    this.lines(this.child.stderr, (line) => this.stderrLines.push(line));
    this.child.stdin?.on('error', () => { /* exited already */ });
    this.exitPromise = new Promise((resolve) => {
      this.child.once('close', (code, signal) => {
        clearTimeout(this.hardTimer);
        live.delete(this.child);
        this.exit = { code, signal };
        this.notify();
        resolve(this.exit);
      });
    });
  }

  /** Starts `test/compat/py/<script>` with one JSON argv element. */
  static python(script: string, args: unknown, hardTimeoutMs?: number): JsonLineProcess {
    return new JsonLineProcess(PYTHON, [`${PY_DIR}${script}`, pythonArg(args)], hardTimeoutMs);
  }

  private lines(stream: NodeJS.ReadableStream | null, onLine: (line: string) => void): void {
    if (stream === null) return;
    let partial = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) onLine(line);
    });
    stream.on('end', () => {
      if (partial !== '') onLine(partial);
    });
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  /** Writes one command line to the child's stdin. */
  send(command: string): void {
    this.child.stdin?.write(`${command}\n`);
  }

  /** Events with the given `event` field. */
  eventsOf(kind: string): Record<string, unknown>[] {
    return this.events.filter((event) => event.event === kind);
  }

  /**
   * Resolves with the first event (in arrival order, including past ones) matching `predicate`.
   * @throws Error (with the event log and stderr) on timeout or if the process exits first.
   */
  async waitFor(description: string, predicate: (event: Record<string, unknown>) => boolean, timeoutMs = 30_000):
    Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        const found = this.events.find(predicate);
        if (found !== undefined) {
          cleanup();
          resolve(found);
        } else if (this.exit !== undefined) {
          cleanup();
          reject(new Error(`process exited (code ${this.exit.code}, signal ${this.exit.signal}) before: ${description}\n${this.describe()}`));
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for: ${description}\n${this.describe()}`));
      }, timeoutMs);
      const cleanup = (): void => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }

  /** Waits for exit (SIGKILL after `timeoutMs`). */
  async waitForExit(timeoutMs = 30_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    const result = await this.exitPromise;
    clearTimeout(timer);
    return result;
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }

  /** Command, event log and stderr, for failure messages. */
  describe(): string {
    return [
      `command: ${this.command}`,
      `exit: ${this.exit === undefined ? 'still running' : `code ${this.exit.code}, signal ${this.exit.signal}`}`,
      '--- events ---',
      ...this.events.slice(-200).map((event) => JSON.stringify(event)),
      ...(this.otherStdout.length > 0 ? ['--- other stdout ---', ...this.otherStdout.slice(-100)] : []),
      '--- stderr ---',
      ...this.stderrLines.slice(-200),
    ].join('\n');
  }
}

/** Random suffix for topic and group names so files and reruns never collide. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Retries `attempt` until it returns without throwing or `timeoutMs` passes
 * (then rethrows the last error). For eventually-true observations such as
 * "the group has 2 members".
 */
export async function eventually<T>(attempt: () => Promise<T>, timeoutMs = 20_000, intervalMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() >= deadline) throw error;
    }
    await sleep(intervalMs);
  }
}
