import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LOG_DIR_LOCK_FILE, LogDirInUseError, lockLogDirs } from '../../host/log/log-dir-lock.js';

const dirs: string[] = [];
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'log-dir-lock-'));
  dirs.push(dir);
  return dir;
}

/** The pid of a process that has exited (and was reaped). */
function deadPid(): number {
  const result = spawnSync(process.execPath, ['-e', '']);
  expect(result.status).toBe(0);
  return result.pid!;
}

/** A live process that is not this one. */
async function liveProcess(): Promise<number> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  return child.pid!;
}

function warnings(): { lines: { fields: object; message: string }[]; warn(fields: object, message: string): void } {
  const lines: { fields: object; message: string }[] = [];
  return { lines, warn: (fields, message) => void lines.push({ fields, message }) };
}

describe('log directory lock (.lock)', () => {
  it('holds the pid while locked and removes the file on release', () => {
    const dir = path.join(tempDir(), 'not-yet-created');
    const locks = lockLogDirs([dir]);
    const content = readFileSync(path.join(dir, LOG_DIR_LOCK_FILE), 'utf8');
    expect(content.split('\n')[0]).toBe(String(process.pid));
    locks.release();
    locks.release();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refuses a directory already locked in this process until it is released', () => {
    const dir = tempDir();
    const first = lockLogDirs([dir]);
    expect(() => lockLogDirs([dir])).toThrow(/is in use by another broker in this process \(pid \d+\)/);
    first.release();
    lockLogDirs([dir]).release();
  });

  it('refuses a directory locked by another live process, naming the directory and its pid', async () => {
    const dir = tempDir();
    const pid = await liveProcess();
    writeFileSync(path.join(dir, LOG_DIR_LOCK_FILE), `${pid}\n0123456789abcdef\n`);
    let refused: unknown;
    try {
      lockLogDirs([dir]);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(LogDirInUseError);
    expect((refused as Error).message).toContain(`log directory ${dir} is in use by another process (pid ${pid})`);
    expect(readFileSync(path.join(dir, LOG_DIR_LOCK_FILE), 'utf8')).toBe(`${pid}\n0123456789abcdef\n`);
    expect(readdirSync(dir)).toEqual([LOG_DIR_LOCK_FILE]);
  });

  it('takes over a stale lock (owner not running, or unreadable) with a warning', () => {
    for (const stale of [`${deadPid()}\nfeedfacefeedface\n`, '', 'garbage']) {
      const dir = tempDir();
      writeFileSync(path.join(dir, LOG_DIR_LOCK_FILE), stale);
      const logger = warnings();
      const locks = lockLogDirs([dir], logger);
      expect(readFileSync(path.join(dir, LOG_DIR_LOCK_FILE), 'utf8').split('\n')[0]).toBe(String(process.pid));
      expect(logger.lines).toHaveLength(1);
      expect(logger.lines[0]!.message).toMatch(/stale lock/);
      locks.release();
      expect(readdirSync(dir)).toEqual([]);
    }
  });

  it('takes over a lock carrying this pid that this process does not hold (pid reused after a restart)', () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, LOG_DIR_LOCK_FILE), `${process.pid}\nfeedfacefeedface\n`);
    const logger = warnings();
    const locks = lockLogDirs([dir], logger);
    expect(logger.lines).toHaveLength(1);
    locks.release();
  });

  it('locks all directories or none', async () => {
    const free = tempDir();
    const taken = tempDir();
    const pid = await liveProcess();
    writeFileSync(path.join(taken, LOG_DIR_LOCK_FILE), `${pid}\n0123456789abcdef\n`);
    expect(() => lockLogDirs([free, taken])).toThrow(LogDirInUseError);
    expect(existsSync(path.join(free, LOG_DIR_LOCK_FILE))).toBe(false);
  });

  it('never deletes a lock it no longer owns', () => {
    const dir = tempDir();
    mkdirSync(dir, { recursive: true });
    const locks = lockLogDirs([dir]);
    // Someone replaced the lock file (e.g. an operator deleted it and another broker started).
    writeFileSync(path.join(dir, LOG_DIR_LOCK_FILE), `${process.pid + 1}\nsomeoneelse\n`);
    locks.release();
    expect(readFileSync(path.join(dir, LOG_DIR_LOCK_FILE), 'utf8')).toBe(`${process.pid + 1}\nsomeoneelse\n`);
  });
});
