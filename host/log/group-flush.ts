/**
 * Group commit for logs whose flush policy demands an fsync after an append (flush.messages
 * reached, e.g. `flush.messages=1`): the append only marks its log; one flush per event-loop
 * turn (Time.defer, Node's setImmediate in a real broker, scheduled once for the turn) fsyncs
 * every marked log once. N Produce
 * requests read in the same turn then cost one fsync per log instead of N, and the loop blocks
 * once. Produce responses wait for the flush (ReplicaManager awaits `pendingFlushOf(log)`), so
 * nothing is acknowledged before the fsync covering it. Measured as prototype "G" in
 * bench/e2e/network-model (bench/README.md, "Network model").
 */
import type { Time } from '../io/environment.js';
import { SystemTime } from '../io/time.js';

/** A log that can be flushed by the group flush (UnifiedLog). */
export interface GroupFlushTarget {
  /** Flushes what was marked; settles the log's pending flush. Throws only on bugs. */
  runGroupFlush(): void;
}

/** Schedules the turn's flush: {@link Time.defer} runs after the I/O callbacks of the current turn. */
export type FlushScheduler = (run: () => void) => void;

/** Collects the logs marked in one event-loop turn and flushes each once at its end. */
export class GroupFlusher {
  private pending: GroupFlushTarget[] = [];
  private scheduled = false;

  /** `schedule` runs the flush at the end of the turn: `(run) => time.defer(run)` (see {@link groupFlusherOn}). */
  constructor(private readonly schedule: FlushScheduler) {}

  /** Marks `target` for this turn's flush; the caller marks each log at most once per flush. */
  mark(target: GroupFlushTarget): void {
    this.pending.push(target);
    if (this.scheduled) return;
    this.scheduled = true;
    this.schedule(() => this.flushAll());
  }

  /** Flushes every marked log once (exposed for tests and shutdown). Rethrows a bug after all ran. */
  flushAll(): void {
    this.scheduled = false;
    const targets = this.pending;
    this.pending = [];
    let failure: unknown = null;
    for (const target of targets) {
      try {
        target.runGroupFlush();
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure !== null) throw failure;
  }
}

/** A group flusher whose flush runs at the end of `time`'s turn ({@link Time.defer}). */
export function groupFlusherOn(time: Pick<Time, 'defer'>): GroupFlusher {
  return new GroupFlusher((run) => { time.defer(run); });
}

/** The broker's group flusher (one per process: one flush per event-loop turn). */
export const defaultGroupFlusher = groupFlusherOn(new SystemTime());

/**
 * The flush an answer for `log` must wait for: a promise of a Kafka error code (0, or 56
 * KAFKA_STORAGE_ERROR when the fsync failed), or null when everything appended is flushed or the
 * log's policy does not flush per append. Works on any PartitionLog (fakes have no flush).
 */
export function pendingFlushOf(log: object): Promise<number> | null {
  const pending = (log as { readonly pendingFlush?: Promise<number> | null }).pendingFlush;
  return pending ?? null;
}
