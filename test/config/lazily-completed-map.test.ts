import { describe, expect, it } from 'vitest';
import { LazilyCompletedMap } from '../../host/config/lazily-completed-map.js';

function lazyMap(): { map: LazilyCompletedMap<string, number | null>; completions: () => number } {
  let completions = 0;
  const map = new LazilyCompletedMap<string, number | null>([['a', 1], ['n', null]], (rest) => {
    completions++;
    rest.set('b', 2);
    if (!rest.has('a')) rest.set('a', -1);
    rest.set('c', 3);
  });
  return { map, completions: () => completions };
}

describe('LazilyCompletedMap', () => {
  it('answers keys it has without completing, null values included', () => {
    const { map, completions } = lazyMap();
    expect(map.get('a')).toBe(1);
    expect(map.has('n')).toBe(true);
    expect(map.get('n')).toBeNull();
    expect(completions()).toBe(0);
  });

  it('completes once on any other read, and is then the complete Map in insertion order', () => {
    for (const read of [
      (m: Map<string, number | null>) => m.get('b'),
      (m: Map<string, number | null>) => m.has('zz'),
      (m: Map<string, number | null>) => m.size,
      (m: Map<string, number | null>) => [...m],
      (m: Map<string, number | null>) => [...m.keys()],
      (m: Map<string, number | null>) => [...m.values()],
      (m: Map<string, number | null>) => [...m.entries()],
      (m: Map<string, number | null>) => m.forEach(() => undefined),
    ]) {
      const { map, completions } = lazyMap();
      read(map);
      expect(completions()).toBe(1);
      expect([...map]).toEqual([['a', 1], ['n', null], ['b', 2], ['c', 3]]);
      expect(map.size).toBe(4);
      expect(new Map(map)).toEqual(new Map<string, number | null>([['a', 1], ['n', null], ['b', 2], ['c', 3]]));
      expect(completions()).toBe(1);
    }
  });
});
