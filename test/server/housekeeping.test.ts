import { describe, expect, it } from 'vitest';
import { ManualTime } from '../../host/io/time.js';
import type { LogManager, MaintenanceDue } from '../../host/log/log-manager.js';
import type { UnifiedLog } from '../../host/log/unified-log.js';
import { createLogger } from '../../host/observability/logger.js';
import type { ReplicaManager } from '../../host/replication/replica-manager.js';
import { Housekeeping, housekeepingIntervalMs } from '../../host/server/housekeeping.js';

/** Housekeeping over fakes that record what each period asked of them: `logCount` logs, each with its partition. */
function fixture(logRetentionCheckIntervalMs: number, options: {
  logPassThrows?: boolean; initialDelayMs?: number; backoffMs?: number; cleans?: number; logCount?: number; maxPartitionsPerTurn?: number;
} = {}) {
  const time = new ManualTime({ startMs: 1_000_000 });
  const calls: string[] = [];
  const due: string[] = [];
  let cleans = options.cleans ?? 0;
  const logs = Array.from({ length: options.logCount ?? 1 }, (_, partition) => ({ topic: 't', partition }) as UnifiedLog);
  const held = new Set(logs);
  const logManager = {
    allLogs: () => [...held],
    maintainLogs: (nowMs: number, what: MaintenanceDue, slice: readonly UnifiedLog[]) => {
      if (options.logPassThrows) throw new Error('log pass bug');
      calls.push(`logs@${nowMs}:${slice.filter((log) => held.has(log)).map((log) => log.partition).join(',')}`);
      if (what.retention) due.push(`retention@${nowMs}`);
      if (what.cleaning) due.push(`cleaning@${nowMs}`);
      if (what.cleaning && cleans > 0) {
        cleans--;
        return 1;
      }
      return 0;
    },
    writeCheckpointsInBackground: () => calls.push('checkpoints'),
  } as unknown as LogManager;
  const replicaManager = {
    getPartition: (_topic: string, partition: number) => {
      const log = logs[partition]!;
      if (!held.has(log)) return undefined;
      return {
        log,
        onLogStartOffsetMaybeIncremented: () => calls.push(`log-start:${partition}`),
        removeExpiredProducers: (nowMs: number) => {
          calls.push(`producers@${nowMs}:${partition}`);
          return 0;
        },
        maybeShrinkIsr: () => {
          calls.push(`isr:${partition}`);
          return false;
        },
      };
    },
  } as unknown as ReplicaManager<UnifiedLog>;
  const housekeeping = new Housekeeping({
    time, logRetentionCheckIntervalMs, logManager, replicaManager, logger: createLogger({ level: 'silent' }),
    ...(options.initialDelayMs === undefined ? {} : { logInitialTaskDelayMs: options.initialDelayMs }),
    ...(options.backoffMs === undefined ? {} : { logCleanerBackoffMs: () => options.backoffMs! }),
    ...(options.maxPartitionsPerTurn === undefined ? {} : { maxPartitionsPerTurn: options.maxPartitionsPerTurn }),
  });
  return { time, calls, due, housekeeping, logs, held };
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
    expect(calls).toEqual(['logs@1001000:0', 'log-start:0', 'producers@1001000:0', 'isr:0', 'checkpoints']);
    time.advance(2_000);
    expect(calls.filter((call) => call.startsWith('logs@'))).toEqual(['logs@1001000:0', 'logs@1002000:0', 'logs@1003000:0']);
    housekeeping.stop();
    time.advance(10_000);
    expect(calls).toHaveLength(15);
  });

  it('still expires producers when the log pass throws (a bug is logged, not fatal)', () => {
    const { time, calls, housekeeping } = fixture(1_000, { logPassThrows: true });
    housekeeping.start();
    time.advance(1_000);
    expect(calls).toEqual(['log-start:0', 'producers@1001000:0', 'isr:0', 'checkpoints']);
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

  it('works through the logs in slices of housekeeping.max.partitions.per.turn, one per event-loop turn, each log\'s partition in the same turn as its retention, checkpoints after the last', () => {
    const { time, calls, housekeeping, logs, held } = fixture(1_000, { logCount: 5, maxPartitionsPerTurn: 2 });
    housekeeping.runOnce();
    expect(calls).toEqual(['logs@1000000:0,1', 'log-start:0', 'producers@1000000:0', 'isr:0', 'log-start:1', 'producers@1000000:1', 'isr:1']);
    // A log deleted between two slices is skipped (the LogManager and the ReplicaManager no longer hold it).
    held.delete(logs[3]!);
    calls.length = 0;
    time.runDeferred();
    expect(calls).toEqual([
      'logs@1000000:2', 'log-start:2', 'producers@1000000:2', 'isr:2',
      'logs@1000000:4', 'log-start:4', 'producers@1000000:4', 'isr:4',
      'checkpoints',
    ]);
  });

  it('schedules the next pass one period after the last slice of a pass, and a stop between slices ends the pass', () => {
    const { time, calls, housekeeping } = fixture(1_000, { logCount: 3, maxPartitionsPerTurn: 1 });
    housekeeping.start();
    time.advance(1_000);
    // ManualTime runs deferred turns after each timer task: the whole pass ran.
    expect(calls.filter((call) => call.startsWith('logs@') || call === 'checkpoints')).toEqual(['logs@1001000:0', 'logs@1001000:1', 'logs@1001000:2', 'checkpoints']);
    calls.length = 0;
    housekeeping.stop();
    housekeeping.runOnce();
    housekeeping.stop();
    time.runDeferred();
    time.advance(5_000);
    expect(calls.filter((call) => call.startsWith('logs@') || call === 'checkpoints')).toEqual(['logs@1001000:0']);
  });
});
