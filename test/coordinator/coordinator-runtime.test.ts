import { describe, expect, it } from 'vitest';
import {
  CoordinatorRuntime,
  type CoordinatorRecord,
  type CoordinatorResult,
  type CoordinatorShard,
  type CoordinatorShardContext,
} from '../../host/coordinator/coordinator-runtime.js';
import { InMemoryOffsetsTopic } from '../../host/coordinator/in-memory-offsets-topic.js';
import type { TimerHandle } from '../../host/io/environment.js';
import { ManualTime } from '../../host/io/time.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (data: Uint8Array | null) => (data === null ? null : new TextDecoder().decode(data));

/** A shard of another kind than the group coordinator's: a key-value map whose puts are records. */
class KeyValueShard implements CoordinatorShard {
  readonly values = new Map<string, string>();
  loaded = false;
  unloaded = false;

  constructor(readonly context: CoordinatorShardContext) {}

  replay(record: CoordinatorRecord): boolean {
    const key = text(record.key);
    if (key === null || key.startsWith('?')) return false;
    const value = text(record.value);
    if (value === null) this.values.delete(key);
    else this.values.set(key, value);
    return true;
  }

  onLoaded(): void {
    this.loaded = true;
  }

  onUnloaded(): void {
    this.unloaded = true;
  }

  /** Put: applied by replay once appended; answers with the append's error code. */
  put(key: string, value: string): CoordinatorResult<Promise<number>> {
    return this.context.writes.result(this.queuePut(key, value));
  }

  /** Puts `key` after `delayMs`, from a timer (whose writes the runtime appends). */
  putLater(key: string, value: string, delayMs: number): CoordinatorResult<TimerHandle> {
    return this.context.writes.result(this.context.timer.schedule(() => void this.queuePut(key, value), delayMs));
  }

  private queuePut(key: string, value: string): Promise<number> {
    const record = { key: bytes(key), value: bytes(value) };
    return new Promise<number>((resolve) => this.context.writes.append([record], (errorCode) => {
      if (errorCode === ErrorCode.NONE) this.replay(record);
      resolve(errorCode);
    }));
  }
}

function setup() {
  const log = new InMemoryOffsetsTopic();
  const time = new ManualTime();
  const runtime = new CoordinatorRuntime<KeyValueShard>({ log, time, buildShard: (context) => new KeyValueShard(context) });
  return { log, time, runtime };
}

describe('CoordinatorRuntime', () => {
  it('loads a shard by replaying its partition and counts the records it skipped', () => {
    const { log, runtime } = setup();
    const first = runtime.load(2).shard;
    void runtime.write(2, (shard) => shard.put('a', '1'));
    void runtime.write(2, (shard) => shard.put('?unknown', 'x'));
    void runtime.write(2, (shard) => shard.put('b', '2'));
    // The shard does not understand '?' keys (a newer record type): replay skips them.
    expect(first.values).toEqual(new Map([['a', '1'], ['b', '2']]));
    runtime.unload(2);
    expect(first.unloaded).toBe(true);

    const reloaded = runtime.load(2);
    expect(reloaded.shard.loaded).toBe(true);
    expect(reloaded).toMatchObject({ recordsReplayed: 2, recordsSkipped: 1 });
    expect(reloaded.shard.values).toEqual(new Map([['a', '1'], ['b', '2']]));
    expect(log.partitions()).toEqual([2]);
    expect(() => runtime.load(2)).toThrow(/already loaded/);
  });

  it('answers only after the append completes, and applies nothing on a failed append', async () => {
    const { log, runtime } = setup();
    const shard = runtime.load(0).shard;
    log.deferAppends = true;
    let answer: number | null = null;
    void runtime.write(0, (s) => s.put('k', 'v')).then((errorCode) => (answer = errorCode));
    await Promise.resolve();
    expect(answer).toBeNull();
    expect(shard.values.size).toBe(0);
    log.completePendingAppends(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    await new Promise((resolve) => setImmediate(resolve));
    expect(answer).toBe(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    expect(shard.values.size).toBe(0);
  });

  it('appends what timer tasks write and cancels the timers of an unloaded shard', () => {
    const { log, time, runtime } = setup();
    const shard = runtime.load(1).shard;
    runtime.write(1, (s) => s.putLater('t', '1', 1_000));
    runtime.write(1, (s) => s.putLater('u', '2', 5_000));
    time.advance(1_000);
    expect(shard.values).toEqual(new Map([['t', '1']]));
    expect(log.batches(1)).toHaveLength(1);
    runtime.unload(1);
    expect(time.pendingCount).toBe(0);
    time.advance(10_000);
    expect(log.batches(1)).toHaveLength(1);
  });

  it('runs at most coordinator.max.timer.tasks.per.turn expired timer tasks per turn, the rest in later turns in due order', () => {
    const log = new InMemoryOffsetsTopic();
    const manual = new ManualTime();
    // Deferred tasks wait for the test's next "turn" (ManualTime would run them after each timer).
    const turns: Array<() => void> = [];
    const time = {
      nowMs: () => manual.nowMs(), setTimeout: (task: () => void, ms: number) => manual.setTimeout(task, ms),
      clearTimeout: (handle: TimerHandle) => manual.clearTimeout(handle), defer: (task: () => void) => void turns.push(task),
    };
    const nextTurn = (): void => {
      for (const task of turns.splice(0)) task();
    };
    const runtime = new CoordinatorRuntime<KeyValueShard>({ log, time, maxTimerTasksPerTurn: 3, buildShard: (context) => new KeyValueShard(context) });
    const one = runtime.load(1).shard;
    const two = runtime.load(2).shard;
    const handles: TimerHandle[] = [];
    for (let i = 0; i < 10; i++) handles.push(runtime.write(i % 2 === 0 ? 1 : 2, (s) => s.putLater(`k${i}`, String(i), 1_000)));
    const ran = (): string[] => [...one.values.keys(), ...two.values.keys()].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
    // All ten fall due in one turn: three run in it, across both shards.
    manual.advance(1_000);
    expect(ran()).toEqual(['k0', 'k1', 'k2']);
    expect(runtime.waitingTimerTasks).toBe(7);
    // A task cancelled while it waits never runs; the next turn runs the next three in due order.
    runtime.write(2, (s) => {
      s.context.timer.cancel(handles[3]!);
      return s.context.writes.result(undefined);
    });
    nextTurn();
    expect(ran()).toEqual(['k0', 'k1', 'k2', 'k4', 'k5']);
    // An unloaded shard's waiting tasks do not run either.
    runtime.unload(2);
    nextTurn();
    nextTurn();
    expect(ran()).toEqual(['k0', 'k1', 'k2', 'k4', 'k5', 'k6', 'k8']);
    expect(runtime.waitingTimerTasks).toBe(0);
    expect(turns).toHaveLength(0);
    expect(log.batches(1)).toHaveLength(5);
    expect(log.batches(2)).toHaveLength(2);
  });

  it('answers NOT_COORDINATOR for writes of a shard unloaded before they were appended', async () => {
    const { log, runtime } = setup();
    runtime.load(3);
    log.deferAppends = true;
    const codes: Record<string, number> = {};
    runtime.write(3, (shard) => {
      // A completion that writes again: after an unload, that write cannot be appended here.
      shard.context.writes.append([{ key: bytes('a'), value: bytes('1') }], (errorCode) => {
        codes.first = errorCode;
        shard.context.writes.append([{ key: bytes('b'), value: bytes('2') }], (next) => (codes.second = next));
      });
      return shard.context.writes.result(undefined);
    });
    runtime.unload(3);
    log.completePendingAppends(ErrorCode.NONE);
    await new Promise((resolve) => setImmediate(resolve));
    expect(codes).toEqual({ first: ErrorCode.NONE, second: ErrorCode.NOT_COORDINATOR });
    expect(log.pendingAppendCount).toBe(0);
    expect(() => runtime.write(3, (shard) => shard.put('c', '3'))).toThrow(/not loaded/);
  });
});
