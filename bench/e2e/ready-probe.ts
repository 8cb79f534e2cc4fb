/**
 * Preloaded into a broker by ready-time.ts (`node --import <this> ...`): when the broker logs
 * `config.loaded` and `broker.started` (written after it opens its start-up gate, in the same
 * turn) this prints a line on stderr for each, `READY_PROBE <event> <ms since the process's time
 * origin> <main-thread CPU ms>`, the CPU read from /proc/self/schedstat (ns, Linux; NaN elsewhere). Measured inside the process,
 * these do not include the harness's polling lag, and the CPU figure hardly moves with the load
 * of other processes, unlike wall time on a shared machine.
 *
 * pino writes its log lines with `fs.write` / `fs.writeSync` (sonic-boom, which calls them on the
 * `fs` module object), so wrapping both sees every line without touching the broker's code, for
 * any build under test.
 */
import fs from 'node:fs';

const writeSync = fs.writeSync;
const write = fs.write;
const EVENTS = ['config.loaded', 'broker.started'];
const reported = new Set<string>();

function mainThreadCpuMs(): number {
  try {
    return Number(fs.readFileSync('/proc/self/schedstat', 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return Number.NaN;
  }
}

function sees(data: unknown): void {
  if (typeof data !== 'string') return;
  for (const event of EVENTS) {
    if (reported.has(event) || !data.includes(`"event":"${event}"`)) continue;
    reported.add(event);
    writeSync(2, `READY_PROBE ${event} ${performance.now().toFixed(2)} ${mainThreadCpuMs().toFixed(2)}\n`);
  }
}

fs.writeSync = function probedWriteSync(this: unknown, ...args: unknown[]): number {
  sees(args[1]);
  return (writeSync as (...rest: unknown[]) => number).apply(this, args);
} as typeof fs.writeSync;

fs.write = function probedWrite(this: unknown, ...args: unknown[]): void {
  sees(args[1]);
  (write as (...rest: unknown[]) => void).apply(this, args);
} as typeof fs.write;
