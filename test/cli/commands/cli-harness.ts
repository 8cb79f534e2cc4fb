/**
 * Helpers for CLI command tests: a recording CliIo, runCli with our handlers and canned stdin, and
 * the compiled binary run as a child process (asynchronously: the broker lives in this process).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClientCommandHandlers } from '../../../host/cli/commands/client-command-handlers.js';
import type { CliIo } from '../../../host/cli/output.js';
import { runCli } from '../../../host/cli/program.js';

export const MAIN_JS = resolve(dirname(fileURLToPath(import.meta.url)), '../../../dist/host/cli/main.js');

export function assertBuilt(): void {
  if (!existsSync(MAIN_JS)) throw new Error(`${MAIN_JS} is missing: run npm run build before these tests`);
}

export interface Recorded {
  out: string;
  err: string;
  codes: number[];
}

/** Runs `tributary ...args` in this process with the real client handlers. */
export async function runInProcess(args: string[], stdinLines: string[] = [], onInterrupt?: (stop: () => void) => void): Promise<Recorded> {
  return startInProcess(args, stdinLines, onInterrupt).done;
}

/** Starts `tributary ...args` in this process; `recorded` fills as it runs. */
export function startInProcess(args: string[], stdinLines: string[] = [], onInterrupt?: (stop: () => void) => void): { recorded: Recorded; done: Promise<Recorded> } {
  const recorded: Recorded = { out: '', err: '', codes: [] };
  const io: CliIo = {
    stdout: { write: (text: string) => { recorded.out += text; } },
    stderr: { write: (text: string) => { recorded.err += text; } },
    exit: (code: number) => { recorded.codes.push(code); },
  };
  const handlers = createClientCommandHandlers(io, {
    lines: async function* lines() { yield* stdinLines; },
    onInterrupt: (stop) => {
      onInterrupt?.(stop);
      return () => {};
    },
  });
  return { recorded, done: runCli(['node', 'tributary', ...args], { io, clientHandlers: handlers }).then(() => recorded) };
}

/** Runs the compiled CLI with `input` on stdin. */
export function runBinary(args: string[], input = '', timeoutMs = 30_000): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [MAIN_JS, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`tributary ${args.join(' ')} did not exit within ${timeoutMs} ms; stderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', (error) => { clearTimeout(timer); reject(error); });
    child.on('close', (status) => {
      clearTimeout(timer);
      resolvePromise({ status, stdout, stderr });
    });
    child.stdin.end(input);
  });
}
