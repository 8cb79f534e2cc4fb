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
 * A slice that throws is a bug or a disk failure the slice's owner did not handle: it is reported
 * to `onError` and the queue goes on with the next slice.
 */
export class SlicedWorkQueue {
  private readonly slices: (() => void)[] = [];
  private scheduled = false;
  private running = false;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly defer: ((task: () => void) => void) | undefined,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Queues `slices` after everything queued before; runs the first at once when the queue is idle. */
  enqueue(slices: readonly (() => void)[]): void {
    this.slices.push(...slices);
    if (this.defer === undefined) {
      this.drain();
      return;
    }
    if (!this.scheduled && !this.running) {
      this.runOne();
      this.schedule();
    }
  }

  /** Slices waiting to run. */
  get pendingSlices(): number {
    return this.slices.length;
  }

  /** Resolves once every slice queued so far has run. */
  whenIdle(): Promise<void> {
    if (this.slices.length === 0 && !this.running) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private schedule(): void {
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
    if (this.running) return; // a slice that enqueues more: the loop below picks them up
    while (this.slices.length > 0) this.runOne();
    this.notifyIdle();
  }

  private runOne(): void {
    const slice = this.slices.shift();
    if (slice === undefined) return;
    this.running = true;
    try {
      slice();
    } catch (error) {
      this.onError(error);
    } finally {
      this.running = false;
    }
  }

  private notifyIdle(): void {
    if (this.slices.length > 0 || this.running) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
