/**
 * `node dist/bench/e2e/profile-main.js [--workloads W1,W2,W6] [--records N] [--partitions N] [--from-commit REV]`:
 * profiles the broker (`node --cpu-prof`) under a workload's produce phase and, in a second
 * broker process on the same data, its consume phase (kcat as the generator, as in the suite),
 * and prints where the CPU time went (cpu-profile.ts). W6 profiles start-up, empty and with
 * many partitions on disk. Start-up and shutdown are inside each
 * profile; they are small next to a million records. The .cpuprofile files are kept under
 * bench/results/profiles/ for flame graphs (Chrome DevTools, speedscope).
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { BenchBroker } from './broker.js';
import { buildCommitSnapshot, PROJECT_ROOT, takeBuildSnapshot, type BuildSnapshot } from './build-snapshot.js';
import { formatProfileSummary, summarizeCpuProfile } from './cpu-profile.js';
import { runLoad } from './child-run.js';
import { kcatConsume, kcatProduce, PayloadFiles } from './kcat.js';

const SHAPES: Record<string, { records: number; size: number }> = {
  W1: { records: 1_000_000, size: 100 },
  W2: { records: 100_000, size: 1024 },
};

/** Clean stops of a broker with many partitions take long. */
const STOP_GRACE_MS = 600_000;

/** Start-up: what the broker does between spawn and the first Metadata answer. */
const STARTUP_INCLUSIVE = [
  'broker.js:startBroker', 'log-manager.js', 'LogManager.open', 'unified-log.js', 'log-segment.js', 'log-loader.js', 'quorum-controller.js',
  'metadata-image.js', 'replica-manager.js', 'group-coordinator.js', 'offset-index.js', 'time-index.js', 'disk.js', 'core.js',
  'node:internal/modules', 'openSync', 'readSync', 'fstat', 'mkdirSync', '(garbage collector)',
];

/**
 * W6: profiles a start-up with an empty data directory and one with `partitions` partitions on
 * disk (created through our Admin first, unprofiled); each profile ends right after the first
 * Metadata answer (plus the clean stop).
 */
async function profileStartup(snapshot: BuildSnapshot, partitions: number, outDir: string, report: string[]): Promise<void> {
  for (const many of [false, true]) {
    const logDir = mkdtempSync(path.join(tmpdir(), 'tributary-bench-profile-'));
    const work = mkdtempSync(path.join(tmpdir(), 'tributary-bench-cpuprof-'));
    try {
      if (many) {
        process.stderr.write(`[profile] W6: creating ${partitions} partitions (not profiled)\n`);
        const broker = await BenchBroker.start(snapshot, { logDir });
        try {
          await runLoad('ts-create-topic', { distRoot: path.join(snapshot.root, 'dist'), bootstrap: broker.bootstrap, topic: 'w6-many', partitions, timeoutMs: 900_000 }, 900_000);
        } finally {
          await broker.stop(STOP_GRACE_MS);
        }
      }
      const label = many ? `start-up-${partitions}-partitions` : 'start-up-empty';
      process.stderr.write(`[profile] W6: ${label} under --cpu-prof\n`);
      let readyMs = Number.NaN;
      const profile = await profiled(snapshot, logDir, path.join(work, label), async (broker) => { readyMs = broker.readyMs; });
      const kept = path.join(outDir, `W6-${label}.cpuprofile`);
      copyFileSync(profile, kept);
      report.push('', formatProfileSummary(`W6 ${label} (ready after ${Math.round(readyMs)} ms under the profiler) — ${path.relative(PROJECT_ROOT, kept)}`, summarizeCpuProfile(profile, STARTUP_INCLUSIVE)));
    } finally {
      rmSync(logDir, { recursive: true, force: true });
      rmSync(work, { recursive: true, force: true });
    }
  }
}

/** Functions whose inclusive share is worth knowing on the produce and fetch paths. */
const INCLUSIVE = [
  'frame-decoder.js', 'request-dispatcher.js', 'produce-api.js', 'fetch-api.js', 'decodeProduceRequest', 'encodeProduceResponse',
  'decodeFetchRequest', 'encodeFetchResponse', 'appendAsLeader', 'prepareAppend', 'log-segment.js:append', 'unified-log.js:read',
  'log-segment.js:read', 'disk.js', 'socket-server.js', 'network/connection.js', 'writeSync', 'readSync', '(garbage collector)',
];

async function profiled(snapshot: BuildSnapshot, logDir: string, profileDir: string, phase: (broker: BenchBroker) => Promise<unknown>): Promise<string> {
  mkdirSync(profileDir, { recursive: true });
  const broker = await BenchBroker.start(snapshot, { logDir, nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] });
  try {
    await phase(broker);
  } finally {
    // A profile is written only by a process that exits on its own: wait for the clean stop.
    const stopped = await broker.stop(STOP_GRACE_MS);
    if (stopped.forced) process.stderr.write(`[profile] the broker did not stop within ${STOP_GRACE_MS} ms and was killed: no profile\n`);
  }
  const files = readdirSync(profileDir).filter((file) => file.endsWith('.cpuprofile'));
  if (files.length !== 1) throw new Error(`expected one .cpuprofile in ${profileDir}, found ${files.length}`);
  return path.join(profileDir, files[0]!);
}

async function main(): Promise<void> {
  const options = new Command('profile')
    .option('--workloads <list>', 'W1, W2 and/or W6', 'W1,W2')
    .option('--partitions <n>', 'W6: partitions on disk', '10000')
    .option('--records <n>', 'override the record count')
    .option('--from-commit <revision>', 'profile a clean build of this git revision')
    .parse()
    .opts<{ workloads: string; records?: string; fromCommit?: string; partitions: string }>();
  const snapshot = options.fromCommit === undefined ? takeBuildSnapshot() : buildCommitSnapshot(options.fromCommit);
  const payloads = new PayloadFiles();
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const outDir = path.join(PROJECT_ROOT, 'bench/results/profiles', stamp);
  mkdirSync(outDir, { recursive: true });
  const report: string[] = [`# broker CPU profiles — ${stamp}, tributary ${snapshot.version} (${snapshot.gitCommit}), node ${process.version}`];
  try {
    for (const workload of options.workloads.split(',')) {
      if (workload === 'W6') {
        await profileStartup(snapshot, Number(options.partitions), outDir, report);
        continue;
      }
      const shape = SHAPES[workload];
      if (shape === undefined) throw new Error(`profiles exist for W1 and W2, not ${workload}`);
      const records = options.records === undefined ? shape.records : Number(options.records);
      const logDir = mkdtempSync(path.join(tmpdir(), 'tributary-bench-profile-'));
      const work = mkdtempSync(path.join(tmpdir(), 'tributary-bench-cpuprof-'));
      try {
        const topic = `${workload.toLowerCase()}-profile`;
        const file = payloads.file(records, shape.size);
        process.stderr.write(`[profile] ${workload}: kcat produce ${records} × ${shape.size} B under --cpu-prof\n`);
        const produce = await profiled(snapshot, logDir, path.join(work, 'produce'), (broker) => kcatProduce({
          bootstrap: broker.bootstrap, topic, file, records, size: shape.size, acks: 1, partition: 0, lingerMs: 5, batchMessages: 10_000, timeoutMs: 600_000,
        }));
        process.stderr.write(`[profile] ${workload}: kcat consume from the start under --cpu-prof\n`);
        const consume = await profiled(snapshot, logDir, path.join(work, 'consume'), async (broker) => {
          const result = await kcatConsume({ bootstrap: broker.bootstrap, topic, records, size: shape.size, timeoutMs: 600_000 });
          if (result.records !== records) throw new Error(`consumed ${result.records} of ${records}`);
        });
        for (const [phase, profile] of [['produce', produce], ['consume', consume]] as const) {
          const kept = path.join(outDir, `${workload}-${phase}.cpuprofile`);
          copyFileSync(profile, kept);
          report.push('', formatProfileSummary(`${workload} ${phase} (${records} × ${shape.size} B, kcat) — ${path.relative(PROJECT_ROOT, kept)}`, summarizeCpuProfile(profile, INCLUSIVE)));
        }
      } finally {
        rmSync(logDir, { recursive: true, force: true });
        rmSync(work, { recursive: true, force: true });
      }
    }
  } finally {
    payloads.remove();
    snapshot.remove();
  }
  const text = `${report.join('\n')}\n`;
  writeFileSync(path.join(outDir, 'summary.txt'), text);
  process.stdout.write(text);
}

main().then(() => process.exit(0), (error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exit(1);
});
