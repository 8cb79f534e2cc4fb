/**
 * The `log.dirs` locks (Kafka's `.lock` file per log directory). The lock is an operating-system
 * matter (exclusive link(), the owner's pid, /proc), so it lives with the real I/O in
 * `io/log-dir-lock.ts`; this is the log folder's name for it.
 */
export { LOG_DIR_LOCK_FILE, LogDirInUseError, type LogDirLockLogger, type LogDirLocks, lockLogDirs } from '../io/log-dir-lock.js';
