/**
 * Issue 15: the first produce to many new partitions, as the broker runs it (LogManager logs
 * created with directory sync at first flush, a ReplicaManager leading each partition with its
 * `leader-epoch-checkpoint`, one acks=1 append of a small batch per partition, all in one
 * event-loop turn like one Produce request), on the real disk (NodeDisk) in os.tmpdir(). Counts
 * the fsyncs (file and directory) and times the turn, for this build and a baseline build in the
 * same run, alternating, fresh directories each run; then the clean shutdown of each (where the
 * deferred epochs are written now).
 *
 *   node dist/bench/first-produce-epochs.js <baseline dist dir> [--partitions 2000] [--runs 5] [--replicas 1]
 *
 * With --replicas above 1 the ReplicaManager's becomeLeader assigns the epoch at once (timed and
 * counted too); with 1 an empty log waits for its first append.
 *
 * The baseline is a build of the previous commit: `git archive <rev> | tar -x -C /tmp/base`,
 * node_modules and build/ symlinked, `npx tsc -p tsconfig.json` there.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

interface Figures {
  becomeLeaderMs: number;
  becomeLeaderFsyncs: number;
  produceMs: number;
  produceFsyncs: number;
  shutdownMs: number;
  shutdownFsyncs: number;
}

/** One run over the build in `distDir`: N new partitions, one first produce each, then a clean shutdown. */
async function run(distDir: string, partitions: number, replicationFactor: number): Promise<Figures> {
  const load = (file: string) => import(pathToFileURL(path.join(distDir, file)).href);
  const { NodeDisk } = await load('host/io/disk.js');
  const { LogManager } = await load('host/log/log-manager.js');
  const { defaultLogConfig } = await load('host/log/log-config.js');
  const { LeaderEpochFileCache } = await load('host/log/leader-epoch-file-cache.js');
  const { ReplicaManager } = await load('host/replication/replica-manager.js');
  const { ManualScheduler } = await load('host/replication/delay-scheduler.js');
  const { buildRecordBatch } = await load('host/record/batch-builder.js');

  const counts = { fsyncs: 0 };
  const real = new NodeDisk();
  const disk = new Proxy(real, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      if (property === 'fsync' || property === 'fsyncDir') return (...args: unknown[]) => { counts.fsyncs++; return value.apply(target, args); };
      return value.bind(target);
    },
  });
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tributary-first-produce-'));
  try {
    const manager = LogManager.open({ logDirs: [logDir], disk, defaults: defaultLogConfig });
    const replicaManager = new ReplicaManager({
      localBrokerId: 1, scheduler: new ManualScheduler(), openLeaderEpochCache: (log: { dir: string }) => LeaderEpochFileCache.open(disk, log.dir),
    });
    const logs = manager.getOrCreateLogs(Array.from({ length: partitions }, (_, partition) => ({ topic: 'wide', partition, config: defaultLogConfig })), 'first-flush');
    const replicas = Array.from({ length: replicationFactor }, (_, i) => i + 1);
    counts.fsyncs = 0;
    let started = process.hrtime.bigint();
    const leaders = logs.map((log: { topic: string; partition: number }) =>
      replicaManager.becomeLeader({ topic: log.topic, partition: log.partition, log, leaderEpoch: 0, replicas, isr: [1] }));
    const becomeLeaderMs = Number(process.hrtime.bigint() - started) / 1e6;
    const becomeLeaderFsyncs = counts.fsyncs;
    const batch = buildRecordBatch({ records: [{ value: Buffer.alloc(100, 7), timestamp: Date.now() }] });

    counts.fsyncs = 0;
    started = process.hrtime.bigint();
    for (const leader of leaders) {
      if (leader.appendRecordsToLeader(batch, 1).errorCode !== 0) throw new Error('append failed');
    }
    const produceMs = Number(process.hrtime.bigint() - started) / 1e6;
    const produceFsyncs = counts.fsyncs;

    counts.fsyncs = 0;
    started = process.hrtime.bigint();
    manager.shutdown();
    const shutdownMs = Number(process.hrtime.bigint() - started) / 1e6;
    return { becomeLeaderMs, becomeLeaderFsyncs, produceMs, produceFsyncs, shutdownMs, shutdownFsyncs: counts.fsyncs };
  } finally {
    fs.rmSync(logDir, { recursive: true, force: true });
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const option = (name: string, fallback: number) => {
    const at = args.indexOf(name);
    return at >= 0 ? Number(args[at + 1]) : fallback;
  };
  const baselineDir = args[0];
  if (baselineDir === undefined || baselineDir.startsWith('--')) throw new Error('usage: first-produce-epochs.js <baseline dist dir> [--partitions N] [--runs R] [--replicas F]');
  const partitions = option('--partitions', 2000);
  const runs = option('--runs', 5);
  const replicationFactor = option('--replicas', 1);
  const thisDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const results = { baseline: [] as Figures[], current: [] as Figures[] };
  for (let i = 0; i < runs; i++) {
    results.baseline.push(await run(path.resolve(baselineDir), partitions, replicationFactor));
    results.current.push(await run(thisDir, partitions, replicationFactor));
    process.stderr.write(`run ${i + 1}/${runs} done\n`);
  }
  const summary = (figures: Figures[]) => ({
    becomeLeaderMs: median(figures.map((f) => f.becomeLeaderMs)),
    becomeLeaderFsyncs: median(figures.map((f) => f.becomeLeaderFsyncs)),
    produceMs: median(figures.map((f) => f.produceMs)),
    produceFsyncs: median(figures.map((f) => f.produceFsyncs)),
    shutdownMs: median(figures.map((f) => f.shutdownMs)),
    shutdownFsyncs: median(figures.map((f) => f.shutdownFsyncs)),
  });
  const baseline = summary(results.baseline);
  const current = summary(results.current);
  console.log(`first produce to ${partitions} new partitions of ${replicationFactor} replicas, ${runs} runs each (medians; ratio = baseline / this build)`);
  console.log(`  becomeLeader: ${baseline.becomeLeaderMs.toFixed(1)} ms, ${baseline.becomeLeaderFsyncs} fsyncs (baseline) -> ${current.becomeLeaderMs.toFixed(1)} ms, ${current.becomeLeaderFsyncs} fsyncs`);
  console.log(`  produce turn: ${baseline.produceMs.toFixed(1)} ms, ${baseline.produceFsyncs} fsyncs (baseline) -> ${current.produceMs.toFixed(1)} ms, ${current.produceFsyncs} fsyncs: ${(baseline.produceMs / current.produceMs).toFixed(1)}x`);
  console.log(`  clean shutdown: ${baseline.shutdownMs.toFixed(1)} ms, ${baseline.shutdownFsyncs} fsyncs (baseline) -> ${current.shutdownMs.toFixed(1)} ms, ${current.shutdownFsyncs} fsyncs`);
  console.log(JSON.stringify({ partitions, replicationFactor, runs, baseline: results.baseline, current: results.current }));
}

await main();
