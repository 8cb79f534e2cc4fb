/**
 * The suite's output: a plain-text table per workload on stdout (every figure the median of the
 * runs with min–max), ratios against the baselines and peers of the same run, the issue-5
 * targets with their measured ratio, and a JSON file under bench/results/.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Results, Row, Sample } from './measurement.js';
import { summarize, type Summary } from './stats.js';

export interface Environment {
  date: string;
  tributary: string;
  node: string;
  cpu: string;
  cores: number;
  kernel: string;
  kcat: string | null;
  natsServer: string | null;
  redisServer: string | null;
  runs: number;
  quick: boolean;
}

type Figure = (sample: Sample) => number | undefined;

const FIGURES: { header: string; figure: Figure; format: (value: number) => string }[] = [
  { header: 'records/s', figure: (s) => s.recordsPerSecond, format: compact },
  { header: 'MB/s', figure: (s) => s.megabytesPerSecond, format: (v) => v.toFixed(1) },
  { header: 'p50 ms', figure: (s) => s.latencyMs?.p50, format: milliseconds },
  { header: 'p99 ms', figure: (s) => s.latencyMs?.p99, format: milliseconds },
  { header: 'p99.9 ms', figure: (s) => s.latencyMs?.p999, format: milliseconds },
  { header: 'max ms', figure: (s) => s.latencyMs?.max, format: milliseconds },
  { header: 'ready ms', figure: (s) => s.readyMs, format: (v) => v.toFixed(0) },
  { header: 'idle RSS MB', figure: (s) => (s.idleRssBytes === undefined ? undefined : s.idleRssBytes / 1e6), format: (v) => v.toFixed(1) },
  { header: 'server CPU s', figure: (s) => s.serverCpuSeconds, format: (v) => v.toFixed(2) },
  { header: 'peak RSS MB', figure: (s) => (s.serverPeakRssBytes === undefined ? undefined : s.serverPeakRssBytes / 1e6), format: (v) => v.toFixed(0) },
];

function compact(value: number): string {
  if (value >= 1e6) return `${(value / 1e6).toFixed(2)}M`;
  if (value >= 1e3) return `${(value / 1e3).toFixed(1)}k`;
  return value.toFixed(0);
}

function milliseconds(value: number): string {
  return value < 10 ? value.toFixed(2) : value.toFixed(1);
}

export function summaryOf(row: Row, figure: Figure): Summary {
  return summarize(row.samples.map((sample) => figure(sample) ?? Number.NaN));
}

function cell(summary: Summary, format: (value: number) => string): string {
  if (summary.runs === 0) return '';
  if (summary.runs === 1 || summary.min === summary.max) return format(summary.median);
  return `${format(summary.median)} (${format(summary.min)}–${format(summary.max)})`;
}

const megabytes: Figure = (s) => s.megabytesPerSecond;

function medianOf(row: Row | undefined, figure: Figure): number {
  return row === undefined ? Number.NaN : summaryOf(row, figure).median;
}

function ratioText(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(2)}×` : '';
}

function baselineRow(results: Results, workload: string, phase: 'transfer' | 'write'): Row | undefined {
  return results.rows.find((row) => row.workload === workload && row.system === 'baseline' && row.phase === phase);
}

function renderTable(headers: string[], lines: string[][]): string {
  const widths = headers.map((header, i) => Math.max(header.length, ...lines.map((line) => (line[i] ?? '').length)));
  const format = (cells: string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [format(headers), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...lines.map(format)].join('\n');
}

/** The table of one workload: only the columns some row fills, plus ÷TCP and ÷fs for throughput rows. */
export function workloadTable(results: Results, workload: string): string {
  const rows = results.rows.filter((row) => row.workload === workload);
  const figures = FIGURES.filter((f) => rows.some((row) => summaryOf(row, f.figure).runs > 0));
  const tcp = medianOf(baselineRow(results, workload, 'transfer'), megabytes);
  const fs = medianOf(baselineRow(results, workload, 'write'), megabytes);
  const withRatios = Number.isFinite(tcp) || Number.isFinite(fs);
  const headers = ['system', 'generator', 'phase', 'durability', ...figures.map((f) => f.header), ...(withRatios ? ['÷ loopback TCP', '÷ fs.write'] : [])];
  const lines = rows.map((row) => {
    const mb = medianOf(row, megabytes);
    return [row.system, row.generator, row.phase, row.durability, ...figures.map((f) => cell(summaryOf(row, f.figure), f.format)),
      ...(withRatios ? (row.system === 'baseline' ? ['', ''] : [ratioText(mb / tcp), ratioText(mb / fs)]) : [])];
  });
  const notes = rows.flatMap((row) => row.notes.map((note) => `  note (${row.system}, ${row.generator}, ${row.phase}): ${note}`));
  return [renderTable(headers, lines), ...notes].join('\n');
}

export interface Target {
  target: string;
  measured: string;
  /** true / false, or null when it could not be measured in this run. */
  met: boolean | null;
}

function tributaryRow(results: Results, workload: string, phase: string): Row | undefined {
  return results.rows.find((row) => row.workload === workload && row.system === 'tributary' && row.phase.startsWith(phase) && row.generator === 'kcat')
    ?? results.rows.find((row) => row.workload === workload && row.system === 'tributary' && row.phase.startsWith(phase));
}

/** Issue 5's performance targets with the ratios of this run. */
export function targets(results: Results): Target[] {
  const list: Target[] = [];
  const ratio = (target: string, value: number, threshold: number, unit = '×', higherIsBetter = true): void => {
    list.push({
      target,
      measured: Number.isFinite(value) ? `${unit === '×' ? value.toFixed(2) : value.toFixed(value < 10 ? 2 : 0)}${unit}` : 'not measured',
      met: Number.isFinite(value) ? (higherIsBetter ? value >= threshold : value < threshold) : null,
    });
  };
  const tcpW2 = medianOf(baselineRow(results, 'W2', 'transfer'), megabytes);
  ratio('W2 producer MB/s ≥ 0.5 × loopback TCP', medianOf(tributaryRow(results, 'W2', 'produce'), megabytes) / tcpW2, 0.5);
  ratio('W2 consumer MB/s ≥ 0.8 × loopback TCP', medianOf(tributaryRow(results, 'W2', 'consume'), megabytes) / tcpW2, 0.8);
  const w1 = medianOf(tributaryRow(results, 'W1', 'produce'), (s) => s.recordsPerSecond);
  const peer = (system: string): number => medianOf(bestPeerRow(results, 'W1', system, 'produce'), (s) => s.recordsPerSecond);
  ratio('W1 producer records/s ≥ 2 × NATS JetStream', w1 / peer('nats-jetstream'), 2);
  ratio('W1 producer records/s ≥ 1 × Redis Streams', w1 / peer('redis-streams'), 1);
  const w4 = tributaryRow(results, 'W4', 'end-to-end');
  ratio('W4 p99 < 2 ms', medianOf(w4, (s) => s.latencyMs?.p99), 2, ' ms', false);
  ratio('W4 p99.9 < 5 ms', medianOf(w4, (s) => s.latencyMs?.p999), 5, ' ms', false);
  const empty = tributaryRow(results, 'W6', 'start-up, empty');
  ratio('W6 ready < 300 ms', medianOf(empty, (s) => s.readyMs), 300, ' ms', false);
  ratio('W6 idle RSS < 80 MB', medianOf(empty, (s) => (s.idleRssBytes === undefined ? undefined : s.idleRssBytes / 1e6)), 80, ' MB', false);
  const many = results.rows.find((row) => row.workload === 'W6' && row.system === 'tributary' && /partitions/.test(row.phase));
  ratio(`W6 ready with ${many?.phase.replace('start-up, ', '') ?? '10000 partitions'} < 3 s`, medianOf(many, (s) => s.readyMs), 3000, ' ms', false);
  return list;
}

/** The peer's fastest row (by median records/s, or lowest p99 for W4) for a workload and phase. */
function bestPeerRow(results: Results, workload: string, system: string, phase: string): Row | undefined {
  const candidates = results.rows.filter((r) => r.workload === workload && r.system === system && r.phase === phase);
  const score = (row: Row): number => (workload === 'W4' ? -medianOf(row, (s) => s.latencyMs?.p99) : medianOf(row, (s) => s.recordsPerSecond));
  return candidates.sort((a, b) => (score(b) || -Infinity) - (score(a) || -Infinity))[0];
}

/** Ratios of Tributary (kcat generator) to each peer, per workload and phase, by records/s. */
export function peerRatios(results: Results): string[] {
  const lines: string[] = [];
  for (const row of results.rows.filter((r) => r.system === 'tributary' && (r.generator === 'kcat' || r.workload === 'W4'))) {
    for (const peerName of ['nats-jetstream', 'redis-streams'] as const) {
      const peer = bestPeerRow(results, row.workload, peerName, row.phase);
      if (peer === undefined) continue;
      const figure: Figure = row.workload === 'W4' ? (s) => s.latencyMs?.p99 : (s) => s.recordsPerSecond;
      const value = medianOf(row, figure) / medianOf(peer, figure);
      const what = row.workload === 'W4' ? 'p99 latency (lower is better)' : 'records/s';
      lines.push(`${row.workload} ${row.phase}: Tributary (${row.generator}) ÷ ${peerName} (${peer.generator}) = ${ratioText(value)} ${what}; durability [${row.durability}] vs [${peer.durability}]`);
    }
  }
  return lines;
}

/** Prints everything on stdout. */
export function printReport(results: Results, environment: Environment, workloads: readonly string[]): void {
  const out: string[] = [];
  out.push(`# Tributary end-to-end benchmark — ${environment.date}`);
  out.push(`tributary ${environment.tributary}; node ${environment.node}; ${environment.cpu} × ${environment.cores}; ${environment.kernel}`);
  out.push(`generators/peers: ${environment.kcat ?? 'kcat: not installed'}; ${environment.natsServer ?? 'nats-server: not run'}; ${environment.redisServer ?? 'redis-server: not run'}`);
  out.push(`each figure: median (min–max) of ${environment.runs} run(s)${environment.quick ? '; --quick (reduced sizes: not comparable with full runs)' : ''}; MB = 10^6 payload bytes`);
  for (const workload of workloads) {
    if (!results.rows.some((row) => row.workload === workload)) continue;
    out.push('', `## ${workload}`, workloadTable(results, workload));
  }
  const ratios = peerRatios(results);
  if (ratios.length > 0) out.push('', '## Tributary ÷ peers', ...ratios);
  out.push('', '## Issue 5 targets', renderTable(['target', 'measured', 'met'], targets(results).map((t) => [t.target, t.measured, t.met === null ? 'n/a' : t.met ? 'yes' : 'NO'])));
  if (results.notes.length > 0) out.push('', '## Notes', ...results.notes.map((note) => `- ${note}`));
  process.stdout.write(`${out.join('\n')}\n`);
}

/** Writes bench/results/e2e-<date>.json and returns its path. */
export function writeJson(results: Results, environment: Environment, directory: string): string {
  mkdirSync(directory, { recursive: true });
  const file = path.join(directory, `e2e-${environment.date.replace(/[:.]/g, '-')}.json`);
  const rows = results.rows.map((row) => ({
    ...row,
    summary: Object.fromEntries(FIGURES.map((f) => [f.header, summaryOf(row, f.figure)]).filter(([, s]) => (s as Summary).runs > 0)),
  }));
  writeFileSync(file, `${JSON.stringify({ environment, rows, peerRatios: peerRatios(results), targets: targets(results), notes: results.notes }, null, 2)}\n`);
  return file;
}
