/**
 * Starts the Tributary broker as a child process, exactly as a user would
 * (`node dist/host/cli/main.js broker --override k=v ...`), for integration
 * and compat tests.
 *
 * - A free port is found by binding 127.0.0.1:0, reading the port and closing
 *   the socket; the broker is then told to listen on it. (A small race with
 *   other processes exists; if the broker's output mentions EADDRINUSE on the
 *   first start, a new port is picked once.)
 * - `log.dirs` defaults to a fresh temp directory under `os.tmpdir()`. It is kept
 *   across `stop()` / `restart()` and removed by `close()` (only if the helper
 *   created it).
 * - Ready means: a TCP connection succeeds AND an ApiVersions v0 request gets a
 *   well-formed answer with error code 0 (see {@link probeApiVersions}).
 * - With TRIBUTARY_BROKER_LOG_DUMP=<dir> set, `close()` writes each broker's captured stdout and
 *   stderr to `<dir>/broker-<port>-<time>.log`, to read warnings that clients tolerated.
 * - Every started process is kept in a registry; {@link stopAllBrokerProcesses}
 *   (call it from `afterAll`) kills leftovers, and a process 'exit' hook
 *   SIGKILLs anything still running if the test worker dies first.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Absolute path of the built CLI entry point (`npm run build` creates it). The environment
 * variable TRIBUTARY_BROKER_CLI points the helper at another build (e.g. a snapshot copy of
 * dist/ that concurrent rebuilds of the shared tree cannot disturb).
 */
export const BROKER_CLI_PATH = process.env.TRIBUTARY_BROKER_CLI
  ?? fileURLToPath(new URL('../../dist/host/cli/main.js', import.meta.url));

/** Kafka config values accepted by `--override key=value`. */
export type OverrideValue = string | number | boolean;

export interface BrokerProcessOptions {
  /**
   * Extra broker configs by Kafka name, e.g. `{ 'num.partitions': 3 }`. The helper sets `listeners`,
   * `log.dirs` and `http.listeners` (empty: gateway off) unless given here.
   */
  overrides?: Record<string, OverrideValue>;
  /**
   * Listen for clients on this port (the PLAINTEXT listener and the readiness probe) instead of a
   * fresh free one; a cluster launcher that must write every node's ports into every node's
   * `controller.quorum.voters` picks them first. No retry on EADDRINUSE then.
   */
  port?: number;
  /** Use this `log.dirs` directory instead of a fresh temp one (it is then never deleted by the helper). */
  logDir?: string;
  /** How long to wait for the broker to become ready, in ms (default 30 000). */
  startTimeoutMs?: number;
  /** How long `stop()` waits for exit before escalating to SIGKILL, in ms (default 20 000). */
  stopTimeoutMs?: number;
  /**
   * Replaces the command that is spawned (default: `process.execPath BROKER_CLI_PATH broker`).
   * The `--override` arguments are appended. Meant for testing this helper.
   */
  command?: { file: string; args: string[] };
  /** Extra environment variables for the broker process. */
  env?: Record<string, string>;
}

/** How a broker process ended. */
export interface BrokerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** One ApiVersions v0 entry: api key with its min and max version. */
export interface ApiVersionRange {
  apiKey: number;
  minVersion: number;
  maxVersion: number;
}

export interface BrokerProcess {
  readonly host: string;
  readonly port: number;
  /** `host:port`, ready for `bootstrap.servers` / `-b`. */
  readonly bootstrap: string;
  /** The `log.dirs` directory (survives stop/restart). */
  readonly logDir: string;
  /** Pid of the current process (changes on restart). */
  readonly pid: number | undefined;
  /** True while the current process has not exited. */
  readonly running: boolean;
  /** Every stdout line of every run of this broker (pino JSON lines), oldest first. */
  readonly stdoutLines: readonly string[];
  /** Every stderr line of every run of this broker. */
  readonly stderrLines: readonly string[];
  /** The ranges from the last successful readiness probe's ApiVersions v0 answer. */
  readonly apiVersions: readonly ApiVersionRange[];
  /** stdout lines that parse as JSON objects (pino log records). */
  logRecords(): Record<string, unknown>[];
  /** The last `n` lines of stdout and stderr, for failure messages. */
  outputTail(n?: number): string;
  /** Sends `signal` and waits for exit (SIGKILL after `stopTimeoutMs`). Keeps logDir. No-op if not running. */
  stop(signal?: NodeJS.Signals): Promise<BrokerExit>;
  /** SIGKILL (kill -9) and wait for exit. Keeps logDir. */
  kill9(): Promise<BrokerExit>;
  /** Stops (SIGTERM) if running, then starts again on the same port and logDir and waits until ready. */
  restart(options?: { overrides?: Record<string, OverrideValue> }): Promise<void>;
  /** Stops (SIGTERM) if running and removes logDir if the helper created it. Idempotent. */
  close(): Promise<void>;
}

const HOST = '127.0.0.1';
const MAX_CAPTURED_LINES = 50_000;
const registry = new Set<BrokerProcessImpl>();

/**
 * Starts a broker child process and resolves once it answers ApiVersions v0.
 *
 * @throws Error when `dist/host/cli/main.js` is missing, when the process exits
 *   before it is ready, or when it is not ready within `startTimeoutMs`. The
 *   message includes the broker's captured stdout/stderr tail.
 */
export async function startBrokerProcess(options: BrokerProcessOptions = {}): Promise<BrokerProcess> {
  if (options.command === undefined && !existsSync(BROKER_CLI_PATH)) {
    throw new Error(`${BROKER_CLI_PATH} does not exist: run \`npm run build\` first`);
  }
  const ownsLogDir = options.logDir === undefined;
  const logDir = options.logDir ?? mkdtempSync(join(tmpdir(), 'tributary-broker-'));
  let port = options.port ?? await findFreePort();
  const broker = new BrokerProcessImpl(options, logDir, ownsLogDir, port);
  registry.add(broker);
  try {
    await broker.start();
  } catch (error) {
    if (options.port !== undefined || !/EADDRINUSE/.test(broker.outputTail(200))) {
      await broker.close();
      throw error;
    }
    // Someone else grabbed the port between our probe bind and the broker's bind.
    port = await findFreePort();
    broker.port = port;
    try {
      await broker.start();
    } catch (retryError) {
      await broker.close();
      throw retryError;
    }
  }
  return broker;
}

/** Stops (SIGKILL) every broker started by this module that is still running and removes its temp dir. For `afterAll`. */
export async function stopAllBrokerProcesses(): Promise<void> {
  const all = [...registry];
  await Promise.all(all.map(async (broker) => {
    if (broker.running) await broker.kill9();
    await broker.close();
  }));
}

process.once('exit', () => {
  for (const broker of registry) broker.killNow();
});

/** Resolves a TCP port that was free on 127.0.0.1 a moment ago. */
export async function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, HOST, () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close();
        reject(new Error('could not read the bound port'));
        return;
      }
      const { port } = address;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Builds an ApiVersions v0 request frame by hand (Kafka protocol, request header v1):
 *
 * ```
 * int32  size            = 10 + clientId bytes (everything after this field)
 * int16  api_key         = 18 (ApiVersions)
 * int16  api_version     = 0
 * int32  correlation_id
 * int16  client_id length, then client_id bytes (UTF-8)
 *        (ApiVersions v0 has an empty body)
 * ```
 *
 * e.g. correlation id 7, client id "probe":
 * `00 00 00 0f | 00 12 | 00 00 | 00 00 00 07 | 00 05 70 72 6f 62 65`.
 */
export function encodeApiVersionsV0Request(correlationId: number, clientId: string): Buffer {
  const client = Buffer.from(clientId, 'utf8');
  const frame = Buffer.alloc(4 + 2 + 2 + 4 + 2 + client.length);
  let at = 0;
  at = frame.writeInt32BE(frame.length - 4, at);
  at = frame.writeInt16BE(18, at);
  at = frame.writeInt16BE(0, at);
  at = frame.writeInt32BE(correlationId, at);
  at = frame.writeInt16BE(client.length, at);
  client.copy(frame, at);
  return frame;
}

/**
 * Parses an ApiVersions v0 response frame (response header v0):
 *
 * ```
 * int32 size | int32 correlation_id | int16 error_code |
 * int32 count | count × (int16 api_key, int16 min_version, int16 max_version)
 * ```
 *
 * @returns undefined while `frame` is still incomplete.
 * @throws Error on a malformed frame (size too small, trailing/short array).
 */
export function decodeApiVersionsV0Response(frame: Buffer):
  { correlationId: number; errorCode: number; apiVersions: ApiVersionRange[] } | undefined {
  if (frame.length < 4) return undefined;
  const size = frame.readInt32BE(0);
  if (size < 10) throw new Error(`ApiVersions v0 response size ${size} is too small`);
  if (frame.length < 4 + size) return undefined;
  const correlationId = frame.readInt32BE(4);
  const errorCode = frame.readInt16BE(8);
  const count = frame.readInt32BE(10);
  if (count < 0 || 14 + count * 6 !== 4 + size) {
    throw new Error(`ApiVersions v0 response: ${count} entries do not fit a ${size}-byte frame`);
  }
  const apiVersions: ApiVersionRange[] = [];
  for (let i = 0; i < count; i++) {
    const at = 14 + i * 6;
    apiVersions.push({
      apiKey: frame.readInt16BE(at),
      minVersion: frame.readInt16BE(at + 2),
      maxVersion: frame.readInt16BE(at + 4),
    });
  }
  return { correlationId, errorCode, apiVersions };
}

/**
 * Connects, sends one ApiVersions v0 request and waits for its answer.
 *
 * @throws Error on connect failure, timeout (`timeoutMs`), a closed connection,
 *   a mismatching correlation id or a non-zero error code.
 */
export async function probeApiVersions(host: string, port: number, timeoutMs: number): Promise<ApiVersionRange[]> {
  const correlationId = 0x7e57 + Math.floor(Math.random() * 1000);
  return new Promise((resolve, reject) => {
    const socket = new Socket();
    let received = Buffer.alloc(0);
    let settled = false;
    const finish = (error: Error | undefined, value?: ApiVersionRange[]): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(value ?? []);
    };
    const timer = setTimeout(() => finish(new Error(`no ApiVersions answer within ${timeoutMs} ms`)), timeoutMs);
    socket.once('error', (error) => finish(error));
    socket.once('close', () => finish(new Error('connection closed before the ApiVersions answer')));
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      try {
        const answer = decodeApiVersionsV0Response(received);
        if (answer === undefined) return;
        if (answer.correlationId !== correlationId) {
          finish(new Error(`ApiVersions answer has correlation id ${answer.correlationId}, sent ${correlationId}`));
        } else if (answer.errorCode !== 0) {
          finish(new Error(`ApiVersions answered error code ${answer.errorCode}`));
        } else {
          finish(undefined, answer.apiVersions);
        }
      } catch (error) {
        finish(error as Error);
      }
    });
    socket.connect(port, host, () => {
      socket.write(encodeApiVersionsV0Request(correlationId, 'tributary-test-probe'));
    });
  });
}

class BrokerProcessImpl implements BrokerProcess {
  readonly host = HOST;
  readonly stdoutLines: string[] = [];
  readonly stderrLines: string[] = [];
  apiVersions: ApiVersionRange[] = [];
  private child: ChildProcess | undefined;
  private exitPromise: Promise<BrokerExit> | undefined;
  private exited = true;
  private closed = false;

  constructor(
    private readonly options: BrokerProcessOptions,
    readonly logDir: string,
    private readonly ownsLogDir: boolean,
    public port: number,
  ) {}

  get bootstrap(): string {
    return `${this.host}:${this.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== undefined && !this.exited;
  }

  logRecords(): Record<string, unknown>[] {
    const records: Record<string, unknown>[] = [];
    for (const line of this.stdoutLines) {
      if (!line.startsWith('{')) continue;
      try {
        const value: unknown = JSON.parse(line);
        if (typeof value === 'object' && value !== null) records.push(value as Record<string, unknown>);
      } catch {
        // not every line has to be JSON (e.g. a crash trace)
      }
    }
    return records;
  }

  outputTail(n = 60): string {
    return [
      `--- broker stdout (last ${n} lines) ---`,
      ...this.stdoutLines.slice(-n),
      `--- broker stderr (last ${n} lines) ---`,
      ...this.stderrLines.slice(-n),
    ].join('\n');
  }

  async start(overrides?: Record<string, OverrideValue>): Promise<void> {
    if (this.closed) throw new Error('broker process helper already closed');
    if (this.running) throw new Error('broker already running');
    const allOverrides: Record<string, OverrideValue> = {
      listeners: `PLAINTEXT://${this.host}:${this.port}`,
      'log.dirs': this.logDir,
      // The HTTP/WebSocket gateway defaults to 127.0.0.1:8080, which concurrent test brokers
      // would all share (SO_REUSEPORT); tests that want it set e.g. 'http.listeners': '127.0.0.1:<port>'.
      'http.listeners': '',
      ...this.options.overrides,
      ...overrides,
    };
    const overrideArgs = Object.entries(allOverrides).flatMap(([key, value]) => ['--override', `${key}=${String(value)}`]);
    const file = this.options.command?.file ?? process.execPath;
    const baseArgs = this.options.command?.args ?? [BROKER_CLI_PATH, 'broker'];
    const child = spawn(file, [...baseArgs, ...overrideArgs], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...this.options.env },
    });
    this.child = child;
    this.exited = false;
    this.captureLines(child.stdout, this.stdoutLines);
    this.captureLines(child.stderr, this.stderrLines);
    this.exitPromise = new Promise<BrokerExit>((resolve) => {
      child.once('error', (error) => {
        this.stderrLines.push(`[spawn error] ${error.message}`);
        this.exited = true;
        resolve({ code: null, signal: null });
      });
      child.once('exit', (code, signal) => {
        this.exited = true;
        resolve({ code, signal });
      });
    });
    await this.waitUntilReady(this.exitPromise);
  }

  private captureLines(stream: NodeJS.ReadableStream | null, into: string[]): void {
    if (stream === null) return;
    let partial = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) {
        if (into.length < MAX_CAPTURED_LINES) into.push(line);
      }
    });
    stream.on('end', () => {
      if (partial !== '' && into.length < MAX_CAPTURED_LINES) into.push(partial);
      partial = '';
    });
  }

  private async waitUntilReady(exitPromise: Promise<BrokerExit>): Promise<void> {
    const timeoutMs = this.options.startTimeoutMs ?? 30_000;
    const deadline = Date.now() + timeoutMs;
    let exit: BrokerExit | undefined;
    void exitPromise.then((value) => { exit = value; });
    let lastError: unknown;
    const command = `broker (pid ${this.pid}, ${this.bootstrap}, log.dirs=${this.logDir})`;
    while (Date.now() < deadline) {
      if (exit !== undefined) {
        // let the stdio streams drain so the error shows the last words
        await sleep(100);
        throw new Error(`${command} exited before it was ready (code ${exit.code}, signal ${exit.signal})\n${this.outputTail()}`);
      }
      try {
        this.apiVersions = await probeApiVersions(this.host, this.port, Math.min(2_000, Math.max(100, deadline - Date.now())));
        return;
      } catch (error) {
        lastError = error;
      }
      await sleep(100);
    }
    const reason = lastError instanceof Error ? lastError.message : String(lastError);
    await this.kill9();
    throw new Error(`${command} was not ready within ${timeoutMs} ms (last probe: ${reason})\n${this.outputTail()}`);
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<BrokerExit> {
    const child = this.child;
    const exitPromise = this.exitPromise;
    if (child === undefined || exitPromise === undefined) return { code: null, signal: null };
    if (this.exited) return exitPromise;
    child.kill(signal);
    const timeoutMs = this.options.stopTimeoutMs ?? 20_000;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => { timer = setTimeout(() => resolve('timeout'), timeoutMs); });
    const result = await Promise.race([exitPromise, timedOut]);
    clearTimeout(timer);
    if (result === 'timeout') {
      this.stderrLines.push(`[broker-process] no exit ${timeoutMs} ms after ${signal}; sending SIGKILL`);
      child.kill('SIGKILL');
      return exitPromise;
    }
    return result;
  }

  kill9(): Promise<BrokerExit> {
    return this.stop('SIGKILL');
  }

  async restart(options: { overrides?: Record<string, OverrideValue> } = {}): Promise<void> {
    if (this.running) await this.stop('SIGTERM');
    await this.start(options.overrides);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    if (this.running) await this.stop('SIGTERM');
    this.closed = true;
    registry.delete(this);
    const dumpDir = process.env.TRIBUTARY_BROKER_LOG_DUMP;
    if (dumpDir !== undefined && dumpDir !== '') {
      mkdirSync(dumpDir, { recursive: true });
      writeFileSync(join(dumpDir, `broker-${this.port}-${Date.now()}.log`),
        [...this.stdoutLines, '--- stderr ---', ...this.stderrLines].join('\n'));
    }
    if (this.ownsLogDir) rmSync(this.logDir, { recursive: true, force: true });
  }

  /** Synchronous last resort for process exit. */
  killNow(): void {
    if (this.running) this.child?.kill('SIGKILL');
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
