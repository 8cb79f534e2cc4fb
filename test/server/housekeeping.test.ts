import { describe, expect, it } from 'vitest';
import { ManualTime } from '../../host/io/time.js';
import type { LogManager, MaintenanceDue } from '../../host/log/log-manager.js';
import type { UnifiedLog } from '../../host/log/unified-log.js';
import { createLogger } from '../../host/observability/logger.js';
import type { ReplicaManager } from '../../host/replication/replica-manager.js';
import { Housekeeping, housekeepingIntervalMs } from '../../host/server/housekeeping.js';

/** Housekeeping over fakes that record what each period asked of them. */
function fixture(logRetentionCheckIntervalMs: number, options: { logPassThrows?: boolean; initialDelayMs?: number; backoffMs?: number; cleans?: number } = {}) {
  const time = new ManualTime({ startMs: 1_000_000 });
  const calls: string[] = [];
  const due: string[] = [];
  let cleans = options.cleans ?? 0;
  const logManager = {
    tickInBackground: (nowMs: number, what: MaintenanceDue) => {
      if (options.logPassThrows) throw new Error('log pass bug');
      calls.push(`logs@${nowMs}`);
      if (what.retention) due.push(`retention@${nowMs}`);
      if (what.cleaning) due.push(`cleaning@${nowMs}`);
      if (what.cleaning && cleans > 0) {
        cleans--;
        return 1;
      }
      return 0;
    },
  } as unknown as LogManager;
  const replicaManager = {
    onLogStartOffsetsMaybeIncremented: () => calls.push('log-start'),
    removeExpiredProducers: (nowMs: number) => {
      calls.push(`producers@${nowMs}`);
      return 0;
    },
    maybeShrinkIsr: () => {
      calls.push('isr');
      return 0;
    },
  } as unknown as ReplicaManager<UnifiedLog>;
  const housekeeping = new Housekeeping({
    time, logRetentionCheckIntervalMs, logManager, replicaManager, logger: createLogger({ level: 'silent' }),
    ...(options.initialDelayMs === undefined ? {} : { logInitialTaskDelayMs: options.initialDelayMs }),
    ...(options.backoffMs === undefined ? {} : { logCleanerBackoffMs: () => options.backoffMs! }),
  });
  return { time, calls, due, housekeeping };
}

describe('Housekeeping', () => {
  it('bounds its period to 100 ms .. 5 s of log.retention.check.interval.ms', () => {
    expect(housekeepingIntervalMs(300_000)).toBe(5_000);
    expect(housekeepingIntervalMs(1_000)).toBe(1_000);
    expect(housekeepingIntervalMs(1)).toBe(100);
  });

  it('runs every period on the environment time, logs first, and stops when told', () => {
    const { time, calls, housekeeping } = fixture(1_000);
    housekeeping.start();
    time.advance(999);
    expect(calls).toEqual([]);
    time.advance(1);
    expect(calls).toEqual(['logs@1001000', 'log-start', 'producers@1001000', 'isr']);
    time.advance(2_000);
    expect(calls.filter((call) => call.startsWith('logs@'))).toEqual(['logs@1001000', 'logs@1002000', 'logs@1003000']);
    housekeeping.stop();
    time.advance(10_000);
    expect(calls).toHaveLength(12);
  });

  it('still expires producers when the log pass throws (a bug is logged, not fatal)', () => {
    const { time, calls, housekeeping } = fixture(1_000, { logPassThrows: true });
    housekeeping.start();
    time.advance(1_000);
    expect(calls).toEqual(['log-start', 'producers@1001000', 'isr']);
    housekeeping.stop();
  });

  it('runs retention 30 s after start (log.initial.task.delay.ms), then every log.retention.check.interval.ms, not every period', () => {
    const { time, due, housekeeping } = fixture(300_000, { backoffMs: 1_000_000 });
    housekeeping.start();
    time.advance(25_000);
    expect(due.filter((d) => d.startsWith('retention'))).toEqual([]);
    time.advance(5_000);
    expect(due.filter((d) => d.startsWith('retention'))).toEqual(['retention@1030000']);
    time.advance(295_000);
    expect(due.filter((d) => d.startsWith('retention'))).toEqual(['retention@1030000']);
    time.advance(5_000);
    expect(due.filter((d) => d.startsWith('retention'))).toEqual(['retention@1030000', 'retention@1330000']);
    housekeeping.stop();
  });

  it('cleans again at once after a pass that cleaned a log, and waits log.cleaner.backoff.ms after one that found nothing', () => {
    const { time, due, housekeeping } = fixture(1_000, { initialDelayMs: 0, backoffMs: 3_000, cleans: 2 });
    housekeeping.start();
    time.advance(8_000);
    // 1001000 and 1002000 cleaned something; 1003000 found nothing: back off to 1006000.
    expect(due.filter((d) => d.startsWith('cleaning'))).toEqual(['cleaning@1001000', 'cleaning@1002000', 'cleaning@1003000', 'cleaning@1006000']);
    housekeeping.stop();
  });
});
