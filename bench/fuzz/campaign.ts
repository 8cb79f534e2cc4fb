/**
 * A fuzz campaign (issue 15): a broker process (from a build snapshot, default configs but the
 * log level), a well-behaved client producing and reading back one record per round in the main
 * thread (well-behaved.ts), and the fuzzer in a worker thread (fuzz-worker.ts) sending `frames`
 * fuzzed frames over `lanes` connections. After two windows before any fuzzing ('base'), the
 * fuzzer runs in alternating windows: `offWindowMs` paused ('off'), `windowMs` sending ('on'), so
 * the well-behaved client's latency with and without the fuzzer is measured in the same run, under
 * the same machine load, interleaved. A short idle gap after each switch is not counted.
 *
 * Checked: the broker never exits (a crash), logs no error or fatal line (a handler bug), the
 * well-behaved client's requests never fail or time out, every acknowledged record reads back at
 * its offset, and p99 latency 'on' / p99 'off' stays at or below `maxRatio`. Reported besides:
 * frames by outcome, frames per second, the broker's RSS (peak and at the end), its
 * event_loop.stall lines, and why it closed or refused connections and refused requests, by
 * reason (closure-tally.ts; also per progress line, so a change in the mix shows when it began).
 */
import { Worker } from 'node:worker_threads';
import { createApiRegistry } from '../../host/api/api-handlers.js';
import { BenchBroker, BENCH_HOST } from '../e2e/broker.js';
import type { BuildSnapshot } from '../e2e/build-snapshot.js';
import { type ClosureCounts, ClosureTally, eventCount, topReasons } from './closure-tally.js';
import type { LaneCounts } from './fuzz-lanes.js';
import type { FuzzWorkerData } from './fuzz-worker.js';
import { WellBehavedClient } from './well-behaved.js';

export interface CampaignOptions {
  readonly frames: number;
  readonly seed: number;
  readonly lanes: number;
  /** Frames per second over all lanes while 'on'; 0 for unthrottled. */
  readonly rate: number;
  readonly answerWaitMs: number;
  readonly windowMs: number;
  /** Length of each fuzzer-off window; default `windowMs`. */
  readonly offWindowMs?: number;
  /** The well-behaved client's round period (ms). */
  readonly intervalMs: number;
  readonly maxRatio: number;
  /** Broker configs besides the harness's (log.dirs, listeners, log.level=warn). */
  readonly overrides?: Record<string, string | number>;
  readonly progress?: (line: string) => void;
  /** Extra node flags of the broker process (e.g. --cpu-prof). */
  readonly brokerNodeFlags?: readonly string[];
}

export interface LatencySummary {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

export interface CampaignResult {
  seed: number;
  counts: LaneCounts;
  lastIndex: number;
  elapsedMs: number;
  /** Milliseconds the fuzzer was sending. */
  onMs: number;
  crashed: string | null;
  errorLines: string[];
  stallLines: number;
  /** event_loop.stall lines by what ran (API or 'unattributed'): count and longest, ms. */
  stalls: Record<string, { count: number; maxMs: number }>;
  /** The broker's connection.closed, connection.refused and request.refused lines by grouped reason. */
  closures: ClosureCounts;
  /** The longest event_loop.stall lines (at most {@link LONGEST_STALLS_KEPT}), longest first. */
  longestStalls: string[];
  acknowledged: number;
  lost: number;
  changed: number;
  wellBehavedFailures: string[];
  /** Before the fuzzer ever ran (2 windows). */
  base: LatencySummary;
  /** In the windows between fuzzing (after the first): the same machine load, interleaved. */
  off: LatencySummary;
  on: LatencySummary;
  /** p99 on / p99 off: the campaign's figure. */
  ratio: number;
  /** p99 on / p99 base. */
  baseRatio: number;
  startRssBytes: number;
  peakRssBytes: number;
  endRssBytes: number;
  passed: boolean;
}

const WARM_UP_MS = 3_000;
/** event_loop.stall lines kept whole for the report (the longest ones). */
export const LONGEST_STALLS_KEPT = 5;
const SWITCH_GAP_MS = 250;
const GOOD_TOPIC = 'well-behaved-client-topic';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** p50, p99 (nearest rank) and max of latencies in ms. */
export function summarizeLatencies(values: readonly number[]): LatencySummary {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (q: number): number => sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  return { count: sorted.length, p50: rank(0.5), p99: rank(0.99), max: sorted.length === 0 ? Number.NaN : sorted[sorted.length - 1]! };
}

/** Runs one campaign against a broker started from `snapshot`; never throws for a failed check (see `passed`). */
export async function runFuzzCampaign(snapshot: BuildSnapshot, options: CampaignOptions): Promise<CampaignResult> {
  const errorLines: string[] = [];
  let stallLines = 0;
  const stalls: Record<string, { count: number; maxMs: number }> = {};
  const closures = new ClosureTally();
  const longestStalls: { durationMs: number; line: string }[] = [];
  const broker = await BenchBroker.start(snapshot, {
    overrides: { ...options.overrides },
    ...(options.brokerNodeFlags ? { nodeFlags: [...options.brokerNodeFlags] } : {}),
    onLine: (line) => {
      closures.onLine(line);
      if (/"level":"(error|fatal)"/.test(line)) errorLines.push(line.slice(0, 600));
      if (line.includes('"event_loop.stall"')) {
        stallLines++;
        const stall = JSON.parse(line) as { api?: string; durationMs?: number };
        const entry = (stalls[stall.api ?? 'unattributed'] ??= { count: 0, maxMs: 0 });
        entry.count++;
        entry.maxMs = Math.max(entry.maxMs, stall.durationMs ?? 0);
        longestStalls.push({ durationMs: stall.durationMs ?? 0, line: line.slice(0, 800) });
        longestStalls.sort((a, b) => b.durationMs - a.durationMs);
        longestStalls.length = Math.min(longestStalls.length, LONGEST_STALLS_KEPT);
      }
    },
  });
  const startedAtMs = performance.now();
  let peakRssBytes = 0;
  const rssTimer = setInterval(() => {
    peakRssBytes = Math.max(peakRssBytes, broker.process.stats().rssBytes || 0);
  }, 500);
  let counts: LaneCounts = { sent: 0, answered: 0, closed: 0, unanswered: 0, refused: 0, connections: 0 };
  let lastIndex = -1;
  let done = false;
  const data: FuzzWorkerData = {
    host: BENCH_HOST, port: broker.port, lanes: options.lanes, answerWaitMs: options.answerWaitMs, rate: options.rate,
    seed: options.seed, frames: options.frames, served: createApiRegistry().apiVersions(), paused: true,
  };
  const worker = new Worker(new URL('./fuzz-worker.js', import.meta.url), { workerData: data });
  const finished = new Promise<void>((resolve) => {
    worker.on('message', (message: { type: string; counts: LaneCounts; lastIndex: number }) => {
      counts = message.counts;
      lastIndex = message.lastIndex;
      if (message.type === 'done') {
        done = true;
        resolve();
      }
    });
    worker.on('error', (error) => {
      errorLines.push(`fuzz worker failed: ${String(error)}`);
      done = true;
      resolve();
    });
  });
  const client = await WellBehavedClient.start(BENCH_HOST, broker.port, GOOD_TOPIC, options.intervalMs);
  await sleep(WARM_UP_MS);
  const startRssBytes = broker.process.stats().rssBytes;
  client.phase = 'base';
  await sleep(2 * options.windowMs);
  let onMs = 0;
  let crashed: string | null = null;
  let lastReportMs = performance.now();
  while (!done) {
    client.phase = 'off';
    await sleep(options.offWindowMs ?? options.windowMs);
    client.phase = 'idle';
    await sleep(SWITCH_GAP_MS);
    const onAtMs = performance.now();
    worker.postMessage('resume');
    client.phase = 'on';
    await Promise.race([sleep(options.windowMs), finished]);
    client.phase = 'idle';
    worker.postMessage('pause');
    onMs += performance.now() - onAtMs;
    await sleep(SWITCH_GAP_MS);
    if (!broker.process.running) {
      crashed = `the broker exited after frame ${lastIndex} (seed ${options.seed}):\n${broker.process.outputTail()}`;
      worker.postMessage('stop');
      break;
    }
    if (performance.now() - lastReportMs > 10_000) {
      lastReportMs = performance.now();
      options.progress?.(progressLine(counts, onMs, client, broker.process.stats().rssBytes, closures.recent()));
    }
  }
  if (crashed === null) {
    client.phase = 'off';
    await sleep(options.windowMs);
  }
  client.phase = 'idle';
  await client.stop();
  clearInterval(rssTimer);
  const endRssBytes = broker.process.stats().rssBytes;
  let readBack = { acknowledged: client.acknowledgedCount, lost: Number.NaN, changed: Number.NaN };
  if (crashed === null) {
    try {
      readBack = await client.readBack();
    } catch (error) {
      errorLines.push(`read-back failed: ${String(error)}`);
    }
  }
  client.close();
  await worker.terminate();
  await broker.close();
  const base = summarizeLatencies(client.latencies.base);
  const off = summarizeLatencies(client.latencies.off);
  const on = summarizeLatencies(client.latencies.on);
  const ratio = on.p99 / off.p99;
  const wellBehavedFailures = client.failures.map((failure) => `${failure.phase}: ${failure.error}`);
  const passed = crashed === null && errorLines.length === 0 && readBack.lost === 0 && readBack.changed === 0 &&
    wellBehavedFailures.length === 0 && ratio <= options.maxRatio && counts.sent >= options.frames;
  return {
    seed: options.seed, counts, lastIndex, elapsedMs: performance.now() - startedAtMs, onMs, crashed, errorLines, stallLines, stalls,
    closures: closures.total,
    longestStalls: longestStalls.map((stall) => stall.line),
    acknowledged: readBack.acknowledged, lost: readBack.lost, changed: readBack.changed, wellBehavedFailures, base, off, on, ratio,
    baseRatio: on.p99 / base.p99,
    startRssBytes, peakRssBytes, endRssBytes, passed,
  };
}

function progressLine(counts: LaneCounts, onMs: number, client: WellBehavedClient, rssBytes: number, recent: ClosureCounts): string {
  const off = summarizeLatencies(client.latencies.off.slice(-5000));
  const on = summarizeLatencies(client.latencies.on.slice(-5000));
  return `${counts.sent} frames (${Math.round(counts.sent / (onMs / 1000))}/s while on; answered ${counts.answered}, closed ${counts.closed}, ` +
    `unanswered ${counts.unanswered}, refused ${counts.refused}), recent p99 off ${off.p99.toFixed(2)} ms / on ${on.p99.toFixed(2)} ms, ` +
    `broker RSS ${(rssBytes / 2 ** 20).toFixed(0)} MiB; since the last line the broker closed ${eventCount(recent, 'connection.closed')} ` +
    `connections (${topReasons(recent, 'connection.closed', 2) || '-'}) and refused ${eventCount(recent, 'connection.refused')} ` +
    `(${topReasons(recent, 'connection.refused', 2) || '-'})`;
}

/** The broker's closures and refusals, each event with its 8 most frequent grouped reasons. */
function closureLines(closures: ClosureCounts): string[] {
  return [
    ['connection.closed', 'connections the broker closed'],
    ['connection.refused', 'connections the broker refused at accept'],
    ['request.refused', 'requests the broker refused'],
  ].map(([event, title]) => {
    const reasons = Object.entries(closures[event!] ?? {}).sort((a, b) => b[1] - a[1]);
    return `  ${title} (${event}): ${eventCount(closures, event!)}${reasons.slice(0, 8).map(([reason, n]) => `\n    ${n} × ${reason}`).join('')}` +
      (reasons.length > 8 ? `\n    … ${reasons.length - 8} more reasons` : '');
  });
}

const ms = (value: number): string => `${value.toFixed(2)} ms`;
const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

/** The report a person reads (and a closing note quotes). */
export function formatCampaign(result: CampaignResult, options: CampaignOptions): string {
  const c = result.counts;
  return [
    `fuzz campaign, seed ${result.seed}: ${c.sent} frames in ${(result.elapsedMs / 1000).toFixed(0)} s ` +
      `(${Math.round(c.sent / (result.onMs / 1000))} frames/s while on, ${options.lanes} lanes, rate ${options.rate === 0 ? 'unthrottled' : `${options.rate}/s`})`,
    `  outcomes: answered ${c.answered}, closed by the broker ${c.closed}, unanswered after ${options.answerWaitMs} ms ${c.unanswered}, ` +
      `connect refused ${c.refused}; ${c.connections} connections opened`,
    ...closureLines(result.closures),
    `  crashes: ${result.crashed === null ? 0 : 1}${result.crashed === null ? '' : `\n${result.crashed}`}`,
    `  broker error/fatal log lines: ${result.errorLines.length}${result.errorLines.slice(0, 5).map((line) => `\n    ${line}`).join('')}`,
    `  event_loop.stall lines: ${result.stallLines}${Object.entries(result.stalls).map(([api, s]) => ` ${api} ${s.count}x (max ${s.maxMs} ms)`).join(',')}` +
      result.longestStalls.map((line) => `\n    ${line}`).join(''),
    `  acknowledged records: ${result.acknowledged}, lost ${result.lost}, changed ${result.changed}`,
    `  well-behaved request failures: ${result.wellBehavedFailures.length}${result.wellBehavedFailures.slice(0, 5).map((line) => `\n    ${line}`).join('')}`,
    `  well-behaved latency before fuzzing:  p50 ${ms(result.base.p50)}, p99 ${ms(result.base.p99)}, max ${ms(result.base.max)} (${result.base.count} requests)`,
    `  well-behaved latency without fuzzer: p50 ${ms(result.off.p50)}, p99 ${ms(result.off.p99)}, max ${ms(result.off.max)} (${result.off.count} requests)`,
    `  well-behaved latency with fuzzer:    p50 ${ms(result.on.p50)}, p99 ${ms(result.on.p99)}, max ${ms(result.on.max)} (${result.on.count} requests)`,
    `  p99 ratio with / without: ${result.ratio.toFixed(2)} (bound ${options.maxRatio}); with / before fuzzing: ${result.baseRatio.toFixed(2)}`,
    `  broker RSS: ${mib(result.startRssBytes)} after warm-up, peak ${mib(result.peakRssBytes)}, ${mib(result.endRssBytes)} at the end`,
    `  verdict: ${result.passed ? 'PASS' : 'FAIL'}`,
  ].join('\n');
}
