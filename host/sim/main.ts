/**
 * `npm run sim -- [--mode raft|replication] --seeds N [--seed S]`: a simulation campaign. Runs
 * seeds S, S+1, ... S+N-1 (S defaults to 1) of the Raft quorum simulation (default) or of the
 * partition replication simulation, and prints the counts of seeds, steps and simulated time, the
 * faults injected by kind, and every violation as `SEED=<n> step <k>: <what>`; exits 1 when any
 * seed failed. `--seed S` alone replays one seed (in replication mode with its step trace when it
 * fails).
 */
import { runSimulation } from './raft-simulation.js';
import { runReplicationSimulation } from './replication-simulation.js';

function argument(name: string): number | undefined {
  const index = process.argv.indexOf(name);
  if (index < 0) return undefined;
  const value = Number(process.argv[index + 1]);
  if (!Number.isInteger(value)) throw new Error(`${name} needs an integer`);
  return value;
}

function mode(): 'raft' | 'replication' {
  const index = process.argv.indexOf('--mode');
  const value = index < 0 ? 'raft' : process.argv[index + 1];
  if (value !== 'raft' && value !== 'replication') throw new Error('--mode is raft or replication');
  return value;
}

interface SeedOutcome {
  steps: number;
  simulatedMs: number;
  /** Raft: committed offsets; replication: acks=all writes acknowledged. */
  progress: number;
  faults: Record<string, number>;
  events?: Record<string, number>;
  violation: string | undefined;
  header: string;
  trace?: string[];
}

async function runSeed(which: 'raft' | 'replication', seed: number, trace: boolean): Promise<SeedOutcome> {
  if (which === 'raft') {
    const r = runSimulation({ seed });
    return { steps: r.steps, simulatedMs: r.simulatedMs, progress: r.committed, faults: r.faults, violation: r.violation, header: `SEED=${seed} step ${r.violationStep} (${r.voters} voters)` };
  }
  const r = await runReplicationSimulation({ seed, trace });
  return { steps: r.steps, simulatedMs: r.simulatedMs, progress: r.acked, faults: r.faults, events: { ...r.events, excusedLosses: r.excusedLosses }, violation: r.violation, header: `SEED=${seed} step ${r.violationStep} (${r.brokers} brokers)`, trace: r.trace };
}

function add(into: Record<string, number>, from: Record<string, number> | undefined): void {
  for (const [kind, n] of Object.entries(from ?? {})) into[kind] = (into[kind] ?? 0) + n;
}

async function main(): Promise<number> {
  const which = mode();
  const first = argument('--seed') ?? 1;
  const count = argument('--seeds') ?? 1;
  const faults: Record<string, number> = {};
  const events: Record<string, number> = {};
  let steps = 0;
  let simulatedMs = 0;
  let progress = 0;
  let violations = 0;
  const startedMs = performance.now();
  for (let seed = first; seed < first + count; seed++) {
    const result = await runSeed(which, seed, count === 1);
    steps += result.steps;
    simulatedMs += result.simulatedMs;
    progress += result.progress;
    add(faults, result.faults);
    add(events, result.events);
    if (result.violation !== undefined) {
      violations++;
      console.log(`${result.header}: ${result.violation}`);
      if (result.trace !== undefined && result.trace.length > 0) console.log(result.trace.join('\n'));
    }
    if ((seed - first + 1) % 1000 === 0) console.log(`... ${seed - first + 1} seeds, ${violations} violations`);
  }
  const progressName = which === 'raft' ? 'committedOffsets' : 'ackedWrites';
  console.log(
    JSON.stringify(
      { mode: which, seeds: count, firstSeed: first, steps, simulatedSeconds: Math.round(simulatedMs / 1000), [progressName]: progress, faults, ...(which === 'replication' ? { events } : {}), violations, wallSeconds: Math.round((performance.now() - startedMs) / 1000) },
      null,
      2,
    ),
  );
  return violations === 0 ? 0 : 1;
}

process.exitCode = await main();
