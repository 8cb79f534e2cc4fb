/**
 * `npm run sim -- --seeds N [--seed S]`: a simulation campaign. Runs seeds S, S+1, ... S+N-1
 * (S defaults to 1) and prints the counts of seeds, steps and simulated time, the faults injected by
 * kind, and every violation as `SEED=<n> step <k>: <what>`; exits 1 when any seed failed.
 * `--seed S` alone replays one seed.
 */
import { runSimulation } from './raft-simulation.js';

function argument(name: string): number | undefined {
  const index = process.argv.indexOf(name);
  if (index < 0) return undefined;
  const value = Number(process.argv[index + 1]);
  if (!Number.isInteger(value)) throw new Error(`${name} needs an integer`);
  return value;
}

function main(): number {
  const first = argument('--seed') ?? 1;
  const count = argument('--seeds') ?? 1;
  const faults: Record<string, number> = {};
  let steps = 0;
  let simulatedMs = 0;
  let committed = 0;
  let violations = 0;
  const startedMs = performance.now();
  for (let seed = first; seed < first + count; seed++) {
    const result = runSimulation({ seed });
    steps += result.steps;
    simulatedMs += result.simulatedMs;
    committed += result.committed;
    for (const [kind, n] of Object.entries(result.faults)) faults[kind] = (faults[kind] ?? 0) + n;
    if (result.violation !== undefined) {
      violations++;
      console.log(`SEED=${seed} step ${result.violationStep} (${result.voters} voters): ${result.violation}`);
    }
    if ((seed - first + 1) % 1000 === 0) console.log(`... ${seed - first + 1} seeds, ${violations} violations`);
  }
  console.log(
    JSON.stringify(
      { seeds: count, firstSeed: first, steps, simulatedSeconds: Math.round(simulatedMs / 1000), committedOffsets: committed, faults, violations, wallSeconds: Math.round((performance.now() - startedMs) / 1000) },
      null,
      2,
    ),
  );
  return violations === 0 ? 0 : 1;
}

process.exitCode = main();
