/**
 * CPU time and memory of a process from Linux's /proc (proc(5)): `utime` + `stime` (fields 14
 * and 15 of /proc/<pid>/stat, in clock ticks) and `VmHWM` / `VmRSS` (peak and current resident
 * set, kB) from /proc/<pid>/status. Linux only; elsewhere every figure is NaN.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface ProcStats {
  /** User + system CPU time since the process started, seconds. */
  cpuSeconds: number;
  /** Peak resident set size (VmHWM), bytes. */
  peakRssBytes: number;
  /** Current resident set size (VmRSS), bytes. */
  rssBytes: number;
}

let clockTicksPerSecond: number | undefined;

/** `getconf CLK_TCK` (almost always 100), read once. */
function clockTicks(): number {
  if (clockTicksPerSecond === undefined) {
    try {
      clockTicksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicksPerSecond = 100;
    }
  }
  return clockTicksPerSecond;
}

/** Reads the figures of a live process; NaN for those that cannot be read (process gone, not Linux). */
export function readProcStats(pid: number): ProcStats {
  const stats: ProcStats = { cpuSeconds: Number.NaN, peakRssBytes: Number.NaN, rssBytes: Number.NaN };
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state), so utime (field 14) is fields[11] and stime (15) fields[12].
    stats.cpuSeconds = (Number(fields[11]) + Number(fields[12])) / clockTicks();
  } catch {
    // the process has exited
  }
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    stats.peakRssBytes = kilobytesField(status, 'VmHWM');
    stats.rssBytes = kilobytesField(status, 'VmRSS');
  } catch {
    // the process has exited
  }
  return stats;
}

function kilobytesField(status: string, name: string): number {
  const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
  return match ? Number(match[1]) * 1024 : Number.NaN;
}
