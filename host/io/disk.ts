/**
 * The narrow, synchronous file-system seam every piece of storage goes through.
 *
 * Everything the log needs from a disk is here and nothing more, so that a fault-injecting
 * in-memory disk (`fault-disk.ts`) can stand in for the real one in tests and simulators.
 * Calls are synchronous on purpose: the log's state transitions stay atomic with respect to the
 * event loop, and Node's page-cache writes are fast enough that async I/O buys nothing here.
 *
 * Every failure is thrown as a {@link DiskError} carrying the errno code (`ENOSPC`, `EIO`,
 * `ENOENT`, ...). Callers turn those into `KAFKA_STORAGE_ERROR` (56); anything else that is
 * thrown is a bug.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * How to open a file.
 * - `read`: an existing file, reads only.
 * - `readWrite`: an existing file, reads and positional writes.
 * - `create`: reads and positional writes; the file is created empty when missing, and existing
 *   content is kept (never truncated on open).
 */
export type OpenMode = 'read' | 'readWrite' | 'create';

/** A failed disk call. `code` is the errno name (`ENOSPC`, `EIO`, `ENOENT`, `EBADF`, ...). */
export class DiskError extends Error {
  readonly code: string;
  readonly syscall: string;
  readonly path: string | undefined;

  constructor(code: string, syscall: string, filePath?: string, detail?: string) {
    super(`${code}: ${syscall}${filePath === undefined ? '' : ` '${filePath}'`}${detail === undefined ? '' : ` (${detail})`}`);
    this.name = 'DiskError';
    this.code = code;
    this.syscall = syscall;
    this.path = filePath;
  }
}

/** True when `error` came from a {@link Disk} (as opposed to a bug or a simulated crash). */
export function isDiskError(error: unknown): error is DiskError {
  return error instanceof DiskError;
}

/**
 * A synchronous file system. File descriptors are small integers owned by the caller: close what
 * you open. Paths are plain strings joined with `node:path`.
 */
export interface Disk {
  /** Opens a file; throws `ENOENT` for `read`/`readWrite` when it does not exist. */
  open(filePath: string, mode: OpenMode): number;
  close(fd: number): void;
  /**
   * Reads up to `length` bytes at file `position` into `target[targetOffset..]`.
   * Returns the number of bytes read (fewer only at end of file).
   */
  read(fd: number, target: Uint8Array, targetOffset: number, length: number, position: number): number;
  /**
   * Writes all of `data` at file `position` (extending the file when needed). On failure
   * (ENOSPC, EIO) a prefix of `data` may have reached the file: callers roll back with
   * {@link Disk.truncate}.
   */
  write(fd: number, data: Uint8Array, position: number): void;
  /** Makes the file's content and size durable (fsync). Its directory entry is not. */
  fsync(fd: number): void;
  /** Current size of an open file, bytes. */
  fileSize(fd: number): number;
  /** Sets an open file's size (shrinking drops bytes; growing pads with zeros). */
  truncate(fd: number, length: number): void;
  /** Size of a file by path, bytes; throws `ENOENT` when missing. */
  size(filePath: string): number;
  exists(filePath: string): boolean;
  /**
   * Atomically renames `from` to `to`, replacing `to` when it exists. Durable only once the
   * directories involved are fsynced ({@link Disk.fsyncDir}).
   */
  rename(from: string, to: string): void;
  /** Deletes a file or an empty directory. A missing path is not an error. */
  delete(filePath: string): void;
  /** Names (not paths) of the entries of a directory, sorted. */
  list(dir: string): string[];
  /** True when the path exists and is a directory. */
  isDirectory(filePath: string): boolean;
  /** Creates a directory and its missing parents; an existing directory is not an error. */
  mkdir(dir: string): void;
  /** Makes the directory's entries (creates, renames, deletes inside it) durable. */
  fsyncDir(dir: string): void;
  /**
   * Optional: makes everything written to the file system holding `dir` durable at once, file
   * contents and sizes and directory entries alike (Linux `syncfs(2)`): what an fsync of every
   * file and directory there would do, in one call. Throws a {@link DiskError} `ENOTSUP` when
   * the platform cannot (callers then fsync one by one), or the I/O error.
   */
  syncFileSystem?(dir: string): void;
}

function wrap(error: unknown, syscall: string, filePath?: string): DiskError {
  const code = typeof (error as { code?: unknown }).code === 'string' ? (error as { code: string }).code : 'EIO';
  return new DiskError(code, syscall, filePath, (error as Error).message);
}

/** {@link Disk} on `node:fs` (synchronous calls, positional reads and writes). */
export class NodeDisk implements Disk {
  open(filePath: string, mode: OpenMode): number {
    const flags =
      mode === 'read' ? fs.constants.O_RDONLY
        : mode === 'readWrite' ? fs.constants.O_RDWR
          : fs.constants.O_RDWR | fs.constants.O_CREAT;
    try {
      return fs.openSync(filePath, flags, 0o644);
    } catch (error) {
      throw wrap(error, 'open', filePath);
    }
  }

  close(fd: number): void {
    try {
      fs.closeSync(fd);
    } catch (error) {
      throw wrap(error, 'close');
    }
  }

  read(fd: number, target: Uint8Array, targetOffset: number, length: number, position: number): number {
    let total = 0;
    try {
      while (total < length) {
        const n = fs.readSync(fd, target, targetOffset + total, length - total, position + total);
        if (n === 0) break;
        total += n;
      }
    } catch (error) {
      throw wrap(error, 'read');
    }
    return total;
  }

  write(fd: number, data: Uint8Array, position: number): void {
    let written = 0;
    try {
      // writeSync may write fewer bytes than asked (e.g. just before ENOSPC): loop until done.
      while (written < data.length) {
        written += fs.writeSync(fd, data, written, data.length - written, position + written);
      }
    } catch (error) {
      throw wrap(error, 'write');
    }
  }

  fsync(fd: number): void {
    try {
      fs.fsyncSync(fd);
    } catch (error) {
      throw wrap(error, 'fsync');
    }
  }

  fileSize(fd: number): number {
    try {
      return fs.fstatSync(fd).size;
    } catch (error) {
      throw wrap(error, 'fstat');
    }
  }

  truncate(fd: number, length: number): void {
    try {
      fs.ftruncateSync(fd, length);
    } catch (error) {
      throw wrap(error, 'ftruncate');
    }
  }

  size(filePath: string): number {
    try {
      return fs.statSync(filePath).size;
    } catch (error) {
      throw wrap(error, 'stat', filePath);
    }
  }

  exists(filePath: string): boolean {
    return fs.existsSync(filePath);
  }

  rename(from: string, to: string): void {
    try {
      fs.renameSync(from, to);
    } catch (error) {
      throw wrap(error, 'rename', from);
    }
  }

  delete(filePath: string): void {
    try {
      const stat = fs.lstatSync(filePath, { throwIfNoEntry: false });
      if (stat === undefined) return;
      if (stat.isDirectory()) fs.rmdirSync(filePath);
      else fs.unlinkSync(filePath);
    } catch (error) {
      throw wrap(error, 'unlink', filePath);
    }
  }

  list(dir: string): string[] {
    try {
      return fs.readdirSync(dir).sort();
    } catch (error) {
      throw wrap(error, 'readdir', dir);
    }
  }

  isDirectory(filePath: string): boolean {
    const stat = fs.statSync(filePath, { throwIfNoEntry: false });
    return stat !== undefined && stat.isDirectory();
  }

  mkdir(dir: string): void {
    try {
      fs.mkdirSync(dir, { recursive: true });
    } catch (error) {
      throw wrap(error, 'mkdir', dir);
    }
  }

  /**
   * `syncfs(2)` through coreutils' `sync --file-system` (Node has no binding for it): one
   * process spawn and one call, whatever the number of dirty files; used by clean shutdowns
   * (deferred-sync-disk.ts). `ENOTSUP` off Linux, when `sync` cannot be run or does not know
   * the option; `EIO` when it reports an error (Linux 5.8+ reports writeback errors there).
   */
  syncFileSystem(dir: string): void {
    if (process.platform !== 'linux') throw new DiskError('ENOTSUP', 'syncfs', dir);
    try {
      execFileSync('sync', ['--file-system', dir], { stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (error) {
      const failure = error as { code?: unknown; status?: number | null; stderr?: Buffer };
      const detail = failure.stderr?.toString('utf8').trim() ?? String(error);
      if (typeof failure.code === 'string' || /unrecognized|invalid|illegal|usage/i.test(detail)) throw new DiskError('ENOTSUP', 'syncfs', dir, detail);
      throw new DiskError('EIO', 'syncfs', dir, detail);
    }
  }

  fsyncDir(dir: string): void {
    let fd = -1;
    try {
      fd = fs.openSync(dir, fs.constants.O_RDONLY);
      fs.fsyncSync(fd);
    } catch (error) {
      throw wrap(error, 'fsync', dir);
    } finally {
      if (fd >= 0) fs.closeSync(fd);
    }
  }
}

/** Reads a whole file by path. Throws {@link DiskError} (`ENOENT` when missing). */
export function readWholeFile(disk: Disk, filePath: string): Buffer {
  const fd = disk.open(filePath, 'read');
  try {
    const size = disk.fileSize(fd);
    const buffer = Buffer.allocUnsafe(size);
    const n = disk.read(fd, buffer, 0, size, 0);
    return buffer.subarray(0, n);
  } finally {
    disk.close(fd);
  }
}

/**
 * Replaces a file atomically and durably: writes `<path>.tmp`, fsyncs it, renames it over
 * `filePath`, fsyncs the directory. A crash at any point leaves either the old or the new
 * content (and perhaps a stale `.tmp`, which readers ignore). This is how Kafka writes its
 * checkpoint files. With `syncDirectory` false the caller fsyncs the directory (one fsync for
 * several files); until it does, a crash may leave the old content.
 */
export function writeFileAtomically(disk: Disk, filePath: string, data: Uint8Array, syncDirectory = true): void {
  const temporary = `${filePath}.tmp`;
  const fd = disk.open(temporary, 'create');
  try {
    // Only a stale temp file needs emptying: on ext4, truncating even an empty file makes its
    // close start writeback (auto_da_alloc), 20-30x the cost of the close (a clean shutdown
    // writes tens of thousands of these and makes them durable together afterwards).
    if (disk.fileSize(fd) > 0) disk.truncate(fd, 0);
    disk.write(fd, data, 0);
    disk.fsync(fd);
  } finally {
    disk.close(fd);
  }
  disk.rename(temporary, filePath);
  if (syncDirectory) disk.fsyncDir(path.dirname(filePath));
}
