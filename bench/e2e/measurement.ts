/**
 * What the suite records: one Row per (workload, system, generator, phase), holding one Sample
 * per run; the report summarizes each figure as median (min–max) over the samples.
 */

export type SystemName = 'tributary' | 'nats-jetstream' | 'redis-streams' | 'baseline';

export interface Sample {
  recordsPerSecond?: number;
  /** Payload MB/s (10^6 bytes of record values per second). */
  megabytesPerSecond?: number;
  /** End-to-end latency, ms. */
  latencyMs?: { p50: number; p99: number; p999: number; max: number };
  /** Server CPU (user + system) during the phase, seconds. */
  serverCpuSeconds?: number;
  /** Server peak RSS (VmHWM) over the run, bytes. */
  serverPeakRssBytes?: number;
  /** Process start → first Metadata answer, ms (W6). */
  readyMs?: number;
  /** RSS one second after ready, with no load, bytes (W6). */
  idleRssBytes?: number;
}

export interface Row {
  workload: string;
  system: SystemName;
  /** The load generator (kcat, ts-client, nats.js, ioredis, node:net, fs.writeSync, ...). */
  generator: string;
  /** produce, consume, end-to-end, start-up, ... */
  phase: string;
  /** How durable an acknowledged record is. */
  durability: string;
  /** Payload bytes moved per run (for baselines of "the same bytes"). */
  bytes?: number;
  samples: Sample[];
  notes: string[];
}

/** Where rows accumulate during a suite run. */
export class Results {
  readonly rows: Row[] = [];
  /** Printed under the table: skipped rows and why. */
  readonly notes: string[] = [];

  /** The row for this key, created on first use. */
  row(key: Omit<Row, 'samples' | 'notes'>): Row {
    let row = this.rows.find((r) => r.workload === key.workload && r.system === key.system && r.generator === key.generator && r.phase === key.phase);
    if (row === undefined) {
      row = { ...key, samples: [], notes: [] };
      this.rows.push(row);
    }
    return row;
  }

  find(workload: string, system: SystemName, phase: string, generator?: string): Row | undefined {
    return this.rows.find((r) => r.workload === workload && r.system === system && r.phase === phase && (generator === undefined || r.generator === generator));
  }
}
