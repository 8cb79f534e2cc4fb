/**
 * Bounded synchronous work per request turn (issue 15): a handler that works through a very long
 * list (partitions of a ListOffsets, DeleteRecords or DescribeProducers, groups of a DescribeGroups: a 100 MiB
 * request can name millions) maps it in slices, yielding to the event loop between slices through
 * `BrokerServices.defer`, so other clients' requests are answered in between. Small lists (one
 * slice) stay synchronous. Results keep the input order.
 */

/** ListOffsets partitions looked up per event-loop turn (a timestamp lookup may read an index). */
export const LIST_OFFSETS_SLICE_PARTITIONS = 500;
/** DeleteRecords partitions per turn (each may delete segments and write checkpoints). */
export const DELETE_RECORDS_SLICE_PARTITIONS = 64;
/** DescribeProducers partitions per turn (each copies the partition's active producers). */
export const DESCRIBE_PRODUCERS_SLICE_PARTITIONS = 500;
/**
 * Produce partitions answered per turn after the append (a partition of an unknown topic costs a
 * few µs: 5,000 is about 15 ms; the appends themselves are sliced by request.max.partitions.per.turn).
 */
export const PRODUCE_ANSWER_SLICE_PARTITIONS = 5_000;
/** DescribeGroups groups per turn. */
export const DESCRIBE_GROUPS_SLICE_GROUPS = 500;

/**
 * `items.map(fn)` in slices of `sliceSize` (>= 1), awaiting one event-loop turn through `defer`
 * between slices; without `defer`, at once. `fn` may be called with a slice of items in order.
 */
export async function mapInSlices<T, R>(
  items: readonly T[],
  sliceSize: number,
  fn: (slice: readonly T[]) => readonly R[],
  defer: ((task: () => void) => void) | undefined,
): Promise<R[]> {
  if (items.length <= sliceSize || defer === undefined) return [...fn(items)];
  const results: R[] = [];
  for (let start = 0; start < items.length; start += sliceSize) {
    if (start > 0) await nextTurn(defer);
    results.push(...fn(items.slice(start, start + sliceSize)));
  }
  return results;
}

/** Resolves in a later event-loop turn through `defer` (at once without it). */
export function nextTurn(defer: ((task: () => void) => void) | undefined): Promise<void> {
  return defer === undefined ? Promise.resolve() : new Promise<void>((resolve) => defer(resolve));
}
