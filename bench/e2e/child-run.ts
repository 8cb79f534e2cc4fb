/**
 * Runs a load generator (kcat or a load-main.js mode) as a child process and waits for it, with
 * a timeout; the harness's own event loop stays idle meanwhile.
 */
import { spawn, type SpawnOptions } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadResult } from './load-common.js';

export interface ChildOutcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** spawn → exit, ms. */
  elapsedMs: number;
  stdout: string;
  stderr: string;
}

const OUTPUT_LIMIT_CHARS = 64 * 1024;

export interface RunChildOptions {
  timeoutMs: number;
  /** Called for every stdout chunk (e.g. to count records) instead of keeping it. */
  onStdout?: (chunk: Buffer) => void;
  /** Called for every stderr chunk (kept as well). */
  onStderr?: (text: string) => void;
  /** Aborting sends SIGTERM (e.g. consumers that run until the harness has seen every record). */
  abort?: AbortSignal;
  env?: NodeJS.ProcessEnv;
}

/** Spawns `file args`; resolves when it exits (or is killed at the timeout). */
export function runChild(file: string, args: readonly string[], options: RunChildOptions): Promise<ChildOutcome> {
  return new Promise((resolve, reject) => {
    const spawnOptions: SpawnOptions = { stdio: ['ignore', 'pipe', 'pipe'], env: options.env ?? process.env };
    const startedAtMs = performance.now();
    const child = spawn(file, args, spawnOptions);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      if (options.onStdout) options.onStdout(chunk);
      else if (stdout.length < OUTPUT_LIMIT_CHARS) stdout += chunk.toString('utf8');
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      options.onStderr?.(text);
      if (stderr.length < OUTPUT_LIMIT_CHARS) stderr += text;
    });
    options.abort?.addEventListener('abort', () => child.kill('SIGTERM'), { once: true });
    const timer = setTimeout(() => {
      stderr += `\n[bench] killed after ${options.timeoutMs} ms`;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      const elapsedMs = performance.now() - startedAtMs;
      // 'exit' can precede the last 'data' events: wait for the streams to close.
      let open = 2;
      const done = (): void => {
        if (--open === 0) resolve({ code, signal, elapsedMs, stdout, stderr });
      };
      if (child.stdout!.closed) done(); else child.stdout!.once('close', done);
      if (child.stderr!.closed) done(); else child.stderr!.once('close', done);
    });
  });
}

/** dist/bench/e2e/load-main.js, next to this file. */
const LOAD_MAIN = path.join(path.dirname(fileURLToPath(import.meta.url)), 'load-main.js');

/**
 * Runs one load-main.js mode and returns its LoadResult.
 * @throws Error with the child's stderr when it fails or prints no result
 */
export async function runLoad(mode: string, spec: object, timeoutMs: number): Promise<LoadResult> {
  const outcome = await runChild(process.execPath, [LOAD_MAIN, mode, JSON.stringify(spec)], { timeoutMs });
  const last = outcome.stdout.trim().split('\n').pop() ?? '';
  if (outcome.code !== 0 || !last.startsWith('{')) {
    throw new Error(`load generator ${mode} failed (code ${outcome.code}, signal ${outcome.signal}):\n${outcome.stderr.slice(-4000)}`);
  }
  return JSON.parse(last) as LoadResult;
}

/** Spawns a long-lived load-main.js mode (e.g. tcp-sink) and resolves with its first stdout JSON line and a kill function. */
export function startLoadServer(mode: string, spec: object): Promise<{ info: Record<string, unknown>; done: Promise<void>; kill: () => void }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [LOAD_MAIN, mode, JSON.stringify(spec)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let buffered = '';
    let resolved = false;
    const done = new Promise<void>((resolveDone) => child.once('exit', () => resolveDone()));
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      const newline = buffered.indexOf('\n');
      if (!resolved && newline >= 0) {
        resolved = true;
        resolve({ info: JSON.parse(buffered.slice(0, newline)) as Record<string, unknown>, done, kill: () => child.kill('SIGKILL') });
      }
    });
    child.once('exit', (code) => {
      if (!resolved) reject(new Error(`${mode} exited with code ${code} before it was ready`));
    });
  });
}
