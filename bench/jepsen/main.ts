/**
 * `npm run jepsen -- --faults 120 --seed 1`: the Jepsen-style campaign of issue 11 over real
 * broker processes and real clients (campaign.ts), from a private copy of the build (a rebuild of
 * the tree during a long campaign cannot change the brokers under test). Prints the fault list as
 * it goes (stderr), then the report: faults by kind, per client attempted / acknowledged /
 * indeterminate / lost / offset changed / duplicated / reordered, the live consumer's check, the
 * cluster problems (crashes, failed starts, slow recoveries) and the verdict. Exits 1 when the
 * campaign fails. The fault list depends only on the seed.
 */
import { writeFileSync } from 'node:fs';
import { Command } from 'commander';
import { takeBuildSnapshot } from '../e2e/build-snapshot.js';
import { ALL_CLIENTS, type ClientName, formatCampaign, runCampaign } from './campaign.js';

interface Options {
  faults: string;
  seed: string;
  timeScale: string;
  clients: string;
  json?: string;
  keep?: boolean;
}

// Ctrl-C or a kill: exit through process.exit so the exit hooks SIGKILL the broker processes.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

async function main(): Promise<void> {
  const options = new Command('jepsen')
    .option('--faults <n>', 'faults to inject', '120')
    .option('--seed <n>', 'seed of the fault schedule', '1')
    .option('--time-scale <x>', 'multiplies fault durations and gaps', '1')
    .option('--clients <list>', `writers, comma separated (${ALL_CLIENTS.join(',')})`, ALL_CLIENTS.join(','))
    .option('--json <file>', 'also write the result as JSON')
    .option('--keep', 'keep the nodes\' logs and data even when the campaign passes')
    .parse()
    .opts<Options>();
  const snapshot = takeBuildSnapshot();
  try {
    const result = await runCampaign({
      cliPath: snapshot.cliPath,
      cwd: snapshot.root,
      seed: Number(options.seed),
      faults: Number(options.faults),
      timeScale: Number(options.timeScale),
      clients: options.clients.split(',').map((name) => name.trim()) as ClientName[],
      keepWorkDir: options.keep === true,
      progress: (line) => process.stderr.write(`[jepsen ${new Date().toISOString().slice(11, 19)}] ${line}\n`),
    });
    console.log(`build ${snapshot.gitCommit}`);
    console.log(formatCampaign(result));
    if (options.json !== undefined) {
      writeFileSync(options.json, JSON.stringify({
        ...result, faultsByKind: Object.fromEntries(result.faultsByKind), check: { ...result.check, readBack: Object.fromEntries(result.check.readBack) }, build: snapshot.gitCommit,
      }, null, 2));
    }
    if (!result.passed) process.exitCode = 1;
  } finally {
    snapshot.remove();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
