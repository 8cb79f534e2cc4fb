/**
 * How the ReplicaManager bounds one request's synchronous work (issue 15): a Produce or Fetch
 * naming more than `request.max.partitions.per.turn` partitions is worked through in slices of
 * that many, each in its own event-loop turn, so other clients are answered in between; results
 * keep the request's order and equal a one-pass answer.
 */

/** request.max.partitions.per.turn and the event-loop turn to yield through. */
export interface RequestSlicing {
  /** Partitions of one request worked through per event-loop turn (>= 1). */
  readonly maxPartitionsPerTurn: number;
  /** Runs a task in a later event-loop turn (the Environment's `time.defer`: setImmediate). */
  readonly defer: (task: () => void) => void;
}

/**
 * Calls `work(end)` with end = slice, 2 x slice, ..., `count` (the exclusive end of each slice of
 * `maxPartitionsPerTurn`), awaiting one event-loop turn between two calls.
 */
export async function inSlices(count: number, slicing: RequestSlicing, work: (end: number) => void): Promise<void> {
  for (let end = 0; end < count;) {
    if (end > 0) await new Promise<void>((resolve) => slicing.defer(resolve));
    end = Math.min(count, end + slicing.maxPartitionsPerTurn);
    work(end);
  }
}
