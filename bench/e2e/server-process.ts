/**
 * A server under measurement run as a child process (the broker, nats-server, redis-server):
 * spawn, keep the tail of its output for error messages, read its CPU and memory from /proc,
 * stop it with SIGTERM (SIGKILL after a grace period). Every process started here is killed
 * when the harness exits, even on a crash.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { readProcStats, type ProcStats } from './proc-stats.js';

const OUTPUT_TAIL_LINES = 40;
const live = new Set<ChildProcess>();

process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** A free TCP port on 127.0.0.1 (bind port 0, read it, close). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export class ServerProcess {
  /** performance.now() at spawn, ms. */
  readonly startedAtMs: number;
  private readonly child: ChildProcess;
  private readonly tail: string[] = [];
  private exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private exitCode: number | null | undefined;

  /** Spawns `file args` with stdout/stderr captured (each line also to `options.onLine`). */
  constructor(readonly name: string, file: string, args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; onLine?: (line: string) => void } = {}) {
    this.startedAtMs = performance.now();
    this.child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: options.cwd, env: options.env ?? process.env });
    live.add(this.child);
    for (const stream of [this.child.stdout!, this.child.stderr!]) {
      stream.setEncoding('utf8');
      let partial = '';
      stream.on('data', (chunk: string) => {
        const lines = (partial + chunk).split('\n');
        partial = lines.pop()!;
        for (const line of lines) {
          if (line === '') continue;
          this.tail.push(line);
          options.onLine?.(line);
        }
        if (this.tail.length > OUTPUT_TAIL_LINES) this.tail.splice(0, this.tail.length - OUTPUT_TAIL_LINES);
      });
      stream.on('end', () => {
        if (partial === '') return;
        this.tail.push(partial);
        options.onLine?.(partial);
      });
    }
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        live.delete(this.child);
        this.exitCode = code;
        resolve({ code, signal });
      });
    });
    this.child.once('error', (error) => this.tail.push(`spawn error: ${error.message}`));
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get running(): boolean {
    return this.exitCode === undefined && this.child.pid !== undefined;
  }

  /** CPU seconds and resident memory now (NaN once exited). */
  stats(): ProcStats {
    return readProcStats(this.pid);
  }

  /** The last lines the process printed. */
  outputTail(): string {
    return this.tail.join('\n');
  }

  /** Rejects with the output tail as soon as the process exits (for racing against readiness). */
  failOnExit(): Promise<never> {
    return this.exited.then(({ code, signal }) => {
      throw new Error(`${this.name} exited (code ${code}, signal ${signal}) before it was ready:\n${this.outputTail()}`);
    });
  }

  /**
   * SIGTERM, then SIGKILL after `graceMs`; resolves once exited, saying whether the kill was
   * needed (an unclean stop: the next start recovers) and how long the stop took.
   */
  async stop(graceMs = 20_000): Promise<{ forced: boolean; elapsedMs: number }> {
    if (!this.running) return { forced: false, elapsedMs: 0 };
    const startedAtMs = performance.now();
    let forced = false;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => {
      forced = true;
      this.child.kill('SIGKILL');
    }, graceMs);
    await this.exited;
    clearTimeout(timer);
    return { forced, elapsedMs: performance.now() - startedAtMs };
  }
}
