/**
 * The shared empty collections and flat paths that keep an unwritten partition small (issue 15):
 * the shared empty map and set refuse writes (a write that skipped ownMap/ownSet would leak one
 * partition's entries into every other), ownMap/ownSet hand out a collection of one's own once
 * and then the same one, and joinFlat gives path.join's very text.
 */
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { emptyMap, emptySet, ownMap, ownSet } from '../../host/log/empty-collections.js';
import { joinFlat } from '../../host/log/flat-path.js';

describe('empty collections', () => {
  it('share one empty map and set that refuse writes', () => {
    expect(emptyMap<number, string>()).toBe(emptyMap<string, number>());
    expect(() => (emptyMap<number, string>() as Map<number, string>).set(1, 'a')).toThrow(/never written/);
    expect(() => (emptySet<number>() as Set<number>).add(1)).toThrow(/never written/);
    expect(emptyMap<number, string>().size).toBe(0);
    expect(emptySet<number>().size).toBe(0);
  });

  it('hand out a collection of one\'s own on the first write, then keep it', () => {
    const map = ownMap(emptyMap<number, string>());
    expect(map).not.toBe(emptyMap());
    map.set(1, 'a');
    expect(ownMap(map)).toBe(map);
    expect(ownMap(emptyMap<number, string>())).not.toBe(map);
    const set = ownSet(emptySet<number>());
    set.add(7);
    expect(ownSet(set)).toBe(set);
    expect(emptySet<number>().has(7)).toBe(false);
    expect(emptyMap<number, string>().has(1)).toBe(false);
  });
});

describe('joinFlat', () => {
  it('gives path.join\'s text', () => {
    for (const [dir, name] of [['/tmp/data/topic-0', '00000000000000000000.log'], ['/tmp/data//x/../topic-1/', 'leader-epoch-checkpoint'], ['relative/dir', 'a.index']] as const) {
      expect(joinFlat(dir, name)).toBe(path.join(dir, name));
    }
  });
});
