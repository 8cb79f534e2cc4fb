/**
 * `node dist/bench/fuzz/big-shutdown.js [--baseline <root>] [--partitions 50000] [--groups 5000]
 * [--per-group 10] [--runs 2] [--cpu-prof <dir>]`: issue 15's slow clean shutdown of a broker
 * holding many written partitions and many groups with committed offsets, measured. For each build
 * (a project root given by `--baseline`, built; then this one), alternating run by run, a broker
 * process with default configs except `controller.mutation.rate` 0 gets `--partitions` partitions
 * (topics of 500, CreateTopics v4), one record in each (Produce v8, acks=1), and `--groups` groups
 * that each commit offsets (OffsetCommit v7, generation -1: no membership) for `--per-group`
 * partitions; then SIGTERM. Printed: the time from SIGTERM to exit, and the gap between the
 * broker's `broker.stopping` and `broker.stopped` log lines. The broker is then started again on
 * the same data: its start-up time, whether the stop left the clean-shutdown marker, and a
 * sample of committed offsets read back (OffsetFetch v5) must match what was committed.
 */
import { appendFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { CLEAN_SHUTDOWN_FILE } from '../../host/log/log-manager.js';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { decodeCreateTopicsResponse, encodeCreateTopicsRequest } from '../../host/protocol/generated/create-topics.js';
import { decodeDeleteRecordsResponse, encodeDeleteRecordsRequest } from '../../host/protocol/generated/delete-records.js';
import { decodeFindCoordinatorResponse, encodeFindCoordinatorRequest } from '../../host/protocol/generated/find-coordinator.js';
import { decodeOffsetCommitResponse, encodeOffsetCommitRequest } from '../../host/protocol/generated/offset-commit.js';
import { decodeOffsetFetchResponse, encodeOffsetFetchRequest } from '../../host/protocol/generated/offset-fetch.js';
import { decodeProduceResponse, encodeProduceRequest } from '../../host/protocol/generated/produce.js';
import { buildRecordBatch } from '../../host/record/batch-builder.js';
import { BenchBroker, BENCH_HOST } from '../e2e/broker.js';
import { type BuildSnapshot, takeBuildSnapshot } from '../e2e/build-snapshot.js';
import { median, runBench } from './build-comparison.js';
import { Connection } from './well-behaved.js';

const PREFIX = 'big-';
const PER_TOPIC = 500;
/** Requests in flight on one connection while loading the broker. */
const WINDOW = 32;
/** How long one loading request may wait for its answer (a busy shared machine). */
const LOAD_TIMEOUT_MS = 300_000;

interface Outcome {
  /** DeleteRecords naming every partition (offset -1) → its answer, ms; NaN when not asked for. */
  readonly deleteRecordsMs: number;
  /** SIGTERM → process exit, ms. */
  readonly stopMs: number;
  /** `broker.stopping` → `broker.stopped` (log timestamps), ms. */
  readonly stoppingMs: number;
  /** Spawn of the second start → first Metadata answer, ms. */
  readonly restartMs: number;
  /** Whether the stop left the clean-shutdown marker (so the next start skips recovery). */
  readonly clean: boolean;
}

interface Plan {
  readonly partitions: number;
  readonly groups: number;
  readonly perGroup: number;
  readonly cpuProfileDir: string | undefined;
  /** Append every line the brokers print to this file. */
  readonly logFile: string | undefined;
  /** Before the stop, time a DeleteRecords of every partition up to its high watermark. */
  readonly deleteRecords: boolean;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `count` requests made by `make(i)` with at most {@link WINDOW} in flight. */
async function pipelined(count: number, make: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < count) await make(next++);
  };
  await Promise.all(Array.from({ length: Math.min(WINDOW, count) }, lane));
}

function topicOf(partitionNumber: number): { topic: string; partition: number } {
  return { topic: `${PREFIX}${Math.floor(partitionNumber / PER_TOPIC)}`, partition: partitionNumber % PER_TOPIC };
}

/** The partitions group `g` commits: `perGroup` consecutive ones, spread over the cluster. */
function groupPartitions(g: number, plan: Plan): { topic: string; partition: number }[] {
  return Array.from({ length: plan.perGroup }, (_, i) => topicOf((g * plan.perGroup + i) % plan.partitions));
}

function byTopic(list: { topic: string; partition: number }[]): Map<string, number[]> {
  const map = new Map<string, number[]>();
  for (const { topic, partition } of list) map.set(topic, [...(map.get(topic) ?? []), partition]);
  return map;
}

/** Topics, one record per partition, committed offsets. */
async function load(broker: BenchBroker, plan: Plan): Promise<void> {
  const admin = await Connection.open(BENCH_HOST, broker.port);
  const topics = Math.ceil(plan.partitions / PER_TOPIC);
  const count = (t: number): number => Math.min(PER_TOPIC, plan.partitions - t * PER_TOPIC);
  await pipelined(topics, async (t) => {
    const response = await admin.request(ApiKey.CreateTopics, 4, encodeCreateTopicsRequest, decodeCreateTopicsResponse, {
      topics: [{ name: `${PREFIX}${t}`, numPartitions: count(t), replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 120_000, validateOnly: false,
    }, LOAD_TIMEOUT_MS);
    if (response.topics[0]!.errorCode !== 0) throw new Error(`CreateTopics ${PREFIX}${t}: error ${response.topics[0]!.errorCode}`);
  });
  const batch = buildRecordBatch({ records: [{ value: 'v', timestamp: Date.now() }] });
  await pipelined(topics, async (t) => {
    for (let attempt = 0; ; attempt++) {
      const response = await admin.request(ApiKey.Produce, 8, encodeProduceRequest, decodeProduceResponse, {
        transactionalId: null, acks: 1, timeoutMs: 30_000,
        topicData: [{ name: `${PREFIX}${t}`, partitionData: Array.from({ length: count(t) }, (_, index) => ({ index, records: batch })) }],
      }, LOAD_TIMEOUT_MS);
      const failed = response.responses.flatMap((r) => r.partitionResponses).filter((p) => p.errorCode !== 0);
      if (failed.length === 0) return;
      if (attempt > 50) throw new Error(`Produce ${PREFIX}${t}: error ${failed[0]!.errorCode}`);
      await sleep(200);
    }
  });
  for (let attempt = 0; ; attempt++) {
    const found = await admin.request(ApiKey.FindCoordinator, 2, encodeFindCoordinatorRequest, decodeFindCoordinatorResponse, { key: 'g-0', keyType: 0 }, LOAD_TIMEOUT_MS);
    if (found.errorCode === 0) break;
    if (attempt > 100) throw new Error(`FindCoordinator: error ${found.errorCode}`);
    await sleep(200);
  }
  await pipelined(plan.groups, async (g) => {
    for (let attempt = 0; ; attempt++) {
      const response = await admin.request(ApiKey.OffsetCommit, 7, encodeOffsetCommitRequest, decodeOffsetCommitResponse, {
        groupId: `g-${g}`, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1,
        topics: [...byTopic(groupPartitions(g, plan))].map(([name, partitions]) => ({
          name, partitions: partitions.map((partitionIndex) => ({ partitionIndex, committedOffset: 1, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: `m${g}` })),
        })),
      }, LOAD_TIMEOUT_MS);
      const failed = response.topics.flatMap((t) => t.partitions).filter((p) => p.errorCode !== 0);
      if (failed.length === 0) return;
      if (attempt > 50) throw new Error(`OffsetCommit g-${g}: error ${failed[0]!.errorCode}`);
      await sleep(200);
    }
  });
  admin.close();
}

/** DeleteRecords v1 naming every partition with offset -1 (the high watermark); its time to answer, ms. */
async function deleteAllRecords(broker: BenchBroker, plan: Plan): Promise<number> {
  const conn = await Connection.open(BENCH_HOST, broker.port);
  const topics = Math.ceil(plan.partitions / PER_TOPIC);
  const startedMs = performance.now();
  const response = await conn.request(ApiKey.DeleteRecords, 1, encodeDeleteRecordsRequest, decodeDeleteRecordsResponse, {
    timeoutMs: 600_000,
    topics: Array.from({ length: topics }, (_, t) => ({
      name: `${PREFIX}${t}`, partitions: Array.from({ length: Math.min(PER_TOPIC, plan.partitions - t * PER_TOPIC) }, (_, partitionIndex) => ({ partitionIndex, offset: -1 })),
    })),
  }, 600_000);
  const elapsedMs = performance.now() - startedMs;
  conn.close();
  const failed = response.topics.flatMap((t) => t.partitions).filter((p) => p.errorCode !== 0 || p.lowWatermark !== 1);
  if (failed.length > 0) throw new Error(`DeleteRecords: ${failed.length} partitions failed, first ${JSON.stringify(failed[0])}`);
  return elapsedMs;
}

/** Reads back a sample of the groups' committed offsets; throws on any difference. */
async function verify(broker: BenchBroker, plan: Plan): Promise<void> {
  const conn = await Connection.open(BENCH_HOST, broker.port);
  const step = Math.max(1, Math.floor(plan.groups / 50));
  for (let g = 0; g < plan.groups; g += step) {
    for (let attempt = 0; ; attempt++) {
      const group = await conn.request(ApiKey.OffsetFetch, 5, encodeOffsetFetchRequest, decodeOffsetFetchResponse, {
        groupId: `g-${g}`, topics: [...byTopic(groupPartitions(g, plan))].map(([name, partitionIndexes]) => ({ name, partitionIndexes })),
      }, LOAD_TIMEOUT_MS);
      if (group.errorCode === 14 && attempt < 300) { // COORDINATOR_LOAD_IN_PROGRESS
        await sleep(100);
        continue;
      }
      const parts = group.topics.flatMap((t) => t.partitions);
      if (group.errorCode !== 0 || parts.length !== plan.perGroup || parts.some((p) => p.committedOffset !== 1 || p.metadata !== `m${g}`)) {
        throw new Error(`g-${g}: committed offsets not read back after the restart: ${JSON.stringify(group).slice(0, 400)}`);
      }
      break;
    }
  }
  conn.close();
}

async function runBuild(snapshot: BuildSnapshot, plan: Plan): Promise<Outcome> {
  const times = new Map<string, number>();
  const onLine = (line: string): void => {
    if (plan.logFile !== undefined) appendFileSync(plan.logFile, `${line}\n`);
    if (!line.startsWith('{')) return;
    const parsed = JSON.parse(line) as { event?: string; time?: string };
    if (parsed.event !== undefined && parsed.time !== undefined && !times.has(parsed.event)) times.set(parsed.event, Date.parse(String(parsed.time)));
  };
  const nodeFlags = plan.cpuProfileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', plan.cpuProfileDir];
  const overrides = { 'controller.mutation.rate': 0, 'log.level': 'info' };
  const first = await BenchBroker.start(snapshot, { nodeFlags, overrides, startTimeoutMs: 120_000, onLine });
  const logDir = first.logDir;
  try {
    await load(first, plan);
    await sleep(6_000); // the housekeeping ticks after the load (checkpoints of every new partition)
    const deleteRecordsMs = plan.deleteRecords ? await deleteAllRecords(first, plan) : Number.NaN;
    const { forced, elapsedMs: stopMs } = await first.stop(600_000);
    if (forced) throw new Error('the broker did not stop within 600 s');
    const stoppingMs = (times.get('broker.stopped') ?? Number.NaN) - (times.get('broker.stopping') ?? Number.NaN);
    const clean = existsSync(path.join(logDir, CLEAN_SHUTDOWN_FILE));
    const second = await BenchBroker.start(snapshot, { logDir, overrides, startTimeoutMs: 300_000, onLine });
    try {
      await verify(second, plan);
    } finally {
      await second.stop(600_000);
    }
    return { deleteRecordsMs, stopMs, stoppingMs, restartMs: second.readyMs, clean };
  } finally {
    await first.close();
  }
}

async function main(): Promise<void> {
  const options = new Command('big-shutdown')
    .option('--baseline <root>', 'also measure the build in this project root (a worktree of another commit, built)')
    .option('--partitions <n>', 'partitions the broker holds', '50000')
    .option('--groups <n>', 'groups with committed offsets', '5000')
    .option('--per-group <n>', 'partitions each group commits', '10')
    .option('--runs <n>', 'runs per build', '1')
    .option('--cpu-prof <dir>', 'write each broker\'s CPU profile (node --cpu-prof) into this directory')
    .option('--log <file>', 'append every line the brokers print to this file')
    .option('--delete-records', 'before the stop, time a DeleteRecords naming every partition (offset -1)')
    .parse()
    .opts<{ baseline?: string; partitions: string; groups: string; perGroup: string; runs: string; cpuProf?: string; log?: string; deleteRecords?: boolean }>();
  const plan: Plan = {
    partitions: Number(options.partitions), groups: Number(options.groups), perGroup: Number(options.perGroup), cpuProfileDir: options.cpuProf, logFile: options.log,
    deleteRecords: options.deleteRecords === true,
  };
  const builds: { label: string; snapshot: BuildSnapshot; outcomes: Outcome[] }[] = [];
  try {
    if (options.baseline !== undefined) {
      const snapshot = takeBuildSnapshot(options.baseline);
      builds.push({ label: `baseline ${snapshot.gitCommit}`, snapshot, outcomes: [] });
    }
    const current = takeBuildSnapshot();
    builds.push({ label: `this build ${current.gitCommit}`, snapshot: current, outcomes: [] });
    for (let run = 0; run < Number(options.runs); run++) {
      for (const build of run % 2 === 0 ? builds : [...builds].reverse()) {
        process.stderr.write(`run ${run + 1}: ${build.label}\n`);
        const outcome = await runBuild(build.snapshot, plan);
        process.stderr.write(`  ${JSON.stringify(outcome)}\n`);
        build.outcomes.push(outcome);
      }
    }
    const lines = [`big shutdown bench (issue 15): ${plan.partitions} partitions with a record each, ${plan.groups} groups × ${plan.perGroup} committed offsets, ${options.runs} run(s) per build, medians`];
    for (const { label, outcomes } of builds) {
      if (plan.deleteRecords) lines.push(`  ${label}: DeleteRecords of every partition answered after ${median(outcomes.map((o) => o.deleteRecordsMs)).toFixed(0)} ms`);
      lines.push(`  ${label}: SIGTERM → exit ${median(outcomes.map((o) => o.stopMs)).toFixed(0)} ms ` +
        `(stopping → stopped ${median(outcomes.map((o) => o.stoppingMs)).toFixed(0)} ms), restart ready after ${median(outcomes.map((o) => o.restartMs)).toFixed(0)} ms, ` +
        `clean-shutdown marker written: ${outcomes.filter((o) => o.clean).length} of ${outcomes.length}`);
    }
    if (builds.length === 2) {
      const [base, mine] = builds.map((b) => median(b.outcomes.map((o) => o.stopMs)));
      lines.push(`  ratio baseline / this build, SIGTERM → exit: ${(base! / Math.max(1, mine!)).toFixed(1)}x`);
      if (plan.deleteRecords) {
        const [baseDelete, mineDelete] = builds.map((b) => median(b.outcomes.map((o) => o.deleteRecordsMs)));
        lines.push(`  ratio baseline / this build, DeleteRecords: ${(baseDelete! / Math.max(1, mineDelete!)).toFixed(1)}x`);
      }
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    for (const build of builds) build.snapshot.remove();
  }
}

runBench(main);
