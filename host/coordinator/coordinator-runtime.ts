/**
 * A coordinator runtime over the partitions of one internal topic (Kafka's CoordinatorRuntime,
 * in small). Each partition this broker leads has one coordinator state machine, a "shard"
 * (the group coordinator's groups and offsets of one `__consumer_offsets` partition; later the
 * transaction coordinator's transactions of one `__transaction_state` partition). The runtime:
 *
 * - loads a shard when the broker becomes leader of its partition: a fresh shard replays every
 *   record of the partition ({@link CoordinatorShard.replay}), then {@link CoordinatorShard.onLoaded}
 *   restarts what the records cannot hold (timers);
 * - unloads it on resignation: {@link CoordinatorShard.onUnloaded} answers what waits, and the
 *   shard's timers are cancelled;
 * - runs operations on a shard: an operation returns `{ response, writes }` (Kafka's
 *   CoordinatorResult); each write is one record batch appended to the shard's partition, and
 *   its `onAppended` runs when that append completes (the place where a response that must wait
 *   for durability is completed);
 * - runs timers through {@link Time}: a timer task is an operation too, its writes appended the
 *   same way; at most `coordinator.max.timer.tasks.per.turn` expired tasks run in one event-loop
 *   turn, the rest in later turns in the order they fell due (timer-task-turns.ts).
 *
 * Writes come out of deep call chains (a LeaveGroup that ends a rebalance writes the group's
 * metadata), so a shard puts them on its {@link CoordinatorWriteQueue} and the runtime drains
 * that queue after every operation, timer task and append completion, appending in order.
 *
 * An append that returns synchronously completes synchronously, inside the operation's call:
 * with the single-node log, an operation and its effects happen in one turn, as before the
 * runtime existed.
 */
import type { Logger } from 'pino';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { Time, TimerHandle } from '../io/environment.js';
import type { CoordinatorLog, CoordinatorProducer, CoordinatorRecord } from './coordinator-log.js';
import { TimerTaskTurns } from './timer-task-turns.js';
import { buildOffsetsBatch } from './offsets-batch.js';

export type { CoordinatorLog, CoordinatorProducer, CoordinatorRecord } from './coordinator-log.js';

/** One append an operation asks for (Kafka's CoordinatorResult records and append future). */
export interface CoordinatorWrite {
  /** Non-empty: written as one record batch. */
  records: CoordinatorRecord[];
  /** Runs once the append completed: NONE (0) or the append's Kafka error code. */
  onAppended(errorCode: number): void;
  /** Written as a transactional batch of this producer (TxnOffsetCommit); absent for ordinary writes. */
  producer?: CoordinatorProducer;
}

/** What an operation returns (Kafka's CoordinatorResult): its response and the appends it needs. */
export interface CoordinatorResult<T> {
  /** The answer; a Promise when it waits for an append or a later event (JoinGroup). */
  response: T;
  writes: CoordinatorWrite[];
}

/** Where a shard's state machines put the appends their changes need, in order. */
export class CoordinatorWriteQueue {
  private queued: CoordinatorWrite[] = [];

  /**
   * Queues `records` (skipped when empty) with the completion to run after their append; with a
   * `producer` they are written as that producer's transactional batch.
   */
  append(records: CoordinatorRecord[], onAppended: (errorCode: number) => void, producer?: CoordinatorProducer): void {
    if (records.length > 0) this.queued.push({ records, onAppended, ...(producer === undefined ? {} : { producer }) });
  }

  /**
   * The operation's result: `response` and every write queued since the last drain. Called once,
   * by an operation's entry point; timer tasks and append completions only {@link append}
   * (the runtime drains after them), since a result built and dropped would lose its writes.
   */
  result<T>(response: T): CoordinatorResult<T> {
    return { response, writes: this.drain() };
  }

  /** Takes every queued write, oldest first. */
  drain(): CoordinatorWrite[] {
    const writes = this.queued;
    this.queued = [];
    return writes;
  }
}

/** Timers of one shard; every task runs as an operation of the runtime (its writes appended). */
export interface CoordinatorTimer {
  /** Runs `task` once after `delayMs` (>= 0, ms) unless cancelled or the shard is unloaded first. */
  schedule(task: () => void, delayMs: number): TimerHandle;
  /** A no-op for a task that already ran or was cancelled. */
  cancel(handle: TimerHandle): void;
}

/** What a shard is given when it is built. */
export interface CoordinatorShardContext {
  /** The internal topic partition this shard coordinates. */
  partition: number;
  /**
   * The coordinator epoch: the leader epoch of the partition when this broker took it up (0 when
   * not known). The transaction coordinator stamps it on its markers so a partition leader can
   * refuse those of a coordinator that lost the partition (Kafka's coordinatorEpoch).
   */
  epoch: number;
  time: Pick<Time, 'nowMs'>;
  timer: CoordinatorTimer;
  writes: CoordinatorWriteQueue;
}

/** One partition's coordinator state machine: no I/O, changes as records. */
export interface CoordinatorShard {
  /** Applies one record read while loading; false when it was skipped (undecodable, unknown type). */
  replay(record: CoordinatorRecord): boolean;
  /** The partition's records have all been replayed: restart timers, validate. */
  onLoaded(): void;
  /** The partition is being unloaded: answer what waits (NOT_COORDINATOR). Timers are cancelled after. */
  onUnloaded(): void;
}

export interface CoordinatorRuntimeOptions<S extends CoordinatorShard> {
  log: CoordinatorLog;
  /** Timers and now; with `defer`, expired timer tasks are spread over turns ({@link maxTimerTasksPerTurn}). */
  time: Pick<Time, 'nowMs' | 'setTimeout' | 'clearTimeout'> & Partial<Pick<Time, 'defer'>>;
  /**
   * coordinator.max.timer.tasks.per.turn: the most expired timer tasks (of every shard) run in one
   * event-loop turn, the rest in later turns (timer-task-turns.ts). Default
   * {@link DEFAULT_COORDINATOR_MAX_TIMER_TASKS_PER_TURN}; no bound when `time` has no `defer`.
   */
  maxTimerTasksPerTurn?: number;
  /** Builds the empty shard of one partition (its records are replayed into it next). */
  buildShard(context: CoordinatorShardContext): S;
  logger?: Logger | null;
}

/** What loading one partition replayed. */
export interface ShardLoad<S> {
  shard: S;
  recordsReplayed: number;
  /** Records the shard did not understand (null keys, undecodable, record types of newer versions). */
  recordsSkipped: number;
}

interface LoadedShard<S> {
  shard: S;
  writes: CoordinatorWriteQueue;
  timers: Set<TimerHandle>;
}

/** Tributary's default coordinator.max.timer.tasks.per.turn. */
export const DEFAULT_COORDINATOR_MAX_TIMER_TASKS_PER_TURN = 500;

export class CoordinatorRuntime<S extends CoordinatorShard> {
  private readonly shards = new Map<number, LoadedShard<S>>();
  private readonly logger: Logger | null;
  private readonly timerTasks: TimerTaskTurns;

  /** @throws RangeError for a maxTimerTasksPerTurn below 1 */
  constructor(private readonly options: CoordinatorRuntimeOptions<S>) {
    this.logger = options.logger ?? null;
    const defer = options.time.defer;
    this.timerTasks = new TimerTaskTurns(
      options.maxTimerTasksPerTurn ?? DEFAULT_COORDINATOR_MAX_TIMER_TASKS_PER_TURN,
      defer === undefined ? null : defer.bind(options.time),
    );
  }

  /** Expired timer tasks waiting for a later turn (coordinator.max.timer.tasks.per.turn). */
  get waitingTimerTasks(): number {
    return this.timerTasks.waiting;
  }

  /** The loaded shard of `partition`, undefined when this broker does not coordinate it. */
  shard(partition: number): S | undefined {
    return this.shards.get(partition)?.shard;
  }

  /** Whether this broker coordinates `partition` now. */
  isLoaded(partition: number): boolean {
    return this.shards.has(partition);
  }

  /** Partitions with a loaded shard, ascending. */
  loadedPartitions(): number[] {
    return [...this.shards.keys()].sort((a, b) => a - b);
  }

  /**
   * Becomes coordinator of `partition` at coordinator `epoch` (default 0): builds a shard, replays
   * `records` (default: the whole partition from the log) and calls onLoaded. @throws Error when
   * the partition is loaded.
   */
  load(partition: number, records?: Iterable<CoordinatorRecord>, epoch = 0): ShardLoad<S> {
    if (this.shards.has(partition)) throw new Error(`coordinator partition ${partition} is already loaded`);
    const writes = new CoordinatorWriteQueue();
    const loaded: LoadedShard<S> = { shard: undefined as unknown as S, writes, timers: new Set() };
    loaded.shard = this.options.buildShard({ partition, epoch, time: this.options.time, timer: this.timerFor(partition, loaded), writes });
    let recordsReplayed = 0;
    let recordsSkipped = 0;
    for (const record of records ?? this.options.log.readAll(partition)) {
      if (loaded.shard.replay(record)) recordsReplayed++;
      else recordsSkipped++;
    }
    this.shards.set(partition, loaded);
    loaded.shard.onLoaded();
    this.flush(partition, loaded);
    return { shard: loaded.shard, recordsReplayed, recordsSkipped };
  }

  /** Stops coordinating `partition` (a no-op when not loaded); its timers are cancelled. */
  unload(partition: number): void {
    const loaded = this.shards.get(partition);
    if (loaded === undefined) return;
    this.shards.delete(partition);
    loaded.shard.onUnloaded();
    for (const handle of loaded.timers) this.options.time.clearTimeout(handle);
    loaded.timers.clear();
    // Whatever the unload produced cannot be written by a non-coordinator.
    for (const write of loaded.writes.drain()) write.onAppended(ErrorCode.NOT_COORDINATOR);
  }

  /**
   * Runs `operation` on the shard of `partition` and appends its writes in order (Kafka's
   * scheduleWriteOperation). Returns the operation's response. @throws Error when the
   * partition is not loaded: callers check {@link isLoaded} first and answer NOT_COORDINATOR.
   */
  write<T>(partition: number, operation: (shard: S) => CoordinatorResult<T>): T {
    const loaded = this.shards.get(partition);
    if (loaded === undefined) throw new Error(`coordinator partition ${partition} is not loaded`);
    const result = operation(loaded.shard);
    for (const write of result.writes) this.append(partition, loaded, write);
    this.flush(partition, loaded);
    return result.response;
  }

  /** Runs `operation` on every loaded shard (admin requests, topic deletions, offset expiry). */
  writeAll<T>(operation: (shard: S) => CoordinatorResult<T>): T[] {
    return this.loadedPartitions().map((partition) => this.write(partition, operation));
  }

  private timerFor(partition: number, loaded: LoadedShard<S>): CoordinatorTimer {
    const time = this.options.time;
    return {
      schedule: (task, delayMs) => {
        const handle = time.setTimeout(() => {
          this.timerTasks.due(() => {
            // Cancelled (or the shard unloaded) while it waited for its turn: it does not run.
            if (!loaded.timers.delete(handle)) return;
            task();
            this.flush(partition, loaded);
          });
        }, delayMs);
        loaded.timers.add(handle);
        return handle;
      },
      cancel: (handle) => {
        if (loaded.timers.delete(handle)) time.clearTimeout(handle);
      },
    };
  }

  /** Appends whatever the shard queued outside an operation's result (completions, timers). */
  private flush(partition: number, loaded: LoadedShard<S>): void {
    for (let writes = loaded.writes.drain(); writes.length > 0; writes = loaded.writes.drain()) {
      for (const write of writes) this.append(partition, loaded, write);
    }
  }

  private append(partition: number, loaded: LoadedShard<S>, write: CoordinatorWrite): void {
    if (this.shards.get(partition) !== loaded) {
      // Unloaded (or reloaded) since the write was produced: another broker coordinates now.
      write.onAppended(ErrorCode.NOT_COORDINATOR);
      return;
    }
    const complete = (errorCode: number) => {
      write.onAppended(errorCode);
      if (this.shards.get(partition) === loaded) this.flush(partition, loaded);
      else for (const late of loaded.writes.drain()) late.onAppended(ErrorCode.NOT_COORDINATOR);
    };
    const batch = buildOffsetsBatch(write.records, this.options.time.nowMs(), write.producer);
    const result = this.options.log.append(partition, batch);
    if (typeof result === 'number') {
      complete(result);
      return;
    }
    result.then(complete, (error: unknown) => {
      this.logger?.error({ err: error, partition }, 'append to a coordinator partition failed');
      complete(ErrorCode.UNKNOWN_SERVER_ERROR);
    });
  }
}
