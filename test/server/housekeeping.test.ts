import { describe, expect, it } from 'vitest';
import { ManualTime } from '../../host/io/time.js';
import type { LogManager } from '../../host/log/log-manager.js';
import type { UnifiedLog } from '../../host/log/unified-log.js';
import { createLogger } from '../../host/observability/logger.js';
import type { ReplicaManager } from '../../host/replication/replica-manager.js';
import { Housekeeping, housekeepingIntervalMs } from '../../host/server/housekeeping.js';

/** Housekeeping over fakes that record what each period asked of them. */
function fixture(logRetentionCheckIntervalMs: number, options: { logPassThrows?: boolean } = {}) {
  const time = new ManualTime({ startMs: 1_000_000 });
  const calls: string[] = [];
  const logManager = {
    tickInBackground: (nowMs: number) => {
      if (options.logPassThrows) throw new Error('log pass bug');
      calls.push(`logs@${nowMs}`);
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
  });
  return { time, calls, housekeeping };
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
});
