/**
 * Reads a V8 .cpuprofile (what `node --cpu-prof` writes) and ranks where the time went: self
 * time per function (file:function:line) and per file, as % of all samples, plus the inclusive
 * time of chosen functions. The format: nodes (callFrame, children, hitCount), samples (node
 * ids) and timeDeltas (µs) — Chrome DevTools' Profile type.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; scriptId: string };
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface Hotspot {
  /** `file:function:line` (file relative to dist/, node: for built-ins, (program)/(garbage collector)/(idle)). */
  name: string;
  /** Share of all non-idle samples, %. */
  percent: number;
  milliseconds: number;
}

export interface ProfileSummary {
  /** Non-idle sampled time, ms. */
  busyMs: number;
  /** Idle time, ms. */
  idleMs: number;
  selfByFunction: Hotspot[];
  selfByFile: Hotspot[];
  /** Inclusive time (the function and everything it calls) of functions matching `inclusive`. */
  inclusive: Hotspot[];
}

function shortFile(url: string): string {
  if (url === '') return '(native)';
  const dist = url.indexOf('/dist/');
  if (dist >= 0) return url.slice(dist + '/dist/'.length);
  const modules = url.indexOf('/node_modules/');
  if (modules >= 0) return url.slice(modules + 1);
  return url.replace(/^file:\/\//, '');
}

function frameName(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  if (url === '') return functionName || '(anonymous)';
  return `${shortFile(url)}:${functionName || '(anonymous)'}:${lineNumber + 1}`;
}

/** Summarizes a profile file; `inclusive` names functions (substring of file:function) whose inclusive time to report. */
export function summarizeCpuProfile(file: string, inclusive: readonly string[] = [], top = 25): ProfileSummary {
  return summarizeCpuProfiles([file], inclusive, top);
}

/** {@link summarizeCpuProfile} of several profiles taken together (e.g. one per measured turn). */
export function summarizeCpuProfiles(files: readonly string[], inclusive: readonly string[] = [], top = 25): ProfileSummary {
  let busy = 0;
  let idle = 0;
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  const inclusiveTotals = new Map<string, number>(inclusive.map((name) => [name, 0]));
  for (const file of files) {
    const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
    const byId = new Map(profile.nodes.map((node) => [node.id, node]));
    const parent = new Map<number, number>();
    for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
    const selfMicros = new Map<number, number>();
    for (let i = 0; i < profile.samples.length; i++) {
      const id = profile.samples[i]!;
      selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
    }
    for (const [id, micros] of selfMicros) {
      const node = byId.get(id)!;
      if (node.callFrame.functionName === '(idle)') {
        idle += micros;
        continue;
      }
      busy += micros;
      const name = frameName(node);
      byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
      const fileName = node.callFrame.url === '' ? name : shortFile(node.callFrame.url);
      byFile.set(fileName, (byFile.get(fileName) ?? 0) + micros);
      // Inclusive: count this sample once for every wanted function on its stack.
      const seen = new Set<string>();
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        const frame = frameName(byId.get(at)!);
        for (const wanted of inclusive) {
          if (!seen.has(wanted) && frame.includes(wanted)) {
            seen.add(wanted);
            inclusiveTotals.set(wanted, inclusiveTotals.get(wanted)! + micros);
          }
        }
      }
    }
  }
  const rank = (totals: Map<string, number>, limit: number): Hotspot[] => [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([name, micros]) => ({ name, percent: (micros / busy) * 100, milliseconds: micros / 1000 }));
  return {
    busyMs: busy / 1000,
    idleMs: idle / 1000,
    selfByFunction: rank(byFunction, top),
    selfByFile: rank(byFile, top),
    inclusive: rank(inclusiveTotals, inclusive.length),
  };
}

/** Prints a summary as Markdown-ish lines. */
export function formatProfileSummary(title: string, summary: ProfileSummary): string {
  const lines = [`### ${title}`, `busy ${summary.busyMs.toFixed(0)} ms, idle ${summary.idleMs.toFixed(0)} ms (percentages are of busy time)`, '', 'self time by function:'];
  for (const h of summary.selfByFunction) lines.push(`  ${h.percent.toFixed(1).padStart(5)} %  ${h.milliseconds.toFixed(0).padStart(6)} ms  ${h.name}`);
  lines.push('', 'self time by file:');
  for (const h of summary.selfByFile) lines.push(`  ${h.percent.toFixed(1).padStart(5)} %  ${h.milliseconds.toFixed(0).padStart(6)} ms  ${h.name}`);
  if (summary.inclusive.length > 0) {
    lines.push('', 'inclusive time (function and callees):');
    for (const h of summary.inclusive) lines.push(`  ${h.percent.toFixed(1).padStart(5)} %  ${h.milliseconds.toFixed(0).padStart(6)} ms  ${h.name}`);
  }
  return lines.join('\n');
}
