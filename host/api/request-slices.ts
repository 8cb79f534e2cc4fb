/**
 * Bounded synchronous work per request turn (issue 15): a handler that works through a very long
 * list (partitions of a ListOffsets, DeleteRecords or DescribeProducers, groups of a DescribeGroups: a 100 MiB
 * request can name millions) maps it in slices (each API's `*.max.partitions.per.turn` or
 * `describe.groups.max.groups.per.turn` config, host/config/limit-configs.ts), yielding to the event loop between slices through
 * `BrokerServices.defer`, so other clients' requests are answered in between. Small lists (one
 * slice) stay synchronous. Results keep the input order.
 */

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
