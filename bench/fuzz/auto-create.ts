/**
 * `npm run bench:auto-create -- [--baseline <revision>] [--runs 1] [--topics 99999]`: issue 15's
 * auto-creation requests, measured. For each build (this one and, given `--baseline`, a build of
 * that revision, alternating run by run in the same invocation), a fresh broker process with
 * default configs receives one request on a fresh connection naming `--topics` unknown topics:
 * a Metadata v1 (auto-creation implied, as kafka-python sends it), then, on another fresh broker,
 * a Produce v7 with one small batch per topic (at most 49,999 topics: request.max.array.elements).
 * Meanwhile another client sends Metadata (no topics) every 20 ms. `--cases` picks the requests.
 *
 * Printed per build and request, the median over the runs of: the time to the answer, the broker's
 * CPU seconds and peak resident set (VmHWM) while it ran, the topics that exist afterwards, and the
 * other client's longest Metadata round trip; then the ratios baseline / this build.
 */
import { connect } from 'node:net';
import { Command } from 'commander';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { decodeMetadataResponse, encodeMetadataRequest } from '../../host/protocol/generated/metadata.js';
import { encodeProduceRequest } from '../../host/protocol/generated/produce.js';
import { encodeRequestHeader } from '../../host/protocol/headers.js';
import { Writer } from '../../host/protocol/writer.js';
import { buildRecordBatch } from '../../host/record/batch-builder.js';
import { BenchBroker, BENCH_HOST } from '../e2e/broker.js';
import { buildCommitSnapshot, takeBuildSnapshot, type BuildSnapshot } from '../e2e/build-snapshot.js';
import { median, ratioLines, runBench } from './build-comparison.js';
import { Connection } from './well-behaved.js';

const CLIENT_ID = 'auto-create-bench';
/** The other client's pause between two Metadata requests, ms. */
const PROBE_INTERVAL_MS = 20;
/** How long one request may take before it counts as unanswered, ms (the baseline took ~160 s). */
const ANSWER_TIMEOUT_MS = 600_000;

interface Case {
  readonly name: string;
  readonly bytes: Buffer;
}

interface Outcome {
  readonly answered: boolean;
  readonly answerMs: number;
  readonly cpuSeconds: number;
  readonly peakRssMiB: number;
  readonly topicsAfter: number;
  readonly waitMs: number;
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
 * The Produce names at most {@link PRODUCE_MAX_TOPICS} topics: one topic and one partition element
 * each, so that it stays under request.max.array.elements (100,000), which closes the connection
 * of a larger request before it is decoded.
 */
const PRODUCE_MAX_TOPICS = 49_999;

function cases(n: number, wanted: readonly string[]): Case[] {
  const names = Array.from({ length: n }, (_, i) => `unknown-${i}`);
  const produceNames = names.slice(0, PRODUCE_MAX_TOPICS);
  const records = buildRecordBatch({ records: [{ key: null, value: Buffer.from('x') }] });
  const all = [
    { key: 'metadata', name: `Metadata v1, ${n} unknown topics`, bytes: frame(ApiKey.Metadata, 1, encodeMetadataRequest, { topics: names.map((name) => ({ name })) }) },
    { key: 'produce', name: `Produce v7, ${produceNames.length} unknown topics`, bytes: frame(ApiKey.Produce, 7, encodeProduceRequest, {
      transactionalId: null, acks: 1, timeoutMs: 30_000, topicData: produceNames.map((name) => ({ name, partitionData: [{ index: 0, records }] })) }) },
  ];
  return all.filter((one) => wanted.includes(one.key));
}

/** Writes `bytes` on a fresh connection; resolves when the whole response frame arrived, the broker closed, or after the timeout. */
function sendOnce(port: number, bytes: Buffer): Promise<{ answered: boolean; answerMs: number }> {
  return new Promise((resolve) => {
    const startedMs = performance.now();
    const socket = connect({ host: BENCH_HOST, port });
    let received = 0;
    let expected = -1;
    let settled = false;
    const finish = (answered: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ answered, answerMs: performance.now() - startedMs });
    };
    const timer = setTimeout(() => finish(false), ANSWER_TIMEOUT_MS);
    socket.on('data', (chunk: Buffer) => {
      if (expected < 0 && received === 0 && chunk.length >= 4) expected = chunk.readInt32BE(0) + 4;
      received += chunk.length;
      if (expected >= 0 && received >= expected) finish(true);
    });
    socket.on('close', () => finish(false));
    socket.on('error', () => finish(false));
    socket.once('connect', () => socket.write(bytes));
  });
}

async function measure(snapshot: BuildSnapshot, one: Case): Promise<Outcome> {
  const broker = await BenchBroker.start(snapshot);
  try {
    const before = broker.process.stats();
    const probe = await Connection.open(BENCH_HOST, broker.port);
    let probing = true;
    let worstMs = 0;
    const probeLoop = (async () => {
      while (probing) {
        const sentMs = performance.now();
        try {
          await probe.request(ApiKey.Metadata, 1, encodeMetadataRequest, decodeMetadataResponse, { topics: [] });
        } catch {
          worstMs = Math.max(worstMs, performance.now() - sentMs); // no answer within the client's timeout
          return;
        }
        worstMs = Math.max(worstMs, performance.now() - sentMs);
        await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS));
      }
    })();
    const end = await sendOnce(broker.port, one.bytes);
    probing = false;
    await probeLoop;
    probe.close();
    const after = broker.process.stats();
    const admin = await Connection.open(BENCH_HOST, broker.port);
    const all = await admin.request(ApiKey.Metadata, 1, encodeMetadataRequest, decodeMetadataResponse, { topics: null });
    admin.close();
    return {
      ...end,
      cpuSeconds: after.cpuSeconds - before.cpuSeconds,
      peakRssMiB: after.peakRssBytes / 2 ** 20,
      topicsAfter: all.topics.filter((topic) => !topic.name.startsWith('__')).length,
      waitMs: worstMs,
    };
  } finally {
    await broker.close();
  }
}


async function main(): Promise<void> {
  const options = new Command('auto-create')
    .option('--baseline <revision>', 'also measure a build of this revision, alternating with this build')
    .option('--runs <n>', 'runs per build', '1')
    .option('--topics <n>', 'unknown topics per request (the Produce names at most 49,999)', '99999')
    .option('--cases <list>', 'which requests, comma-separated: metadata, produce', 'metadata,produce')
    .parse()
    .opts<{ baseline?: string; runs: string; topics: string; cases: string }>();
  const builds: { label: string; snapshot: BuildSnapshot }[] = [];
  try {
    if (options.baseline !== undefined) {
      const snapshot = buildCommitSnapshot(options.baseline);
      builds.push({ label: `baseline ${snapshot.gitCommit}`, snapshot });
    }
    const current = takeBuildSnapshot();
    builds.push({ label: `this build ${current.gitCommit}`, snapshot: current });
    const requests = cases(Number(options.topics), options.cases.split(','));
    const results = new Map<string, Map<string, Outcome[]>>(builds.map((b) => [b.label, new Map()]));
    for (let run = 0; run < Number(options.runs); run++) {
      const order = run % 2 === 0 ? builds : [...builds].reverse();
      for (const build of order) {
        for (const one of requests) {
          process.stderr.write(`run ${run + 1}: ${build.label}: ${one.name}\n`);
          const outcome = await measure(build.snapshot, one);
          const list = results.get(build.label)!.get(one.name) ?? [];
          list.push(outcome);
          results.get(build.label)!.set(one.name, list);
        }
      }
    }
    const lines = [`auto-create bench (issue 15): ${options.topics} unknown topics per request, ${options.runs} run(s) per build, medians`];
    for (const build of builds) {
      lines.push(`  ${build.label}:`);
      for (const [name, outcomes] of results.get(build.label)!) {
        const m = (f: (o: Outcome) => number): number => median(outcomes.map(f));
        lines.push(`    ${name}: ${outcomes.map((o) => (o.answered ? 'answered' : 'unanswered')).join('/')} after ${m((o) => o.answerMs).toFixed(0)} ms, ` +
          `broker CPU ${m((o) => o.cpuSeconds).toFixed(1)} s, peak RSS ${m((o) => o.peakRssMiB).toFixed(0)} MiB, ${m((o) => o.topicsAfter)} topics after, ` +
          `other client waited up to ${m((o) => o.waitMs).toFixed(0)} ms`);
      }
    }
    if (builds.length === 2) {
      const [base, current] = builds.map((b) => results.get(b.label)!);
      lines.push('  ratios baseline / this build (time to answer, broker CPU, peak RSS, other client\'s longest wait):');
      lines.push(...ratioLines(base!, current!, [(o: Outcome) => o.answerMs, (o) => o.cpuSeconds, (o) => o.peakRssMiB, (o) => o.waitMs], 1e-3));
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    for (const build of builds) build.snapshot.remove();
  }
}

runBench(main);
