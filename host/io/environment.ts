/**
 * The one seam between Tributary and the world. Everything a broker, controller or coordinator
 * needs from outside its own memory comes through an {@link Environment}: wall-clock and
 * monotonic time with timers, randomness, the disk and the network. The broker runs on
 * {@link systemEnvironment}; tests and the deterministic simulator hand in a
 * ManualTime, a seeded random source, a fault-injecting disk and a simulated network
 * (manual-environment.ts, kept apart so a broker does not load the fault-injecting disk), so
 * several brokers run in one process under one clock and one seed and every run of a seed is
 * the same run.
 *
 * Outside `host/io/` (and the client library, which runs in browsers too), no broker code calls
 * `Date.now`, `performance.now`, `setTimeout`, `setInterval`, `setImmediate`, `randomUUID`,
 * `randomBytes`, `Math.random`, `node:fs` or `node:net` directly; a test enforces it.
 */
import { type Disk, NodeDisk } from './disk.js';
import { NodeNetwork } from './node-network.js';
import { CryptoRandom } from './random.js';
import { SystemTime } from './time.js';

/** Opaque token of a scheduled task; pass it back to {@link Time.clearTimeout}. */
export interface TimerHandle {
  readonly id: number;
}

/**
 * Time and timers. `nowMs` is wall-clock time (record timestamps, retention, segment.ms);
 * `monotonicMs` only ever moves forward (timeouts, durations: max.wait.ms, session timeouts).
 * Timers never keep a process alive (the real ones are unref'd).
 */
export interface Time {
  /** Wall-clock milliseconds since the Unix epoch. */
  nowMs(): number;
  /** Milliseconds on a monotonic clock; only differences are meaningful. */
  monotonicMs(): number;
  /** Runs `task` once, `delayMs` (>= 0, ms) from now. */
  setTimeout(task: () => void, delayMs: number): TimerHandle;
  /** Cancels a pending task; a no-op for one that already ran or was cancelled. */
  clearTimeout(handle: TimerHandle): void;
  /**
   * Runs `task` once at the end of the current event-loop turn, after the I/O callbacks already
   * queued (Node's `setImmediate`): the place for work that groups what one turn produced.
   */
  defer(task: () => void): void;
}

/**
 * Randomness: election timeouts, topic ids, cluster ids, member ids, incarnation ids. Seeded in
 * the simulator (mulberry32, {@link SeededRandom}), cryptographic in a real broker.
 */
export interface RandomSource {
  /** Uniform 32-bit unsigned integer. */
  nextUint32(): number;
  /** Uniform float in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max], inclusive. @throws Error when max < min */
  int(min: number, max: number): number;
  /** Fills `target` with random bytes. */
  fill(target: Uint8Array): void;
  /** A version-4 UUID in its 36-character text form (Java's UUID.randomUUID().toString()). */
  uuid(): string;
}

/** A listening TCP-like server: bound address and a way to stop accepting. */
export interface NetworkServer {
  readonly host: string;
  readonly port: number;
  /** Stops accepting; existing connections are the caller's to close. */
  close(): Promise<void>;
}

/**
 * A bidirectional byte stream (a TCP connection in production, an in-memory pipe with faults in
 * the simulator). Events arrive through the handlers given at creation.
 */
export interface NetworkConnection {
  readonly remoteAddress: string;
  readonly remotePort: number;
  /** Queues bytes; returns false when the caller should wait for `onDrain` (backpressure). */
  write(data: Uint8Array, callback?: (error?: Error | null) => void): boolean;
  /** Stops reading (backpressure) until {@link resume}. */
  pause(): void;
  resume(): void;
  /** Half-closes after queued writes are sent. */
  end(): void;
  /** Closes at once; queued writes are dropped. */
  destroy(error?: Error): void;
}

/** What a connection tells its owner. */
export interface NetworkConnectionHandlers {
  onData(data: Uint8Array): void;
  onDrain?(): void;
  /** The peer closed or the connection failed; called once. */
  onClose(error?: Error): void;
}

/**
 * The network, as node-to-node traffic needs it (the controller quorum's and the replica
 * fetchers' connections). Client-facing listeners (SocketServer, the uWebSockets.js gateway) use
 * Node directly in `network/`; the simulator drives brokers below those, through their request
 * handlers.
 */
export interface Network {
  /**
   * Opens a connection to `host:port`.
   * @throws Error (ECONNREFUSED, ETIMEDOUT, ...) through the returned promise
   */
  connect(host: string, port: number, handlers: NetworkConnectionHandlers): Promise<NetworkConnection>;
}

/** The world a broker runs in. */
export interface Environment {
  readonly time: Time;
  readonly random: RandomSource;
  readonly disk: Disk;
  readonly network: Network;
}

/**
 * The real world: {@link SystemTime}-style clocks and unref'd Node timers, cryptographic
 * randomness, the local file system and TCP. Each call builds new objects (no module state), so
 * two brokers in one process share nothing through it.
 */
export function systemEnvironment(): Environment {
  return { time: new SystemTime(), random: new CryptoRandom(), disk: new NodeDisk(), network: new NodeNetwork() };
}
