/**
 * Kafka's `.lock` file in every log directory: one broker per `log.dirs` entry. Two brokers
 * appending to the same segments would interleave offsets and corrupt each other's indexes and
 * checkpoints, so a second broker must refuse to start rather than share the directory.
 *
 * Kafka holds an OS file lock (FileChannel.tryLock) on `<dir>/.lock`. Node has no flock, so the
 * lock is the file's existence, created exclusively and holding its owner:
 * ```
 *   <pid>\n<nonce>\n        pid of the owning process; nonce = random hex, one per acquisition
 * ```
 * Acquire: write a private temp file, then `link()` it to `.lock`: atomic, fails with EEXIST when
 * the lock exists, and never exposes a half-written lock. When `.lock` exists its owner is judged:
 * - held by this process (a broker started earlier in it) → refused;
 * - its pid alive (signal 0 reaches it, not a zombie) → refused with
 *   "log directory X is in use by another process (pid N)";
 * - otherwise stale (the owner died without stop(): SIGKILL, crash, power loss; a pid equal to
 *   ours but not held by this process was left by an earlier process with the same pid, common in
 *   containers; unreadable content) → taken over with a warning. The takeover renames the stale
 *   file aside and checks it is still the one judged (same content) before creating ours, so two
 *   brokers racing over one stale lock cannot both win.
 * Release (broker stop, failed start): `.lock` is deleted only while it still holds our nonce.
 *
 * Limits: the pid is meaningful on this host only (a directory shared over NFS by two hosts is
 * not protected), and a dead owner's pid reused by an unrelated live process keeps the lock
 * refused; the message names the file so an operator can delete it.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

/** Kafka's lock file name (LogManager.LockFileName). */
export const LOG_DIR_LOCK_FILE = '.lock';

/** Thrown when a log directory is locked by a live process (this one included). */
export class LogDirInUseError extends Error {
  readonly logDir: string;
  readonly pid: number;
  constructor(logDir: string, pid: number, message: string) {
    super(message);
    this.name = 'LogDirInUseError';
    this.logDir = logDir;
    this.pid = pid;
  }
}

/** Where a stale lock takeover is reported (pino-compatible). */
export interface LogDirLockLogger {
  warn(fields: object, message: string): void;
}

/** The locks of one broker; `release()` is idempotent. */
export interface LogDirLocks {
  readonly logDirs: readonly string[];
  release(): void;
}

/** Resolved log dir → nonce of the lock this process holds there. */
const heldByThisProcess = new Map<string, string>();

/**
 * Locks every directory of `logDirs` (created when missing), all or none: when one is refused
 * the ones already locked are released before the error is thrown.
 * @throws LogDirInUseError when a directory is locked by a live process
 * @throws the fs error when a directory cannot be created or the lock file written
 */
export function lockLogDirs(logDirs: readonly string[], logger?: LogDirLockLogger): LogDirLocks {
  const acquired: { dir: string; nonce: string }[] = [];
  try {
    for (const dir of new Set(logDirs.map((logDir) => path.resolve(logDir)))) {
      acquired.push({ dir, nonce: lockLogDir(dir, logger) });
    }
  } catch (error) {
    for (const lock of acquired) unlockLogDir(lock.dir, lock.nonce);
    throw error;
  }
  let released = false;
  return {
    logDirs: acquired.map((lock) => lock.dir),
    release(): void {
      if (released) return;
      released = true;
      for (const lock of acquired) unlockLogDir(lock.dir, lock.nonce);
    },
  };
}

/** Locks one resolved directory; returns the nonce written. */
function lockLogDir(dir: string, logger: LogDirLockLogger | undefined): string {
  mkdirSync(dir, { recursive: true });
  const lockPath = path.join(dir, LOG_DIR_LOCK_FILE);
  const nonce = randomBytes(8).toString('hex');
  const content = `${process.pid}\n${nonce}\n`;
  const temporary = path.join(dir, `${LOG_DIR_LOCK_FILE}.${nonce}.tmp`);
  writeFileSync(temporary, content, { flag: 'wx' });
  try {
    // Bounded: each round either creates the lock, refuses, or removes one stale lock; a lock
    // that keeps reappearing stale means other processes keep dying on this directory.
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        linkSync(temporary, lockPath);
        heldByThisProcess.set(dir, nonce);
        return nonce;
      } catch (error) {
        if (!isCode(error, 'EEXIST')) throw error;
      }
      const existing = readLockFile(lockPath);
      if (existing === null) continue; // deleted meanwhile: try again
      const owner = parseOwner(existing);
      if (owner !== null && owner.pid === process.pid && heldByThisProcess.get(dir) === owner.nonce) {
        throw new LogDirInUseError(dir, owner.pid,
          `log directory ${dir} is in use by another broker in this process (pid ${owner.pid}); stop it first or use other log.dirs`);
      }
      if (owner !== null && owner.pid !== process.pid && isProcessAlive(owner.pid)) {
        throw new LogDirInUseError(dir, owner.pid,
          `log directory ${dir} is in use by another process (pid ${owner.pid}); two brokers cannot share log.dirs ` +
          `(if no broker runs there, delete ${lockPath})`);
      }
      if (takeOverStaleLock(lockPath, existing)) {
        logger?.warn({ event: 'log_dir.stale_lock', logDir: dir, stalePid: owner?.pid ?? null },
          `log directory ${dir} had a stale lock of ${owner === null ? 'an unreadable owner' : `pid ${owner.pid}, which is not running`}; taking it over`);
      }
    }
    throw new Error(`cannot lock log directory ${dir}: ${lockPath} keeps reappearing`);
  } finally {
    unlinkQuietly(temporary);
  }
}

/** Deletes the lock of `dir` if it is still ours. */
function unlockLogDir(dir: string, nonce: string): void {
  if (heldByThisProcess.get(dir) === nonce) heldByThisProcess.delete(dir);
  const lockPath = path.join(dir, LOG_DIR_LOCK_FILE);
  const existing = readLockFile(lockPath);
  if (existing === null || parseOwner(existing)?.nonce !== nonce) return;
  unlinkQuietly(lockPath);
}

/**
 * Moves the stale lock aside, then checks the moved file is the one judged stale; if a live
 * owner replaced it meanwhile, its lock is put back (link fails if yet another one appeared,
 * which the next round judges). Returns true when a stale lock was removed.
 */
function takeOverStaleLock(lockPath: string, judged: string): boolean {
  const aside = `${lockPath}.${randomBytes(8).toString('hex')}.stale`;
  try {
    renameSync(lockPath, aside);
  } catch (error) {
    if (isCode(error, 'ENOENT')) return false;
    throw error;
  }
  try {
    if (readLockFile(aside) === judged) return true;
    try {
      linkSync(aside, lockPath);
    } catch (error) {
      if (!isCode(error, 'EEXIST')) throw error;
    }
    return false;
  } finally {
    unlinkQuietly(aside);
  }
}

function readLockFile(lockPath: string): string | null {
  try {
    return readFileSync(lockPath, 'utf8');
  } catch (error) {
    if (isCode(error, 'ENOENT')) return null;
    throw error;
  }
}

function parseOwner(content: string): { pid: number; nonce: string } | null {
  const [pidText, nonce] = content.split('\n');
  if (pidText === undefined || !/^\d+$/.test(pidText) || nonce === undefined || nonce === '') return null;
  const pid = Number(pidText);
  return Number.isSafeInteger(pid) && pid > 0 ? { pid, nonce } : null;
}

/** Signal 0 reaches the process (EPERM: alive, someone else's) and, on Linux, it is not a zombie. */
function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return isCode(error, 'EPERM');
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // `pid (comm) state ...`: comm may hold spaces and parentheses, the state follows the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc (not Linux): signal 0 is all we know
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch (error) {
    if (!isCode(error, 'ENOENT')) throw error;
  }
}

function isCode(error: unknown, code: string): boolean {
  return (error as { code?: unknown } | null)?.code === code;
}
