/**
 * Pages bounded by partitions, for the HTTP answers that list many topics or groups (issue 15):
 * `GET /consumer-lag` (consumer.lag.max.page.partitions, http-server.ts) and the console's topic
 * list (console.topics.max.page.partitions, console-topics-page.ts).
 */

/**
 * One page of `items` from index `offset` (clamped to 0): items in order until `maxItems` of them,
 * or until the next one would take their partitions (`partitionsOf`) past `maxPartitions`; a page
 * holds at least one item when any is left, however many partitions that item has.
 * @returns the page and `nextOffset`, the index of the next page's first item (null after the last)
 */
export function pageByPartitions<T>(
  items: readonly T[],
  offset: number,
  maxItems: number,
  maxPartitions: number,
  partitionsOf: (item: T) => number,
): { page: T[]; nextOffset: number | null } {
  const page: T[] = [];
  let partitions = 0;
  let index = Math.max(0, offset);
  for (; index < items.length && page.length < maxItems; index++) {
    const count = partitionsOf(items[index]!);
    if (page.length > 0 && partitions + count > maxPartitions) break;
    page.push(items[index]!);
    partitions += count;
  }
  return { page, nextOffset: index < items.length ? index : null };
}
