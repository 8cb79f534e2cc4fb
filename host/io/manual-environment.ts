/**
 * The deterministic {@link Environment} of tests and the simulator ({@link manualEnvironment}),
 * apart from environment.ts so that a broker, which runs on `systemEnvironment`, does not load the
 * in-memory fault-injecting disk at start-up.
 */
import type { Disk } from './disk.js';
import type { Environment, Network, NetworkConnection } from './environment.js';
import { FaultDisk } from './fault-disk.js';
import { SeededRandom } from './random.js';
import { ManualTime } from './time.js';

/** A {@link manualEnvironment}: its parts keep their concrete types so tests can drive them. */
export interface ManualEnvironment extends Environment {
  readonly time: ManualTime;
  readonly random: SeededRandom;
}

/** The network of a {@link manualEnvironment} with nothing listening: every connect is refused. */
export class UnreachableNetwork implements Network {
  connect(host: string, port: number): Promise<NetworkConnection> {
    const error = Object.assign(new Error(`connect ECONNREFUSED ${host}:${port} (no simulated network)`), { code: 'ECONNREFUSED' });
    return Promise.reject(error);
  }
}

/**
 * A deterministic world for tests and the simulator: a {@link ManualTime} (wall clock starting at
 * `startMs`, ms since the epoch, default 1_700_000_000_000; monotonic at 0), a
 * {@link SeededRandom} seeded with `seed`, and by default an in-memory {@link FaultDisk} seeded
 * with the same seed (no faults unless a test sets them) and a network on which every connect is
 * refused. Pass `disk` (e.g. a NodeDisk over a temporary directory) or `network` to replace them.
 */
export function manualEnvironment(options: { seed: number; startMs?: number; disk?: Disk; network?: Network }): ManualEnvironment {
  return {
    time: new ManualTime(options.startMs === undefined ? {} : { startMs: options.startMs }),
    random: new SeededRandom(options.seed),
    disk: options.disk ?? new FaultDisk(options.seed),
    network: options.network ?? new UnreachableNetwork(),
  };
}
