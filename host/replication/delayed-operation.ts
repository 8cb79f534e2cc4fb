/**
 * Kafka's DelayedOperation: a response that waits for a condition (enough bytes for a Fetch,
 * enough replicas for an acks=all Produce) or a timeout, whichever comes first.
 *
 * States: waiting → completed (by `tryComplete` finding the condition met, by timeout, or by
 * `forceComplete` at shutdown / when the purgatory is full). `onComplete` runs exactly once.
 */
export abstract class DelayedOperation<Event = void> {
  private completed = false;
  /** @internal The purgatory's bookkeeping: the keys watched while waiting (null when not watched). */
  watchKeys: readonly string[] | null = null;

  /** @param delayMs how long to wait at most, ms */
  constructor(readonly delayMs: number) {}

  get isCompleted(): boolean {
    return this.completed;
  }

  /**
   * Checks the condition and calls `forceComplete()` when it holds. `key` and `event` say what
   * changed (absent on the first check). Returns true if the operation is now completed.
   */
  abstract tryComplete(key?: string, event?: Event): boolean;

  /** Builds and delivers the response. Called exactly once. */
  protected abstract onComplete(): void;

  /** Hook for the timeout path, before onComplete. */
  protected onExpiration(): void {}

  /** Completes now unless already completed; true if this call completed it. */
  forceComplete(): boolean {
    if (this.completed) return false;
    this.completed = true;
    this.onComplete();
    return true;
  }

  /** @internal Called by the purgatory when delayMs passes. */
  expire(): void {
    if (this.completed) return;
    this.onExpiration();
    this.forceComplete();
  }
}
