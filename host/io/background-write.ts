/**
 * An atomic, durable file replacement (temp file, fsync, rename, directory fsync) whose two
 * fsyncs run on libuv's thread pool instead of blocking the event loop.
 *
 * Why: the broker's periodic checkpoint writes (replication-offset-checkpoint every tick, Kafka's
 * replica.high.watermark.checkpoint.interval.ms) fsynced on the event loop; a file fsync plus a
 * directory fsync took 2–10 ms on a quiet machine and 13–117 ms on a busy one, stalling every
 * produce and fetch for that long (the W4 latency tail). Kafka does them on a scheduler thread.
 *
 * Races with synchronous writers of the same file (shutdown, topic deletion): the open, truncate
 * and write of the temp file happen in one synchronous step, so a synchronous writer (also one
 * step) never interleaves with them; after the asynchronous fsync, `stillWanted()` is asked,
 * synchronously with the rename, whether the content is still current. A synchronous write in
 * between answers no, and this write is dropped instead of renaming stale content over newer.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { DiskError } from './disk.js';

const fsyncAsync = promisify(fs.fsync);

/** What became of a background write. */
export type BackgroundWriteOutcome = 'written' | 'dropped';

/**
 * Replaces `filePath` with `data` like writeFileAtomically (same `<file>.tmp` name), fsyncing off
 * the event loop. Resolves 'dropped' (nothing renamed, temp file removed) when `stillWanted()` is
 * false once the data is durable in the temp file.
 * @throws DiskError (rejects) on any I/O failure, with the errno name as `code`
 */
export async function writeFileAtomicallyInBackground(
  filePath: string,
  data: Uint8Array,
  stillWanted: () => boolean,
): Promise<BackgroundWriteOutcome> {
  const temporary = `${filePath}.tmp`;
  let fd: number;
  try {
    fd = fs.openSync(temporary, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_TRUNC, 0o644);
  } catch (error) {
    throw toDiskError(error, 'open', temporary);
  }
  try {
    try {
      let written = 0;
      while (written < data.length) written += fs.writeSync(fd, data, written, data.length - written, written);
    } catch (error) {
      throw toDiskError(error, 'write', temporary);
    }
    try {
      await fsyncAsync(fd);
    } catch (error) {
      throw toDiskError(error, 'fsync', temporary);
    }
  } finally {
    try {
      fs.closeSync(fd);
    } catch {
      // The data is durable or the write already failed; a failed close changes neither.
    }
  }
  if (!stillWanted()) {
    // Synchronous writers leave no temp file behind, so one that exists now is ours.
    try {
      fs.unlinkSync(temporary);
    } catch {
      // Renamed by a synchronous writer meanwhile, or the directory is gone.
    }
    return 'dropped';
  }
  try {
    fs.renameSync(temporary, filePath);
  } catch (error) {
    throw toDiskError(error, 'rename', filePath);
  }
  const dir = path.dirname(filePath);
  let dirFd: number;
  try {
    dirFd = fs.openSync(dir, fs.constants.O_RDONLY);
  } catch (error) {
    throw toDiskError(error, 'open', dir);
  }
  try {
    await fsyncAsync(dirFd);
  } catch (error) {
    throw toDiskError(error, 'fsync', dir);
  } finally {
    try {
      fs.closeSync(dirFd);
    } catch {
      // As above.
    }
  }
  return 'written';
}

function toDiskError(error: unknown, syscall: string, filePath: string): DiskError {
  const code = (error as NodeJS.ErrnoException | null)?.code ?? 'EIO';
  return new DiskError(code, syscall, filePath, error instanceof Error ? error.message : undefined);
}

/**
 * Removes a directory and everything in it on libuv's thread pool (`fs.promises.rm`, recursive):
 * a deleted partition's `-delete` directory, whose removal nothing waits for and need not be
 * durable (a directory that comes back after a power loss is removed again at start-up). A
 * missing directory is not an error.
 * @throws DiskError (rejects) on any I/O failure, with the errno name as `code`
 */
export async function removeDirectoryInBackground(dir: string): Promise<void> {
  try {
    await fs.promises.rm(dir, { recursive: true, force: true });
  } catch (error) {
    throw toDiskError(error, 'rm', dir);
  }
}

/**
 * Makes one directory on libuv's thread pool (`fs.promises.mkdir`, not recursive): a new
 * partition's directory, made before the event-loop work that fills it, so a busy file system's
 * journal (a mkdir waits behind other processes' fsyncs, ~1 ms each on this machine) does not
 * hold the event loop. Not durable: the caller fsyncs the parent as its contract says.
 * @returns true when it was made, false when it already existed
 * @throws DiskError (rejects) on any other failure, with the errno name as `code`
 */
export async function makeDirectoryInBackground(dir: string): Promise<boolean> {
  try {
    await fs.promises.mkdir(dir);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException | null)?.code === 'EEXIST') return false;
    throw toDiskError(error, 'mkdir', dir);
  }
}

/**
 * Renames a file or directory on libuv's thread pool (`fs.promises.rename`): a deleted partition's
 * directory moved to its `-delete` name. Not durable until the parent directory is fsynced
 * ({@link fsyncDirectoryInBackground}).
 * @throws DiskError (rejects) on any failure, with the errno name as `code`
 */
export async function renameInBackground(from: string, to: string): Promise<void> {
  try {
    await fs.promises.rename(from, to);
  } catch (error) {
    throw toDiskError(error, 'rename', from);
  }
}

/**
 * fsyncs a directory on libuv's thread pool: the entries made, renamed or removed in it become
 * durable.
 * @throws DiskError (rejects) on any failure, with the errno name as `code`
 */
export async function fsyncDirectoryInBackground(dir: string): Promise<void> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(dir, fs.constants.O_RDONLY);
  } catch (error) {
    throw toDiskError(error, 'open', dir);
  }
  try {
    await handle.sync();
  } catch (error) {
    throw toDiskError(error, 'fsync', dir);
  } finally {
    await handle.close().catch(() => undefined);
  }
}
