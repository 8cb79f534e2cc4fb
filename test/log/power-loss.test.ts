/**
 * Power loss through the fault-injecting disk (host/io/fault-disk.ts), seeded: every round
 * schedules a crash at a random disk call (possibly inside a roll, a checkpoint write, a cleaner
 * swap, or recovery itself), drops everything not durable (`strict`) or a random part of it
 * (`torn`), reopens the LogManager and checks what survived. A failure names its seed
 * (SEED=...); set POWER_LOSS_SEED to replay one round.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../host/io/clock.js';
import { FaultDisk, SimulatedCrash } from '../../host/io/fault-disk.js';
import { SeededRandom } from '../../host/io/random.js';
import { defaultGroupFlusher } from '../../host/log/group-flush.js';
import type { LogConfig } from '../../host/log/log-config.js';
import { LogManager } from '../../host/log/log-manager.js';
import type { UnifiedLog } from '../../host/log/unified-log.js';
import { buildRecordBatch } from '../../host/record/batch-builder.js';
import { readBatch } from '../../host/record/records.js';
import { expectIndexesMatchRebuild, makeBatch, readAllBatches, stamped, testConfig } from './log-test-helpers.js';

const LOG_DIR = '/data/logs';
const ONLY_SEED = process.env.POWER_LOSS_SEED === undefined ? undefined : Number(process.env.POWER_LOSS_SEED);

function seeds(first: number, count: number): number[] {
  return ONLY_SEED === undefined ? Array.from({ length: count }, (_, i) => first + i) : [ONLY_SEED];
}

/** Odd seeds model a platform without syncfs: the clean shutdown's deferred fsyncs are then made one by one. */
function freshDisk(seed: number): FaultDisk {
  const disk = new FaultDisk(seed);
  disk.mkdir('/data');
  disk.syncAll();
  if (seed % 2 === 1) disk.faultRule = (op) => (op.kind === 'syncFileSystem' ? { code: 'ENOTSUP' } : undefined);
  return disk;
}

function open(disk: FaultDisk, clock: ManualClock, config: LogConfig): LogManager {
  return LogManager.open({ logDirs: [LOG_DIR], disk, clock, defaults: config, topicConfigs: () => config });
}

/** Reopens after power loss; sometimes crashes again during recovery first. */
function reopenAfterPowerLoss(disk: FaultDisk, random: SeededRandom, clock: ManualClock, config: LogConfig): LogManager {
  disk.powerLoss(random.chance(0.5) ? 'torn' : 'strict');
  if (random.chance(0.2)) {
    disk.crashAfter(random.int(1, 40));
    try {
      open(disk, clock, config).shutdown();
    } catch (error) {
      if (!(error instanceof SimulatedCrash)) throw error;
    }
    disk.powerLoss(random.chance(0.5) ? 'torn' : 'strict');
  }
  return open(disk, clock, config);
}

/** Runs `body`, turning a simulated crash into a normal return. */
function untilCrash(body: () => void): void {
  try {
    body();
  } catch (error) {
    if (!(error instanceof SimulatedCrash)) throw error;
  }
}

function withSeed(seed: number, round: () => void): void {
  try {
    round();
  } catch (error) {
    (error as Error).message = `SEED=${seed}: ${(error as Error).message}`;
    throw error;
  }
}

function hex(batches: Buffer[]): string[] {
  return batches.map((batch) => batch.toString('hex'));
}

/** Appends random batches with random housekeeping until the scheduled crash; returns what was sent. */
function appendUntilCrash(
  disk: FaultDisk, random: SeededRandom, clock: ManualClock, config: LogConfig, state: { manager: LogManager; log: UnifiedLog },
  deleteRecords = false,
): { acknowledged: Buffer[]; inFlight: Buffer | null; maxLogStartOffset: number } {
  const acknowledged: Buffer[] = [];
  let inFlight: Buffer | null = null;
  let maxLogStartOffset = 0;
  untilCrash(() => {
    for (let step = 0; step < 150; step++) {
      const choice = random.next();
      if (deleteRecords && choice > 0.96) {
        const target = random.int(state.log.logStartOffset, state.log.highWatermark);
        maxLogStartOffset = Math.max(maxLogStartOffset, target);
        expect(state.log.deleteRecordsBefore(target)).toBe(0);
      } else if (choice < 0.03) {
        state.manager.shutdown();
        state.manager = open(disk, clock, config);
        state.log = state.manager.getLog('t', 0)!;
      } else if (choice < 0.08) {
        clock.advance(random.int(0, 5000));
        state.manager.tick(clock.nowMs());
      } else {
        const batch = makeBatch(random.int(1, 4), { valueBytes: random.int(1, 250), seed: step });
        inFlight = stamped(batch, state.log.logEndOffset, 3);
        const result = state.log.appendAsLeader(batch, 3);
        expect(result.errorCode).toBe(0);
        // The broker acknowledges after the event-loop turn's group flush (group-flush.ts).
        defaultGroupFlusher.flushAll();
        expect(state.log.pendingFlush).toBeNull();
        expect(state.log.isOffline).toBe(false);
        acknowledged.push(inFlight);
        inFlight = null;
        state.log.updateHighWatermark(state.log.logEndOffset);
      }
    }
  });
  return { acknowledged, inFlight, maxLogStartOffset };
}

function roundConfig(random: SeededRandom, overrides: Partial<LogConfig>): LogConfig {
  return testConfig({ segmentBytes: random.int(1500, 5000), indexIntervalBytes: random.int(0, 600), ...overrides });
}

describe('power loss', () => {
  it('loses no acknowledged batch with flush.messages=1 (fsync before acknowledging)', () => {
    for (const seed of seeds(1, 200)) {
      withSeed(seed, () => {
        const random = new SeededRandom(seed);
        const disk = freshDisk(seed);
        const clock = new ManualClock(1_000_000);
        const config = roundConfig(random, { flushMessages: 1 });
        const manager = open(disk, clock, config);
        // Even seeds: the log's directory becomes durable at its first flush, as the broker's partitions do.
        const state = { manager, log: manager.getOrCreateLog('t', 0, config, seed % 2 === 0 ? 'first-flush' : 'now') };
        disk.crashAfter(random.int(1, 1500));
        const deleting = random.chance(0.5);
        const { acknowledged, inFlight, maxLogStartOffset } = appendUntilCrash(disk, random, clock, config, state, deleting);
        const reopened = reopenAfterPowerLoss(disk, random, clock, config);
        const log = reopened.getLog('t', 0);
        if (acknowledged.length > 0 || log !== undefined) {
          expect(log).toBeDefined();
          // DeleteRecords may have removed a prefix (never more than was asked).
          expect(log!.logStartOffset).toBeLessThanOrEqual(maxLogStartOffset);
          const kept = (batches: Buffer[]): Buffer[] => batches.filter((batch) => readBatch(batch).header.lastOffset >= log!.logStartOffset);
          const content = hex(readAllBatches(log!));
          const sent = hex(kept(inFlight === null ? acknowledged : [...acknowledged, inFlight]));
          expect(content.length).toBeGreaterThanOrEqual(kept(acknowledged).length);
          expect(content).toEqual(sent.slice(0, content.length));
          expectIndexesMatchRebuild(log!);
          const next = log!.logEndOffset;
          expect(log!.appendAsLeader(makeBatch(1), 4)).toMatchObject({ errorCode: 0, baseOffset: next });
        }
        reopened.shutdown();
      });
    }
  });

  it('recovers to a clean prefix of what was written in page-cache mode', () => {
    for (const seed of seeds(1001, 200)) {
      withSeed(seed, () => {
        const random = new SeededRandom(seed);
        const disk = freshDisk(seed);
        const clock = new ManualClock(1_000_000);
        const config = roundConfig(random, {});
        const manager = open(disk, clock, config);
        const state = { manager, log: manager.getOrCreateLog('t', 0, config, seed % 2 === 0 ? 'first-flush' : 'now') };
        disk.crashAfter(random.int(1, 1500));
        const { acknowledged, inFlight } = appendUntilCrash(disk, random, clock, config, state);
        const reopened = reopenAfterPowerLoss(disk, random, clock, config);
        const log = reopened.getLog('t', 0);
        if (log !== undefined) {
          const content = hex(readAllBatches(log));
          const sent = hex(inFlight === null ? acknowledged : [...acknowledged, inFlight]);
          expect(content).toEqual(sent.slice(0, content.length));
          expectIndexesMatchRebuild(log);
          const next = log.logEndOffset;
          expect(log.appendAsLeader(makeBatch(1), 4)).toMatchObject({ errorCode: 0, baseOffset: next });
        }
        reopened.shutdown();
      });
    }
  });

  it('leaves nothing partial on ENOSPC mid-append and resumes appending when space returns', () => {
    for (const seed of seeds(2001, 100)) {
      withSeed(seed, () => {
        const random = new SeededRandom(seed);
        const disk = freshDisk(seed);
        const clock = new ManualClock(1_000_000);
        const config = roundConfig(random, { flushMessages: random.chance(0.5) ? 1 : Number.MAX_SAFE_INTEGER });
        const manager = open(disk, clock, config);
        const log = manager.getOrCreateLog('t', 0, config);
        const acknowledged: Buffer[] = [];
        const append = (): number => {
          const batch = makeBatch(random.int(1, 4), { valueBytes: random.int(1, 250) });
          const before = log.logEndOffset;
          const result = log.appendAsLeader(batch, 1);
          if (result.errorCode === 0) acknowledged.push(stamped(batch, before, 1));
          return result.errorCode;
        };
        for (let i = random.int(0, 30); i > 0; i--) expect(append()).toBe(0);
        disk.capacityBytes = disk.usedBytes() + random.int(0, 6000);
        let failures = 0;
        for (let i = 0; i < 100 && failures < 3; i++) {
          const code = append();
          if (code !== 0) {
            expect(code).toBe(56);
            failures++;
          }
        }
        expect(failures).toBeGreaterThan(0);
        expect(log.isOffline).toBe(false);
        expect(hex(readAllBatches(log))).toEqual(hex(acknowledged));
        disk.capacityBytes = Infinity;
        for (let i = 0; i < 5; i++) expect(append()).toBe(0);
        expect(hex(readAllBatches(log))).toEqual(hex(acknowledged));
        expectIndexesMatchRebuild(log);
        manager.shutdown();
        disk.powerLoss('strict');
        const reopened = open(disk, clock, config);
        expect(hex(readAllBatches(reopened.getLog('t', 0)!))).toEqual(hex(acknowledged));
        reopened.shutdown();
      });
    }
  });

  it('keeps every key\'s latest acknowledged value through crashes during compaction', () => {
    for (const seed of seeds(3001, 100)) {
      withSeed(seed, () => {
        const random = new SeededRandom(seed);
        const disk = freshDisk(seed);
        const clock = new ManualClock(1_000_000);
        const config = roundConfig(random, {
          flushMessages: 1, cleanupPolicy: ['compact'], minCleanableDirtyRatio: 0, deleteRetentionMs: random.int(0, 3000),
        });
        const manager = open(disk, clock, config);
        const log = manager.getOrCreateLog('t', 0, config);
        const latest = new Map<string, string | null>();
        let inFlight: { key: string; value: string | null } | null = null;
        disk.crashAfter(random.int(1, 2500));
        untilCrash(() => {
          for (let step = 0; step < 200; step++) {
            if (random.chance(0.1)) {
              clock.advance(random.int(0, 2000));
              manager.tick(clock.nowMs());
              continue;
            }
            const key = `key-${random.int(0, 12)}`;
            const value = random.chance(0.2) ? null : `v${step}-${'x'.repeat(random.int(0, 120))}`;
            inFlight = { key, value };
            const result = log.appendAsLeader(buildRecordBatch({ records: [{ key, value, timestamp: clock.nowMs() }] }), 0);
            expect(result.errorCode).toBe(0);
            defaultGroupFlusher.flushAll();
            expect(log.pendingFlush).toBeNull();
            latest.set(key, value);
            inFlight = null;
            log.updateHighWatermark(log.logEndOffset);
          }
        });
        const reopened = reopenAfterPowerLoss(disk, random, clock, config);
        const recovered = reopened.getLog('t', 0)!;
        const found = new Map<string, string | null>();
        for (const batch of readAllBatches(recovered)) {
          for (const record of readBatch(batch).records) found.set(record.key!.toString(), record.value === null ? null : record.value.toString());
        }
        const pending = inFlight as { key: string; value: string | null } | null;
        for (const [key, value] of latest) {
          const got = found.get(key);
          const acceptable = [value, ...(pending !== null && pending.key === key ? [pending.value] : [])];
          // A tombstone may be gone entirely once its delete horizon passed.
          if (got === undefined) expect(acceptable, `key ${key}`).toContain(null);
          else expect(acceptable, `key ${key}`).toContain(got);
        }
        expectIndexesMatchRebuild(recovered);
        expect(recovered.appendAsLeader(buildRecordBatch({ records: [{ key: 'k', value: 'v' }] }), 0).errorCode).toBe(0);
        reopened.shutdown();
      });
    }
  });
});
