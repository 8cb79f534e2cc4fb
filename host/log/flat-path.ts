/**
 * File paths a partition keeps for its life (segment, index and checkpoint files), as flat
 * strings (issue 15). node's path.join builds its result from slices of its joined input, and V8
 * keeps that as a rope: a segment file's path was 11 heap objects, about 440 bytes, and the
 * paths of an empty partition's files a sixth of its heap. A copy made by joining its parts is
 * one flat string (about 100 bytes for a typical path), and the rope becomes garbage.
 */
import * as path from 'node:path';

/** `path.join(dir, name)`, the same text, as one flat string. */
export function joinFlat(dir: string, name: string): string {
  // Array.prototype.join copies into one sequential string; a path always has a separator, so
  // the array has at least two parts (a lone element would be returned as it is).
  return path.join(dir, name).split(path.sep).join(path.sep);
}
