/**
 * One broker node of the Jepsen-style checker as a real process
 * (`node <cli> broker --override k=v ...`), with the controls the faults need: SIGKILL, SIGTERM
 * (Kafka's controlled shutdown), SIGSTOP/SIGCONT, and a start on the same ports and data
 * directory. Output goes to a log file per node (appended across restarts), for diagnosis after a
 * failed check. Every process started here is SIGKILLed when the harness exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { waitForMetadata } from '../e2e/kafka-probe.js';

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export interface NodeProcessOptions {
  /** The CLI entry point (dist/host/cli/main.js of a build or a build snapshot). */
  readonly cliPath: string;
  /** Working directory (a snapshot's root), default the current one. */
  readonly cwd?: string;
  /** Every `--override` of the node, `log.dirs` and listeners included. */
  readonly overrides: Readonly<Record<string, string | number>>;
  /** Where the node's stdout and stderr are appended. */
  readonly logFile: string;
  /** The port the readiness probe (Metadata v1) asks, the node's own client listener. */
  readonly probePort: number;
}

/** A broker process that can be killed, paused, stopped and started again. */
export class NodeProcess {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private paused = false;
  /** Starts so far (1 after the first start). */
  starts = 0;

  constructor(readonly id: number, private readonly options: NodeProcessOptions) {}

  /** True between a start and the process's exit. */
  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** True while SIGSTOPped. */
  get isPaused(): boolean {
    return this.paused;
  }

  /**
   * Spawns the process and waits until it answers Metadata on its own client port.
   * @throws Error when it exits first or is not ready within `timeoutMs` (with its log's tail)
   */
  async start(timeoutMs = 120_000): Promise<void> {
    if (this.running) throw new Error(`node ${this.id} is already running`);
    const args = [this.options.cliPath, 'broker'];
    for (const [key, value] of Object.entries(this.options.overrides)) args.push('--override', `${key}=${value}`);
    const fd = openSync(this.options.logFile, 'a');
    const child = spawn(process.execPath, args, { cwd: this.options.cwd, stdio: ['ignore', fd, fd] });
    closeSync(fd);
    this.child = child;
    this.paused = false;
    this.starts++;
    live.add(child);
    let exitError: Error | undefined;
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        live.delete(child);
        exitError = new Error(`node ${this.id} exited (code ${code}, signal ${signal})`);
        resolve();
      });
    });
    const exitedEarly = this.exited.then(() => {
      throw new Error(`${exitError?.message} before it was ready:\n${this.logTail()}`);
    });
    exitedEarly.catch(() => undefined);
    try {
      await Promise.race([waitForMetadata('127.0.0.1', this.options.probePort, { timeoutMs, intervalMs: 100 }), exitedEarly]);
    } catch (error) {
      if (this.running) await this.kill9();
      throw error instanceof Error && error.message.includes('log tail') ? error : new Error(`${String(error)}\n${this.logTail()}`);
    }
  }

  /** SIGKILL; resolves once exited (a paused process dies too). */
  async kill9(): Promise<void> {
    if (!this.running) return;
    this.child!.kill('SIGKILL');
    await this.exited;
    this.paused = false;
  }

  /** SIGTERM (controlled shutdown, clean stop); SIGKILL after `graceMs`. */
  async stop(graceMs = 30_000): Promise<void> {
    if (!this.running) return;
    if (this.paused) this.resume();
    this.child!.kill('SIGTERM');
    const timer = setTimeout(() => this.child?.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  /** SIGSTOP: the process keeps its sockets but stops reading and answering. */
  pause(): void {
    if (!this.running || this.paused) return;
    this.child!.kill('SIGSTOP');
    this.paused = true;
  }

  /** SIGCONT after {@link pause}. */
  resume(): void {
    if (!this.running || !this.paused) return;
    this.child!.kill('SIGCONT');
    this.paused = false;
  }

  /** The last `lines` lines of the node's log file. */
  logTail(lines = 40): string {
    try {
      const text = readFileSync(this.options.logFile, 'utf8');
      return `--- node ${this.id} log tail (${this.options.logFile}) ---\n${text.split('\n').slice(-lines).join('\n')}`;
    } catch {
      return `--- node ${this.id}: no log at ${this.options.logFile} ---`;
    }
  }
}
