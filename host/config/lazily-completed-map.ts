/**
 * A Map whose remaining entries are added on first need: `BrokerConfig.values` holds every known
 * broker config's value, but the defaults of the ~300 Kafka configs Tributary does not implement
 * come from the Kafka config catalog (kafka-config-catalog.ts), which a start-up that sets none of
 * them should not read. Reads of a key already present (every config Tributary implements, every
 * config set) answer at once; anything else (another key, `size`, iteration, `forEach`) first
 * runs `complete` once, which appends the rest. Observed from outside it is the complete Map, in
 * the same insertion order as if `complete` had run in the constructor's caller.
 */
export class LazilyCompletedMap<K, V> extends Map<K, V> {
  private completion: ((map: Map<K, V>) => void) | null;

  /**
   * @param entries the entries known now, in order
   * @param complete adds the rest (through the Map it is given, after the known entries); run at
   *   most once, on first need
   */
  constructor(entries: Iterable<readonly [K, V]>, complete: (map: Map<K, V>) => void) {
    super(entries);
    this.completion = complete;
  }

  /** Runs the completion if it has not run yet (it adds entries with `set`, which is Map's own). */
  private completed(): this {
    const complete = this.completion;
    if (complete !== null) {
      this.completion = null;
      complete(this);
    }
    return this;
  }

  override get(key: K): V | undefined {
    return super.has(key) ? super.get(key) : this.completed().superGet(key);
  }

  override has(key: K): boolean {
    return super.has(key) || this.completed().superHas(key);
  }

  override get size(): number {
    this.completed();
    return super.size;
  }

  override keys(): MapIterator<K> {
    this.completed();
    return super.keys();
  }

  override values(): MapIterator<V> {
    this.completed();
    return super.values();
  }

  override entries(): MapIterator<[K, V]> {
    this.completed();
    return super.entries();
  }

  override [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries();
  }

  override forEach(callback: (value: V, key: K, map: Map<K, V>) => void, thisArg?: unknown): void {
    this.completed();
    super.forEach(callback, thisArg);
  }

  private superGet(key: K): V | undefined {
    return super.get(key);
  }

  private superHas(key: K): boolean {
    return super.has(key);
  }
}
