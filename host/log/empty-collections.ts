/**
 * One empty Map and one empty Set shared by every per-partition structure that has stored
 * nothing yet (issue 15): V8 gives each `new Map()` a hash table for 4 entries at once, 184 bytes
 * with the object (a Set 152), and a partition that is never written held six of them (producer
 * state, transaction index), a sixth of an empty partition's heap. An owner keeps its field
 * typed read-only, starts it at {@link emptyMap} / {@link emptySet}, and swaps in a collection
 * of its own on its first write ({@link ownMap}, {@link ownSet}); clearing is assigning the
 * empty one back, which also frees the table.
 *
 * The shared ones refuse every write (an assertion, on in production): a write that skipped
 * `ownMap` would otherwise leak one partition's entries into all the others.
 */

class SharedEmptyMap extends Map<never, never> {
  override set(): never {
    throw new Error('assertion failed: the shared empty map is never written (call ownMap first)');
  }
}

class SharedEmptySet extends Set<never> {
  override add(): never {
    throw new Error('assertion failed: the shared empty set is never written (call ownSet first)');
  }
}

const EMPTY_MAP: ReadonlyMap<never, never> = new SharedEmptyMap();
const EMPTY_SET: ReadonlySet<never> = new SharedEmptySet();

/** The shared empty map, as a read-only map of any types. */
export function emptyMap<K, V>(): ReadonlyMap<K, V> {
  return EMPTY_MAP as ReadonlyMap<K, V>;
}

/** The shared empty set, as a read-only set of any type. */
export function emptySet<T>(): ReadonlySet<T> {
  return EMPTY_SET as ReadonlySet<T>;
}

/** `map` if it is an owner's own, else a new empty Map to store in the owner's field before writing. */
export function ownMap<K, V>(map: ReadonlyMap<K, V>): Map<K, V> {
  return map === EMPTY_MAP ? new Map<K, V>() : map as Map<K, V>;
}

/** `set` if it is an owner's own, else a new empty Set to store in the owner's field before writing. */
export function ownSet<T>(set: ReadonlySet<T>): Set<T> {
  return set === EMPTY_SET ? new Set<T>() : set as Set<T>;
}
