/**
 * The Tributary broker under measurement: started as a user would
 * (`node dist/host/cli/main.js broker --override k=v ...`) from a build snapshot, with a temp
 * `log.dirs`, on a free port, no HTTP listener and logs at warn. Ready = the first Metadata
 * answer (kafka-probe.ts), which is also W6's start-up time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BuildSnapshot } from './build-snapshot.js';
import { waitForMetadata } from './kafka-probe.js';
import { freePort, ServerProcess } from './server-process.js';

export const BENCH_HOST = '127.0.0.1';

export interface BrokerStartOptions {
  /** Reuse this data directory (W6 restarts); default a fresh temp one, removed by close(). */
  logDir?: string;
  /** Extra broker configs by Kafka name. */
  overrides?: Record<string, string | number>;
  /** Extra node flags (e.g. --cpu-prof). */
  nodeFlags?: string[];
  startTimeoutMs?: number;
}

export class BenchBroker {
  /** Spawn → first Metadata answer, ms. */
  readyMs = Number.NaN;

  private constructor(
    readonly process: ServerProcess,
    readonly port: number,
    readonly logDir: string,
    private readonly ownsLogDir: boolean,
  ) {}

  get bootstrap(): string {
    return `${BENCH_HOST}:${this.port}`;
  }

  /** Starts a broker and waits until it answers Metadata. @throws Error with the broker's output tail */
  static async start(snapshot: BuildSnapshot, options: BrokerStartOptions = {}): Promise<BenchBroker> {
    const ownsLogDir = options.logDir === undefined;
    const logDir = options.logDir ?? mkdtempSync(path.join(tmpdir(), 'tributary-bench-data-'));
    const port = await freePort();
    const overrides: Record<string, string | number> = {
      'log.dirs': logDir,
      listeners: `PLAINTEXT://${BENCH_HOST}:${port}`,
      'http.listeners': '',
      'log.level': 'warn',
      ...options.overrides,
    };
    const args = [...(options.nodeFlags ?? []), snapshot.cliPath, 'broker'];
    for (const [key, value] of Object.entries(overrides)) args.push('--override', `${key}=${value}`);
    const server = new ServerProcess('broker', process.execPath, args, { cwd: snapshot.root });
    const broker = new BenchBroker(server, port, logDir, ownsLogDir);
    try {
      const readyAt = await Promise.race([
        waitForMetadata(BENCH_HOST, port, { timeoutMs: options.startTimeoutMs ?? 60_000 }),
        server.failOnExit(),
      ]);
      broker.readyMs = readyAt - server.startedAtMs;
    } catch (error) {
      await broker.close();
      throw new Error(`${String(error)}\n--- broker output ---\n${server.outputTail()}`);
    }
    return broker;
  }

  /** Stops the process (SIGTERM, clean shutdown) and keeps the data directory. */
  async stop(): Promise<void> {
    await this.process.stop();
  }

  /** Stops and removes the data directory if this broker created it. */
  async close(): Promise<void> {
    await this.process.stop();
    if (this.ownsLogDir) rmSync(this.logDir, { recursive: true, force: true });
  }
}
