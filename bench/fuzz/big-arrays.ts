/**
 * `npm run bench:big-arrays -- [--baseline <revision>] [--runs 3] [--elements 1000000]`: issue 15's
 * oversized-array requests, measured. For each build (this one and, given `--baseline`, a build of
 * that revision, alternating run by run in the same invocation), a broker process with default
 * configs except `event.loop.stall.threshold.ms` 1 (so every request's synchronous work is logged)
 * receives, one at a time on a fresh connection, a request whose arrays hold about `--elements`
 * elements: CreatePartitions (assignments), CreateTopics (assignments), Fetch, ListOffsets,
 * OffsetCommit, DeleteRecords, Produce (partitions, in topics of 100) and Metadata (topics, one
 * array). Meanwhile another client sends Metadata (no topics) every 2 ms, from before the frame is
 * written until 300 ms after the request ended.
 *
 * Printed per build and request, the median over the runs of: the longest event_loop.stall the
 * broker logged for the request (its synchronous decode + handler work, ms), the other client's
 * longest Metadata round trip (how long the broker kept it waiting), how the request ended (answer or
 * closed) and the time to that end; then the ratios baseline / this build of the stall and of the
 * wait.
 */
import { Socket, connect } from 'node:net';
import { Command } from 'commander';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { encodeCreatePartitionsRequest } from '../../host/protocol/generated/create-partitions.js';
import { decodeCreateTopicsResponse, encodeCreateTopicsRequest } from '../../host/protocol/generated/create-topics.js';
import { encodeDeleteRecordsRequest } from '../../host/protocol/generated/delete-records.js';
import { encodeFetchRequest } from '../../host/protocol/generated/fetch.js';
import { encodeListOffsetsRequest } from '../../host/protocol/generated/list-offsets.js';
import { decodeMetadataResponse, encodeMetadataRequest } from '../../host/protocol/generated/metadata.js';
import { encodeOffsetCommitRequest } from '../../host/protocol/generated/offset-commit.js';
import { encodeProduceRequest } from '../../host/protocol/generated/produce.js';
import { encodeRequestHeader } from '../../host/protocol/headers.js';
import { Writer } from '../../host/protocol/writer.js';
import { BenchBroker, BENCH_HOST } from '../e2e/broker.js';
import { buildCommitSnapshot, takeBuildSnapshot, type BuildSnapshot } from '../e2e/build-snapshot.js';
import { median, ratioLines, runBench } from './build-comparison.js';
import { Connection } from './well-behaved.js';

const CLIENT_ID = 'big-arrays';
const TOPIC = 'grow';
/** node.id of a broker with default configs (the assignments name it). */
const NODE_ID = 1;
/** Elements per inner array. */
const GROUP = 100;
/** The other client's pause between two Metadata requests, ms. */
const PROBE_INTERVAL_MS = 2;

interface Case {
  readonly name: string;
  /** The whole frame, size prefix included. */
  readonly bytes: Buffer;
}

interface Outcome {
  readonly stallMs: number;
  readonly waitMs: number;
  readonly endMs: number;
  readonly ended: 'answered' | 'closed' | 'timeout';
}

function frame<T>(apiKey: number, apiVersion: number, encode: (w: Writer, version: number, m: T) => void, message: T): Buffer {
  const w = new Writer(1 << 20);
  const start = w.reserveInt32();
  encodeRequestHeader(w, { apiKey, apiVersion, correlationId: 1, clientId: CLIENT_ID });
  encode(w, apiVersion, message);
  w.patchInt32(start, w.length - start - 4);
  return Buffer.from(w.toBuffer());
}

/**
 * The requests, each naming `n` partitions (or topics, or assignments) in topics of {@link GROUP}:
 * many arrays, none over the limit alone, so a bound must walk them (one array of `n` is refused
 * from its count alone).
 */
function cases(n: number, nodeId: number): Case[] {
  const groups = Array.from({ length: Math.ceil(n / GROUP) }, (_, g) => g);
  const indexes = Array.from({ length: GROUP }, (_, i) => i);
  const name = (g: number): string => (g === 0 ? TOPIC : `${TOPIC}-${g}`);
  return [
    { name: `CreatePartitions v1, ${n} assignments`, bytes: frame(ApiKey.CreatePartitions, 1, encodeCreatePartitionsRequest, {
      topics: groups.map((g) => ({ name: name(g), count: GROUP + 1, assignments: indexes.map(() => ({ brokerIds: [nodeId] })) })), timeoutMs: 30_000, validateOnly: false }) },
    { name: `CreateTopics v4, ${n} assignments`, bytes: frame(ApiKey.CreateTopics, 4, encodeCreateTopicsRequest, {
      topics: groups.map((g) => ({ name: `big-${g}`, numPartitions: -1, replicationFactor: -1, assignments: indexes.map((partitionIndex) => ({ partitionIndex, brokerIds: [nodeId] })), configs: [] })),
      timeoutMs: 30_000, validateOnly: false }) },
    { name: `Fetch v11, ${n} partitions`, bytes: frame(ApiKey.Fetch, 11, encodeFetchRequest, {
      replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
      topics: groups.map((g) => ({ topic: name(g), partitions: indexes.map((partition) => ({ partition, currentLeaderEpoch: -1, fetchOffset: 0, logStartOffset: -1, partitionMaxBytes: 1024 })) })),
      forgottenTopicsData: [], rackId: '' }) },
    { name: `ListOffsets v3, ${n} partitions`, bytes: frame(ApiKey.ListOffsets, 3, encodeListOffsetsRequest, {
      replicaId: -1, isolationLevel: 0, topics: groups.map((g) => ({ name: name(g), partitions: indexes.map((partitionIndex) => ({ partitionIndex, timestamp: -1 })) })) }) },
    { name: `OffsetCommit v7, ${n} partitions`, bytes: frame(ApiKey.OffsetCommit, 7, encodeOffsetCommitRequest, {
      groupId: 'big-arrays-group', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null,
      topics: groups.map((g) => ({ name: name(g), partitions: indexes.map((partitionIndex) => ({ partitionIndex, committedOffset: 0, committedMetadata: null })) })) }) },
    { name: `DeleteRecords v1, ${n} partitions`, bytes: frame(ApiKey.DeleteRecords, 1, encodeDeleteRecordsRequest, {
      topics: groups.map((g) => ({ name: name(g), partitions: indexes.map((partitionIndex) => ({ partitionIndex, offset: 0 })) })), timeoutMs: 30_000 }) },
    { name: `Produce v8, ${n} partitions`, bytes: frame(ApiKey.Produce, 8, encodeProduceRequest, {
      transactionalId: null, acks: 1, timeoutMs: 30_000, topicData: groups.map((g) => ({ name: name(g), partitionData: indexes.map((index) => ({ index, records: null })) })) }) },
    { name: `Metadata v8, ${n} topics`, bytes: frame(ApiKey.Metadata, 8, encodeMetadataRequest, {
      topics: Array.from({ length: n }, (_, i) => ({ name: `t${i}` })), allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false }) },
  ];
}

/** Writes `bytes` on a fresh connection; resolves when the first response frame arrives, the broker closes, or after `timeoutMs`. */
function sendOnce(port: number, bytes: Buffer, timeoutMs: number): Promise<{ ended: Outcome['ended']; endMs: number }> {
  return new Promise((resolve) => {
    const startedMs = performance.now();
    const socket: Socket = connect({ host: BENCH_HOST, port });
    let received = 0;
    let settled = false;
    const finish = (ended: Outcome['ended']): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ended, endMs: performance.now() - startedMs });
    };
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received >= 4) finish('answered');
    });
    socket.on('close', () => finish('closed'));
    socket.on('error', () => finish('closed'));
    socket.once('connect', () => socket.write(bytes));
  });
}

async function measure(broker: BenchBroker, stalls: { api: string; durationMs: number }[], one: Case): Promise<Outcome> {
  stalls.length = 0;
  const probe = await Connection.open(BENCH_HOST, broker.port);
  let probing = true;
  let worstMs = 0;
  const probeLoop = (async () => {
    while (probing) {
      const sentMs = performance.now();
      try {
        await probe.request(ApiKey.Metadata, 8, encodeMetadataRequest, decodeMetadataResponse,
          { topics: [], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
      } catch {
        worstMs = Math.max(worstMs, performance.now() - sentMs); // no answer within the client's 10 s: stop probing
        return;
      }
      worstMs = Math.max(worstMs, performance.now() - sentMs);
      await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS));
    }
  })();
  const end = await sendOnce(broker.port, one.bytes, 120_000);
  await new Promise((resolve) => setTimeout(resolve, 300)); // work left after the answer, and the broker's log lines
  probing = false;
  await probeLoop;
  probe.close();
  return { stallMs: Math.max(0, ...stalls.map((s) => s.durationMs)), waitMs: worstMs, ...end };
}


async function runBuild(snapshot: BuildSnapshot, requests: readonly Case[]): Promise<Map<string, Outcome>> {
  const stalls: { api: string; durationMs: number }[] = [];
  const broker = await BenchBroker.start(snapshot, {
    overrides: { 'event.loop.stall.threshold.ms': 1 },
    onLine: (line) => {
      if (!line.includes('event_loop.stall') || !line.includes(CLIENT_ID)) return;
      const parsed = JSON.parse(line) as { clientId?: string; api?: string; durationMs?: number };
      if (parsed.clientId === CLIENT_ID) stalls.push({ api: parsed.api ?? '', durationMs: parsed.durationMs ?? 0 });
    },
  });
  const out = new Map<string, Outcome>();
  try {
    const admin = await Connection.open(BENCH_HOST, broker.port);
    await admin.request(ApiKey.CreateTopics, 4, encodeCreateTopicsRequest, decodeCreateTopicsResponse,
      { topics: [{ name: TOPIC, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 30_000, validateOnly: false });
    admin.close();
    for (const one of requests) out.set(one.name, await measure(broker, stalls, one));
  } finally {
    await broker.close();
  }
  return out;
}

async function main(): Promise<void> {
  const options = new Command('big-arrays')
    .option('--baseline <revision>', 'also measure a build of this revision, alternating with this build')
    .option('--runs <n>', 'runs per build', '3')
    .option('--elements <n>', 'array elements per request', '1000000')
    .parse()
    .opts<{ baseline?: string; runs: string; elements: string }>();
  const builds: { label: string; snapshot: BuildSnapshot }[] = [];
  try {
    if (options.baseline !== undefined) {
      const snapshot = buildCommitSnapshot(options.baseline);
      builds.push({ label: `baseline ${snapshot.gitCommit}`, snapshot });
    }
    const current = takeBuildSnapshot();
    builds.push({ label: `this build ${current.gitCommit}`, snapshot: current });
    const requests = cases(Number(options.elements), NODE_ID);
    const results = new Map<string, Map<string, Outcome[]>>(builds.map((b) => [b.label, new Map()]));
    for (let run = 0; run < Number(options.runs); run++) {
      const order = run % 2 === 0 ? builds : [...builds].reverse();
      for (const build of order) {
        process.stderr.write(`run ${run + 1}: ${build.label}\n`);
        for (const [name, outcome] of await runBuild(build.snapshot, requests)) {
          const list = results.get(build.label)!.get(name) ?? [];
          list.push(outcome);
          results.get(build.label)!.set(name, list);
        }
      }
    }
    const lines = [`big arrays bench (issue 15): ${options.elements} elements per request, ${options.runs} runs per build, medians`];
    for (const build of builds) {
      lines.push(`  ${build.label}:`);
      for (const [name, outcomes] of results.get(build.label)!) {
        lines.push(`    ${name}: stall ${median(outcomes.map((o) => o.stallMs)).toFixed(0)} ms, other client waited up to ${median(outcomes.map((o) => o.waitMs)).toFixed(1)} ms, ` +
          `${outcomes.map((o) => o.ended).join('/')} after ${median(outcomes.map((o) => o.endMs)).toFixed(0)} ms`);
      }
    }
    if (builds.length === 2) {
      const [base, current] = builds.map((b) => results.get(b.label)!);
      lines.push('  ratios baseline / this build (stall, other client\'s longest wait; this build\'s figure floored at 1 ms):');
      lines.push(...ratioLines(base!, current!, [(o: Outcome) => o.stallMs, (o) => o.waitMs], 1));
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    for (const build of builds) build.snapshot.remove();
  }
}

runBench(main);
