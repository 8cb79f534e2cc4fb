/**
 * Spreads a coordinator's expired timer tasks over event-loop turns (issue 15): at most
 * `coordinator.max.timer.tasks.per.turn` of them run in one turn, the rest in later turns, in the
 * order they fell due.
 *
 * Why: timers set together fall due together. 10,000 consumer groups created in one burst each
 * end their `group.initial.rebalance.delay.ms` within the same few milliseconds, and Node runs
 * every expired timer of a turn back to back: completing those joins (and answering them) held
 * the loop for 600 ms in one go, and every other client waited that long.
 *
 * How: a task that falls due while this turn has room, and nothing older waits, runs at once (no
 * added latency in the common case). Otherwise it queues, and a deferred turn (`Time.defer`, after
 * the other connections' I/O) runs the queue on, `maxTasksPerTurn` at a time. Without a `defer`
 * (test fakes of Time) every task runs at once, as before.
 */
import type { Time } from '../io/environment.js';

/** Expired timer tasks of one coordinator runtime, run at most `maxTasksPerTurn` per turn (see the file header). */
export class TimerTaskTurns {
  private queue: Array<(() => void) | undefined> = [];
  private head = 0;
  private ranThisTurn = 0;
  private turnEndScheduled = false;

  /**
   * @param maxTasksPerTurn coordinator.max.timer.tasks.per.turn (>= 1)
   * @param defer runs a task after this turn's I/O (Time.defer); null: no bound
   * @throws RangeError for a bound below 1
   */
  constructor(
    private readonly maxTasksPerTurn: number,
    private readonly defer: Time['defer'] | null,
  ) {
    if (!(maxTasksPerTurn >= 1)) throw new RangeError(`coordinator.max.timer.tasks.per.turn must be >= 1, got ${maxTasksPerTurn}`);
  }

  /** Tasks waiting for a later turn. */
  get waiting(): number {
    return this.queue.length - this.head;
  }

  /** A timer fell due: runs `task` now when this turn has room and nothing waits, else queues it. A task that throws propagates. */
  due(task: () => void): void {
    if (this.defer === null) {
      task();
      return;
    }
    if (this.waiting === 0 && this.ranThisTurn < this.maxTasksPerTurn) {
      this.ranThisTurn++;
      this.scheduleTurnEnd();
      task();
      return;
    }
    this.queue.push(task);
    this.scheduleTurnEnd();
  }

  private scheduleTurnEnd(): void {
    if (this.turnEndScheduled) return;
    this.turnEndScheduled = true;
    this.defer!(() => this.nextTurn());
  }

  /** A new turn: runs up to maxTasksPerTurn waiting tasks, then defers again while any wait. */
  private nextTurn(): void {
    this.turnEndScheduled = false;
    this.ranThisTurn = 0;
    try {
      while (this.waiting > 0 && this.ranThisTurn < this.maxTasksPerTurn) {
        const task = this.queue[this.head]!;
        this.queue[this.head++] = undefined;
        this.ranThisTurn++;
        task();
      }
    } finally {
      if (this.waiting > 0) {
        this.scheduleTurnEnd();
      } else {
        this.queue = [];
        this.head = 0;
        // Nothing waits: timers of the next turn start with a fresh count.
        this.ranThisTurn = 0;
      }
    }
  }
}
