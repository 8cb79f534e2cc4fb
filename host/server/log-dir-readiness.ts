/**
 * Readiness of the broker's log directories, for `/ready`: a directory that is full (an append
 * failed with ENOSPC and was rolled back) or offline (a disk error) makes `/ready` answer 503 with
 * a reason naming the directory, the condition and the error; a full directory is ready again
 * once an append in it succeeds. Each transition is logged once, when it happens (not per probe):
 * `log_dir.full` (warn), `log_dir.offline` (error), `log_dir.writable` (info).
 */
import type { LogDirCondition, LogDirectory } from '../log/log-directory.js';
import type { NotReadyReason } from '../network/http-server.js';
import type { Logger } from '../observability/logger.js';

/** Watches `directories` (logging each transition on `logger`); returns /ready's reasons callback. */
export function watchLogDirReadiness(directories: readonly LogDirectory[], logger: Logger): () => readonly NotReadyReason[] {
  for (const directory of directories) {
    directory.watch((dir, condition, reason) => logTransition(logger, dir, condition, reason));
  }
  return () => logDirNotReadyReasons(directories);
}

/** The reasons of the directories that are full or offline now (empty when all are online). */
export function logDirNotReadyReasons(directories: readonly LogDirectory[]): NotReadyReason[] {
  const reasons: NotReadyReason[] = [];
  for (const directory of directories) {
    const condition = directory.condition;
    if (condition === 'ONLINE') continue;
    const error = errorText(directory.reason);
    reasons.push(error === undefined ? { logDir: directory.path, condition } : { logDir: directory.path, condition, error });
  }
  return reasons;
}

function logTransition(logger: Logger, directory: LogDirectory, condition: LogDirCondition, reason: unknown): void {
  const fields = { logDir: directory.path, condition, ...(reason === undefined ? {} : { err: reason }) };
  if (condition === 'LOG_DIR_FULL') {
    logger.warn({ event: 'log_dir.full', ...fields }, `log directory ${directory.path} is full (ENOSPC): appends to it fail with KAFKA_STORAGE_ERROR; /ready answers 503 until an append succeeds`);
  } else if (condition === 'LOG_DIR_OFFLINE') {
    logger.error({ event: 'log_dir.offline', ...fields }, `log directory ${directory.path} is offline after a disk error: its replicas answer KAFKA_STORAGE_ERROR until restart; /ready answers 503`);
  } else {
    logger.info({ event: 'log_dir.writable', ...fields }, `log directory ${directory.path} accepts appends again; /ready answers 200 if nothing else is wrong`);
  }
}

function errorText(reason: unknown): string | undefined {
  if (reason === undefined || reason === null) return undefined;
  return reason instanceof Error ? reason.message : String(reason);
}
