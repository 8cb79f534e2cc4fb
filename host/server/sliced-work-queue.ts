/**
 * Work done in slices that yield to the event loop between them, in order: how the broker applies
 * large metadata changes (thousands of partition directories created or deleted) without holding
 * the event loop for the whole change, so other clients keep getting answers (issue 15; Kafka
 * applies metadata on its own thread, off the request path).
 *
 * A job is a list of slices (each a bounded piece of synchronous work). While nothing is queued
 * the first slice runs at once (small changes stay synchronous, as before); every other slice runs
 * in a later event-loop turn through the injected `defer` (Node's setImmediate: after the I/O
 * callbacks already queued), one slice per turn, jobs strictly in the order they were given.
 * Without `defer` every slice runs at once.
 *
 * A slice may return a promise (work it waits for off the event loop, e.g. partition directories
 * made or renamed on the thread pool around its synchronous part): nothing else in the queue runs
 * until it settles, the slice counts as run only then, and the next slice runs in a later turn. A
 * slice that throws (or whose promise rejects) is a bug or a disk failure the slice's owner did
 * not handle: it is reported to `onError` and the queue goes on with the next slice.
 *
 * {@link SlicedWorkQueue.whenRunThrough} is a FIFO barrier: it waits for the slices queued before
 * it only (slices are numbered as queued and counted as run), so work queued after it, even a
 * constant stream of it, never delays it; it resolves after at most as many turns as slices were
 * waiting. {@link SlicedWorkQueue.whenIdle} waits for an empty queue instead.
 */
/** One slice: bounded synchronous work, optionally ending in a promise the queue waits for. */
export type WorkSlice = () => void | PromiseLike<void>;

export class SlicedWorkQueue {
  private readonly slices: WorkSlice[] = [];
  private scheduled = false;
  private running = false;
  /** A slice's promise has not settled yet: the queue waits for it. */
  private waiting = false;
  private idleWaiters: (() => void)[] = [];
  /** Slices ever queued, and ever run (a failed one counts as run): slice n is the n-th queued. */
  private queued = 0;
  private ran = 0;
  /** {@link whenRunThrough} waiters, in the order of their targets (`queued` when they asked). */
  private barriers: { readonly target: number; readonly resolve: () => void }[] = [];

  constructor(
    private readonly defer: ((task: () => void) => void) | undefined,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Queues `slices` after everything queued before; runs the first at once when the queue is idle. */
  enqueue(slices: readonly WorkSlice[]): void {
    this.slices.push(...slices);
    this.queued += slices.length;
    if (this.waiting) return;
    if (this.defer === undefined) {
      this.drain();
      return;
    }
    if (!this.scheduled && !this.running) {
      this.runOne();
      this.schedule();
    }
  }

  /** Slices waiting to run, counting one whose promise has not settled. */
  get pendingSlices(): number {
    return this.slices.length + (this.waiting ? 1 : 0);
  }

  /** Resolves once every slice queued so far has run. */
  whenIdle(): Promise<void> {
    if (this.slices.length === 0 && !this.running && !this.waiting) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Resolves once every slice queued before this call has run (later slices are not waited for);
   * at once when none is waiting.
   */
  whenRunThrough(): Promise<void> {
    if (this.ran >= this.queued) return Promise.resolve();
    const target = this.queued;
    return new Promise((resolve) => this.barriers.push({ target, resolve }));
  }

  private schedule(): void {
    if (this.waiting) return;
    if (this.scheduled || this.slices.length === 0 || this.defer === undefined) {
      this.notifyIdle();
      return;
    }
    this.scheduled = true;
    this.defer(() => {
      this.scheduled = false;
      this.runOne();
      this.schedule();
    });
  }

  private drain(): void {
    if (this.running || this.waiting) return; // a slice that enqueues more: the loop below picks them up
    while (this.slices.length > 0 && !this.waiting) this.runOne();
    this.notifyIdle();
  }

  private runOne(): void {
    const slice = this.slices.shift();
    if (slice === undefined) return;
    this.running = true;
    let pending: PromiseLike<void> | undefined;
    try {
      const result: unknown = slice();
      // Only a thenable is waited for (a slice written as an expression may return anything).
      if (typeof (result as PromiseLike<void> | null)?.then === 'function') pending = result as PromiseLike<void>;
    } catch (error) {
      this.onError(error);
    } finally {
      this.running = false;
      if (pending === undefined) this.slicesRan();
    }
    if (pending === undefined) return;
    this.waiting = true;
    Promise.resolve(pending).then(undefined, (error: unknown) => this.onError(error)).then(() => {
      this.waiting = false;
      this.slicesRan();
      if (this.defer === undefined) this.drain();
      else this.schedule();
    });
  }

  private slicesRan(): void {
    this.ran++;
    this.releaseBarriers();
  }

  private releaseBarriers(): void {
    let released = 0;
    while (released < this.barriers.length && this.barriers[released]!.target <= this.ran) released++;
    if (released === 0) return;
    for (const barrier of this.barriers.splice(0, released)) barrier.resolve();
  }

  private notifyIdle(): void {
    if (this.slices.length > 0 || this.running || this.waiting) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
