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
  /** Extra broker configs by Kafka name (`listeners` here must name `port`). */
  overrides?: Record<string, string | number>;
  /** The client listener's port; default a free one. */
  port?: number;
  /** Also listen for HTTP (and so the WebSocket gateway at /kafka) on a free port. */
  http?: boolean;
  /** Extra node flags (e.g. --cpu-prof). */
  nodeFlags?: string[];
  startTimeoutMs?: number;
  /** Called with each line the broker prints (its JSON log). */
  onLine?: (line: string) => void;
}

export class BenchBroker {
  /** Spawn → first Metadata answer, ms. */
  readyMs = Number.NaN;
  /** Port of the HTTP listener (WebSocket gateway), when asked for. */
  httpPort: number | undefined;

  private constructor(
    readonly process: ServerProcess,
    readonly port: number,
    readonly logDir: string,
    private readonly ownsLogDir: boolean,
  ) {}

  get bootstrap(): string {
    return `${BENCH_HOST}:${this.port}`;
  }

  /** The WebSocket gateway's URL (start with `http: true`). */
  get gatewayUrl(): string | undefined {
    return this.httpPort === undefined ? undefined : `ws://${BENCH_HOST}:${this.httpPort}/kafka`;
  }

  /** Starts a broker and waits until it answers Metadata. @throws Error with the broker's output tail */
  static async start(snapshot: BuildSnapshot, options: BrokerStartOptions = {}): Promise<BenchBroker> {
    const ownsLogDir = options.logDir === undefined;
    const logDir = options.logDir ?? mkdtempSync(path.join(tmpdir(), 'tributary-bench-data-'));
    const port = options.port ?? (await freePort());
    const httpPort = options.http === true ? await freePort() : undefined;
    const overrides: Record<string, string | number> = {
      'log.dirs': logDir,
      listeners: `PLAINTEXT://${BENCH_HOST}:${port}`,
      'http.listeners': httpPort === undefined ? '' : `${BENCH_HOST}:${httpPort}`,
      'log.level': 'warn',
      ...options.overrides,
    };
    const args = [...(options.nodeFlags ?? []), snapshot.cliPath, 'broker'];
    for (const [key, value] of Object.entries(overrides)) args.push('--override', `${key}=${value}`);
    const server = new ServerProcess('broker', process.execPath, args, { cwd: snapshot.root, ...(options.onLine ? { onLine: options.onLine } : {}) });
    const broker = new BenchBroker(server, port, logDir, ownsLogDir);
    broker.httpPort = httpPort;
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

  /**
   * Stops the process (SIGTERM, clean shutdown; SIGKILL after `graceMs`) and keeps the data
   * directory. @returns whether the kill was needed and how long the stop took
   */
  stop(graceMs?: number): Promise<{ forced: boolean; elapsedMs: number }> {
    return this.process.stop(graceMs);
  }

  /** Stops and removes the data directory if this broker created it. */
  async close(): Promise<void> {
    await this.process.stop();
    if (this.ownsLogDir) rmSync(this.logDir, { recursive: true, force: true });
  }
}
