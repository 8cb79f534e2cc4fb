import { describe, expect, it } from 'vitest';
import { EventLoopWatchdog, requestPartitionCount } from '../../host/observability/event-loop-watchdog.js';
import { createLogger } from '../../host/observability/logger.js';

function capture(): { logger: ReturnType<typeof createLogger>; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ level: 'debug', destination: { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) } });
  return { logger, lines };
}

/** A clock the test moves by hand, with one pending timer it fires late on purpose. */
function lateClock() {
  const clock = { now: 0, task: null as (() => void) | null, dueMs: 0 };
  return {
    clock,
    time: {
      monotonicMs: () => clock.now,
      setTimeout: (task: () => void, delayMs: number) => {
        clock.task = task;
        clock.dueMs = clock.now + delayMs;
        return { id: 1 };
      },
      clearTimeout: () => { clock.task = null; },
    },
  };
}

describe('EventLoopWatchdog (event.loop.stall.threshold.ms)', () => {
  it('logs one structured line naming the API, client id and partition count of a request that blocked past the threshold, and counts it', () => {
    const { logger, lines } = capture();
    const { time } = lateClock();
    const watchdog = new EventLoopWatchdog({ time, thresholdMs: 100, logger });
    const work = () => ({ api: 'CreatePartitions', apiKey: 37, clientId: 'typo-script', partitions: 30_000 });
    watchdog.noteWork(work, 99);
    expect(lines).toHaveLength(0);
    watchdog.noteWork(work, 2_500);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      event: 'event_loop.stall', cause: 'request', api: 'CreatePartitions', apiKey: 37, clientId: 'typo-script', partitions: 30_000, durationMs: 2_500,
    });
    expect(watchdog.metrics()).toMatchObject({ stallCount: 1, maxStallMs: 2_500 });
  });

  it('logs a late turn with no request to blame as unattributed, naming the last request seen', () => {
    const { logger, lines } = capture();
    const { clock, time } = lateClock();
    const watchdog = new EventLoopWatchdog({ time, thresholdMs: 100, logger });
    watchdog.start();
    watchdog.noteWork(() => ({ api: 'Metadata', apiKey: 3, clientId: 'c', partitions: 0 }), 1);
    clock.now = clock.dueMs + 10; // 10 ms late: noise
    clock.task!();
    expect(lines).toHaveLength(0);
    clock.now = clock.dueMs + 400; // 400 ms late: a stall
    clock.task!();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ event: 'event_loop.stall', cause: 'unattributed', lastRequest: { api: 'Metadata' } });
    expect(watchdog.metrics().stallCount).toBe(1);
    watchdog.stop();
  });

  it('calls a late turn that was mostly garbage collection cause gc, with the pause time, once the pauses are known', () => {
    const { logger, lines } = capture();
    // Timers in a queue the test runs by hand (the tick and the deferred stall line both wait there).
    let now = 0;
    const timers: { dueMs: number; task: () => void }[] = [];
    const time = {
      monotonicMs: () => now,
      setTimeout: (task: () => void, delayMs: number) => {
        timers.push({ dueMs: now + delayMs, task });
        return { id: timers.length };
      },
      clearTimeout: () => {},
    };
    /** Runs the timers queued so far at `atMs` (late ones late), not those they schedule. */
    const runTimersAt = (atMs: number): void => {
      now = atMs;
      for (const timer of timers.splice(0)) timer.task();
    };
    // Pauses as the observer reported them: 300 ms inside the first stall, 20 ms inside the second.
    const pauses = [{ start: 100, duration: 300 }, { start: 1_000, duration: 20 }];
    const gcPauses = {
      pausedMsBetween: (from: number, to: number) => pauses.reduce((sum, p) => sum + Math.max(0, Math.min(p.start + p.duration, to) - Math.max(p.start, from)), 0),
      stop: () => {},
    };
    const watchdog = new EventLoopWatchdog({ time, thresholdMs: 100, logger, gcPauses });
    watchdog.start(); // the tick is due at 50
    runTimersAt(450); // 400 ms late, 300 of them GC
    // The line waits one timer turn for the observer's entries.
    expect(lines).toHaveLength(0);
    runTimersAt(451);
    expect(lines[0]).toMatchObject({ event: 'event_loop.stall', cause: 'gc', gcMs: 300, durationMs: 400 });
    // The tick ran at 451 too (this queue runs what is queued, due or not): the next is due at 501.
    runTimersAt(1_300); // 799 ms late, 20 ms of it GC
    runTimersAt(1_301);
    expect(lines[1]).toMatchObject({ event: 'event_loop.stall', cause: 'unattributed', gcMs: 20, durationMs: 799 });
    expect(watchdog.metrics().stallCount).toBe(2);
    watchdog.stop();
  });

  it('names a metadata-apply slice that blocked past the threshold (cause metadata.apply: op, topic, partitions), and the late tick does not count it again', () => {
    const { logger, lines } = capture();
    const { clock, time } = lateClock();
    const watchdog = new EventLoopWatchdog({ time, thresholdMs: 100, logger });
    watchdog.start();
    let described = 0;
    const work = () => {
      described++;
      return { op: 'create' as const, topic: 'wide', partitions: 8 };
    };
    watchdog.noteMetadataApply(work, 99);
    expect(lines).toHaveLength(0);
    expect(described).toBe(0);
    clock.now = clock.dueMs + 300; // the slice held the loop: the tick runs 300 ms late
    watchdog.noteMetadataApply(work, 300);
    clock.task!();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ event: 'event_loop.stall', cause: 'metadata.apply', op: 'create', topic: 'wide', partitions: 8, durationMs: 300 });
    expect(String(lines[0]!.msg)).toContain('create of 8 partition(s) of topic wide');
    expect(watchdog.metrics()).toMatchObject({ stallCount: 1, maxStallMs: 300 });
    watchdog.stop();
  });

  it('counts the partitions a request names', () => {
    expect(requestPartitionCount({ topics: [{ partitions: [1, 2, 3] }, { partitions: [4] }] })).toBe(4);
    expect(requestPartitionCount({ topics: [{ name: 't', numPartitions: 65_536 }] })).toBe(65_536);
    expect(requestPartitionCount({ topics: [{ name: 't', count: 100 }] })).toBe(100);
    expect(requestPartitionCount({ topicData: [{ partitionData: [] , partitions: [0, 1] }] })).toBe(2);
    // Produce names its partitions topicData[].partitionData[].
    expect(requestPartitionCount({ topicData: [{ name: 'a', partitionData: [{ index: 0 }, { index: 1 }] }, { name: 'b', partitionData: [{ index: 0 }] }] })).toBe(3);
    expect(requestPartitionCount({ groupId: 'g' })).toBe(0);
  });
});
