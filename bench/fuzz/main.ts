/**
 * `npm run fuzz -- --frames 1000000 --seed 1`: the fuzz campaign of issue 15 (campaign.ts) against
 * a broker process from a private copy of the build. Prints progress every 10 s (stderr), then the
 * report: frames by outcome, crashes, broker error lines, acknowledged records lost, the
 * well-behaved client's p50/p99/max without and with the fuzzer and the p99 ratio, the broker's
 * RSS. Exits 1 when a check fails. Frame i of seed S is always the same bytes (fuzz-frames.ts).
 */
import { writeFileSync } from 'node:fs';
import { Command } from 'commander';
import { takeBuildSnapshot } from '../e2e/build-snapshot.js';
import { formatCampaign, runFuzzCampaign, type CampaignOptions } from './campaign.js';

interface Options {
  frames: string;
  seed: string;
  lanes: string;
  rate: string;
  answerWait: string;
  window: string;
  offWindow?: string;
  interval: string;
  maxRatio: string;
  override: string[];
  json?: string;
  brokerCpuProfile?: string;
  build?: string;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

async function main(): Promise<void> {
  const options = new Command('fuzz')
    .option('--frames <n>', 'fuzzed frames to send', '20000')
    .option('--seed <n>', 'seed of the frames', '1')
    .option('--lanes <n>', 'fuzzer connections at once', '8')
    .option('--rate <n>', 'frames per second while the fuzzer is on (0: unthrottled)', '0')
    .option('--answer-wait <ms>', 'how long a fuzzed frame may go unanswered before its connection is dropped', '250')
    .option('--window <ms>', 'length of each fuzzer-on and fuzzer-off window', '5000')
    .option('--off-window <ms>', 'length of each fuzzer-off window (default: --window)')
    .option('--interval <ms>', 'the well-behaved client\'s round period', '5')
    .option('--max-ratio <x>', 'largest p99 ratio with / without the fuzzer that passes', '2')
    .option('--override <key=value>', 'a broker config (repeatable)', (value: string, all: string[]) => [...all, value], [] as string[])
    .option('--json <file>', 'also write the result as JSON')
    .option('--build <root>', 'run the broker of another built project root (a worktree of another commit) under this harness')
    .option('--broker-cpu-profile <dir>', 'write the broker\'s V8 CPU profile (node --cpu-prof) into this directory')
    .parse()
    .opts<Options>();
  const overrides: Record<string, string> = {};
  for (const pair of options.override) overrides[pair.slice(0, pair.indexOf('='))] = pair.slice(pair.indexOf('=') + 1);
  const campaign: CampaignOptions = {
    frames: Number(options.frames), seed: Number(options.seed), lanes: Number(options.lanes), rate: Number(options.rate),
    answerWaitMs: Number(options.answerWait), windowMs: Number(options.window),
    ...(options.offWindow !== undefined ? { offWindowMs: Number(options.offWindow) } : {}), intervalMs: Number(options.interval),
    maxRatio: Number(options.maxRatio), overrides,
    ...(options.brokerCpuProfile !== undefined ? { brokerNodeFlags: ['--cpu-prof', `--cpu-prof-dir=${options.brokerCpuProfile}`] } : {}), progress: (line) => process.stderr.write(`${new Date().toISOString()} ${line}\n`),
  };
  const snapshot = takeBuildSnapshot(options.build);
  try {
    const result = await runFuzzCampaign(snapshot, campaign);
    process.stdout.write(`${formatCampaign(result, campaign)}\n`);
    if (options.json !== undefined) writeFileSync(options.json, `${JSON.stringify({ options: campaign, result }, null, 2)}\n`);
    process.exitCode = result.passed ? 0 : 1;
  } finally {
    snapshot.remove();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exit(1);
});
