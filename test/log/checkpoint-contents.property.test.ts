/**
 * The checkpoint contents a LogManager directory builds (log-directory-state.ts) reuse a file's
 * last content while none of its logs' offsets moved (issue 15: rebuilding the four files of 50k
 * partitions every housekeeping period stalled an idle broker). Through random histories of logs
 * added and removed and offsets (recovery point, log start offset, high watermark, cleaner offset)
 * moved, every answer equals the contents built from scratch, and an unchanged file is the same
 * object as before (nothing rebuilt).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LogCleaner } from '../../host/log/log-cleaner.js';
import type { LogDirectory } from '../../host/log/log-directory.js';
import {
  addDirectoryLog, checkpointContents, type DirectoryState, emptyDirectoryLogs, removeDirectoryLog,
} from '../../host/log/log-directory-state.js';
import type { OffsetCheckpointFile } from '../../host/log/offset-checkpoint-file.js';
import type { UnifiedLog } from '../../host/log/unified-log.js';

interface FakeLog {
  topic: string;
  partition: number;
  recoveryPoint: number;
  logStartOffset: number;
  highWatermark: number;
}

type Step =
  | { kind: 'add'; partition: number }
  | { kind: 'remove'; partition: number }
  | { kind: 'move'; partition: number; file: 0 | 1 | 2 | 3; offset: number }
  | { kind: 'read' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), partition: fc.nat(6) }),
  fc.record({ kind: fc.constant('remove' as const), partition: fc.nat(6) }),
  fc.record({ kind: fc.constant('move' as const), partition: fc.nat(6), file: fc.constantFrom(0 as const, 1 as const, 2 as const, 3 as const), offset: fc.integer({ min: -1, max: 3 }) }),
  fc.constant({ kind: 'read' as const }),
);

const file = (name: string): OffsetCheckpointFile => ({ filePath: `/d/${name}` }) as unknown as OffsetCheckpointFile;

function directory(): DirectoryState {
  return {
    directory: {} as LogDirectory,
    recoveryPoints: file('recovery-point-offset-checkpoint'),
    logStartOffsets: file('log-start-offset-checkpoint'),
    highWatermarks: file('replication-offset-checkpoint'),
    cleanerOffsets: file('cleaner-offset-checkpoint'),
    lastWritten: new Map(), syncWrites: new Map(), backgroundWrite: null, nonZeroKeys: new Set(),
    ...emptyDirectoryLogs(),
  };
}

/** What the contents were before the reuse: every file built from the logs, in the order they were added. */
function fromScratch(logs: readonly FakeLog[], cleanerOffsets: ReadonlyMap<FakeLog, number>): { text: string; offsets: number[] }[] {
  const offsets: ((log: FakeLog) => number | undefined)[] = [(l) => l.recoveryPoint, (l) => l.logStartOffset, (l) => l.highWatermark, (l) => cleanerOffsets.get(l)];
  return offsets.map((offset) => {
    const entries = logs.flatMap((log) => (offset(log) === undefined ? [] : [{ topic: log.topic, partition: log.partition, offset: offset(log)! }]));
    return { text: entries.map((e) => `${e.topic} ${e.partition} ${e.offset}`).join('\n'), offsets: entries.map((e) => e.offset) };
  });
}

describe('checkpoint contents of a log directory', () => {
  it('equal the contents built from scratch after every change, and an unchanged file is not built again', () => {
    fc.assert(fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
      const state = directory();
      const cleanerOffsets = new Map<FakeLog, number>();
      const cleaner = { firstDirtyOffset: (log: UnifiedLog) => cleanerOffsets.get(log as unknown as FakeLog) } as unknown as LogCleaner;
      const logs: FakeLog[] = [];
      let previous = checkpointContents(state, cleaner);
      let previousScratch = fromScratch(logs, cleanerOffsets);
      for (const s of steps) {
        const log = logs.find((l) => l.partition === s.partition);
        if (s.kind === 'add' && log === undefined) {
          const added = { topic: 't', partition: s.partition, recoveryPoint: 0, logStartOffset: 0, highWatermark: 0 };
          logs.push(added);
          addDirectoryLog(state, added as unknown as UnifiedLog);
        } else if (s.kind === 'remove' && log !== undefined) {
          logs.splice(logs.indexOf(log), 1);
          removeDirectoryLog(state, log as unknown as UnifiedLog);
        } else if (s.kind === 'move' && log !== undefined) {
          const offset = Math.max(0, s.offset);
          if (s.file === 0) log.recoveryPoint = offset;
          else if (s.file === 1) log.logStartOffset = offset;
          else if (s.file === 2) log.highWatermark = offset;
          else if (s.offset < 0) cleanerOffsets.delete(log);
          else cleanerOffsets.set(log, offset);
        }
        const contents = checkpointContents(state, cleaner);
        const scratch = fromScratch(logs, cleanerOffsets);
        expect(contents.map((c) => ({ text: c.text, offsets: c.entries.map((e) => e.offset) }))).toEqual(scratch);
        for (let f = 0; f < 4; f++) {
          if (scratch[f]!.text === previousScratch[f]!.text && s.kind !== 'add' && s.kind !== 'remove') expect(contents[f]).toBe(previous[f]);
        }
        previous = [...contents];
        previousScratch = scratch;
      }
    }), { numRuns: 300 });
  });
});
