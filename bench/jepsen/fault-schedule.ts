/**
 * The faults of one Jepsen-style campaign, drawn from a seed: the same seed gives the same list
 * (kinds, targets, durations, cut modes, gaps), so a failing campaign can be run again. Only the
 * moments at which the faults land depend on the machine.
 *
 * Kinds (the targets are node ids 1..n):
 * - `sigkill`: kill -9 a node, keep it down `durationMs`, start it again (same data directory);
 * - `pause`: SIGSTOP a node for `durationMs`, then SIGCONT (a GC pause or a stalled VM: sockets
 *   stay open, nothing answers; beyond broker.session.timeout.ms the controller fences it);
 * - `restart`: a clean restart (SIGTERM: Kafka's controlled shutdown moves leaderships first);
 * - `isolate`: cut every path into and out of a node (clients, controllers, replication);
 * - `cut-clients`: cut only the clients' path to a node (it stays in the cluster);
 * - `cut-replication`: cut replication between two nodes, both directions;
 * - `cut-controller`: cut the Raft links between two nodes, both directions.
 * Cuts are `reset` (connections closed at once) or `blackhole` (bytes dropped, peers notice by
 * their own timeouts). After a fault heals, the campaign waits `gapMs`, and unless `overlap` the
 * cluster's full recovery (every node up, every partition with all replicas in sync) before the
 * next fault; with `overlap` the next fault may strike a cluster still recovering.
 */
import { SeededRandom } from '../../host/io/random.js';

export type FaultKind = 'sigkill' | 'pause' | 'restart' | 'isolate' | 'cut-clients' | 'cut-replication' | 'cut-controller';

export const FAULT_KINDS: readonly FaultKind[] = ['sigkill', 'pause', 'restart', 'isolate', 'cut-clients', 'cut-replication', 'cut-controller'];

export interface Fault {
  /** 1-based position in the campaign. */
  readonly index: number;
  readonly kind: FaultKind;
  /** The node (or the pair's first node). */
  readonly node: number;
  /** The pair's second node for `cut-replication` / `cut-controller`, else 0. */
  readonly peer: number;
  /** How long the fault lasts (down, paused or cut), ms; 0 for `restart`. */
  readonly durationMs: number;
  readonly cutMode: 'reset' | 'blackhole';
  /** Pause after healing, ms. */
  readonly gapMs: number;
  /** Strike the next fault without waiting for full recovery. */
  readonly overlap: boolean;
}

export interface ScheduleOptions {
  readonly seed: number;
  readonly faults: number;
  /** Node ids are 1..nodes. */
  readonly nodes: number;
  /** Multiplies every duration and gap (the quick test uses less than 1). Default 1. */
  readonly timeScale?: number;
}

/** Relative weights of the kinds (kills and pauses are the faults that lose data when a broker is wrong). */
const WEIGHTS: Readonly<Record<FaultKind, number>> = {
  sigkill: 4, pause: 3, restart: 1, isolate: 2, 'cut-clients': 1, 'cut-replication': 2, 'cut-controller': 1,
};

/** Mulberry32, uniform in [0, 1): host/io/random.ts's SeededRandom as a function (the same sequence for a seed). */
export function seededRandom(seed: number): () => number {
  const random = new SeededRandom(seed);
  return () => random.next();
}

/** The campaign of `options.faults` faults for `options.seed` (see the file header). */
export function faultSchedule(options: ScheduleOptions): Fault[] {
  const random = seededRandom(options.seed);
  const scale = options.timeScale ?? 1;
  const between = (low: number, high: number): number => Math.round((low + random() * (high - low)) * scale);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const totalWeight = FAULT_KINDS.reduce((sum, kind) => sum + WEIGHTS[kind], 0);
  const kindAt = (draw: number): FaultKind => {
    let left = draw * totalWeight;
    for (const kind of FAULT_KINDS) {
      left -= WEIGHTS[kind];
      if (left < 0) return kind;
    }
    return FAULT_KINDS[FAULT_KINDS.length - 1]!;
  };
  const ids = Array.from({ length: options.nodes }, (_, i) => i + 1);
  const faults: Fault[] = [];
  for (let index = 1; index <= options.faults; index++) {
    const kind = kindAt(random());
    const node = pick(ids);
    const peer = kind === 'cut-replication' || kind === 'cut-controller' ? pick(ids.filter((id) => id !== node)) : 0;
    const durationMs = kind === 'restart' ? 0
      : kind === 'pause' ? between(500, 7000)
        : kind === 'sigkill' ? between(200, 4000)
          : between(1000, 8000);
    faults.push({
      index, kind, node, peer, durationMs,
      cutMode: random() < 0.5 ? 'reset' : 'blackhole',
      gapMs: between(200, 2000),
      overlap: random() < 0.25,
    });
  }
  return faults;
}

/** One line naming a fault, e.g. `#3 pause node 2 for 4100 ms`. */
export function describeFault(fault: Fault): string {
  const target = fault.peer > 0 ? `nodes ${fault.node}<->${fault.peer}` : `node ${fault.node}`;
  const cut = fault.kind.startsWith('cut') || fault.kind === 'isolate' ? ` (${fault.cutMode})` : '';
  const duration = fault.kind === 'restart' ? '' : ` for ${fault.durationMs} ms`;
  return `#${fault.index} ${fault.kind} ${target}${cut}${duration}${fault.overlap ? ', next overlaps' : ''}`;
}
