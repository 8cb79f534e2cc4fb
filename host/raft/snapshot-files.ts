/**
 * Raft snapshots on disk, in the partition directory of `__cluster_metadata-0`, named as Kafka
 * names them (org.apache.kafka.snapshot.Snapshots): `<endOffset, 20 digits>-<epoch, 10
 * digits>.checkpoint`, e.g. `00000000000000001234-0000000007.checkpoint` for the snapshot id
 * (endOffset 1234, epoch 7).
 *
 * Content: the serialized snapshot bytes exactly as handed over (snapshot.ts's layout; Kafka's
 * files hold record batches instead, our frame is the caller's). A file is written whole to
 * `<name>.tmp`, fsynced, renamed into place and the directory fsynced, so a snapshot either
 * exists complete or not at all; a leftover `.tmp` is deleted on open (the log loader deletes it
 * too). Only the latest snapshot is kept: older ones are deleted once a newer one is durable.
 */
import * as path from 'node:path';
import { type Disk, readWholeFile, writeFileAtomically } from '../io/disk.js';
import type { RaftSnapshot, SnapshotId } from './raft-log.js';

/** Kafka's snapshot file suffix. */
export const SNAPSHOT_FILE_SUFFIX = '.checkpoint';

const SNAPSHOT_FILE_NAME = /^(\d{20})-(\d{10})\.checkpoint$/;

/** The file name of snapshot `id` (Kafka's `%020d-%010d.checkpoint`). */
export function snapshotFileName(id: SnapshotId): string {
  return `${String(id.endOffset).padStart(20, '0')}-${String(id.epoch).padStart(10, '0')}${SNAPSHOT_FILE_SUFFIX}`;
}

/** The snapshot id a file name stands for, or undefined when it is no snapshot file name. */
export function parseSnapshotFileName(name: string): SnapshotId | undefined {
  const match = SNAPSHOT_FILE_NAME.exec(name);
  if (match === null) return undefined;
  const endOffset = Number(match[1]);
  const epoch = Number(match[2]);
  if (!Number.isSafeInteger(endOffset) || epoch > 0x7fffffff) return undefined;
  return { endOffset, epoch };
}

/** Orders snapshot ids by end offset, then epoch (Kafka's OffsetAndEpoch order). */
export function compareSnapshotIds(a: SnapshotId, b: SnapshotId): number {
  return a.endOffset !== b.endOffset ? a.endOffset - b.endOffset : a.epoch - b.epoch;
}

/** The snapshot files of one partition directory; keeps the latest one's bytes once read. */
export class SnapshotFiles {
  private latestId: SnapshotId | undefined;
  private latestBytes: Uint8Array | undefined;

  private constructor(private readonly disk: Disk, readonly dir: string) {}

  /**
   * Finds the latest snapshot in `dir` and deletes the older ones and leftover temporary files.
   * @throws DiskError when the directory cannot be listed or cleaned
   */
  static open(disk: Disk, dir: string): SnapshotFiles {
    const files = new SnapshotFiles(disk, dir);
    let changed = false;
    const ids: SnapshotId[] = [];
    for (const name of disk.list(dir)) {
      if (name.endsWith(`${SNAPSHOT_FILE_SUFFIX}.tmp`)) {
        disk.delete(path.join(dir, name));
        changed = true;
        continue;
      }
      const id = parseSnapshotFileName(name);
      if (id !== undefined) ids.push(id);
    }
    ids.sort(compareSnapshotIds);
    files.latestId = ids[ids.length - 1];
    if (files.latestId !== undefined) changed = files.deleteAllExcept(files.latestId, ids) || changed;
    if (changed) disk.fsyncDir(dir);
    return files;
  }

  /** The latest snapshot's id, if any. */
  latest(): SnapshotId | undefined {
    return this.latestId;
  }

  /** The latest snapshot, its bytes read from its file on first use. @throws DiskError */
  latestSnapshot(): RaftSnapshot | undefined {
    const id = this.latestId;
    if (id === undefined) return undefined;
    this.latestBytes ??= new Uint8Array(readWholeFile(this.disk, this.filePath(id)));
    return { id, bytes: this.latestBytes };
  }

  /**
   * Writes `snapshot` durably and makes it the latest, then deletes every other snapshot file.
   * @throws DiskError (the snapshot is then either complete on disk or absent)
   */
  store(snapshot: RaftSnapshot): void {
    writeFileAtomically(this.disk, this.filePath(snapshot.id), snapshot.bytes);
    const previous = this.latestId;
    this.latestId = snapshot.id;
    this.latestBytes = snapshot.bytes;
    if (previous !== undefined && compareSnapshotIds(previous, snapshot.id) !== 0) {
      this.disk.delete(this.filePath(previous));
      this.disk.fsyncDir(this.dir);
    }
  }

  /** The path of snapshot `id`'s file. */
  filePath(id: SnapshotId): string {
    return path.join(this.dir, snapshotFileName(id));
  }

  private deleteAllExcept(keep: SnapshotId, ids: readonly SnapshotId[]): boolean {
    let deleted = false;
    for (const id of ids) {
      if (compareSnapshotIds(id, keep) === 0) continue;
      this.disk.delete(this.filePath(id));
      deleted = true;
    }
    return deleted;
  }
}
