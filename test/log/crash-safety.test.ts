/**
 * Process crashes: a child process (fixtures/crash-child.mjs, over the compiled dist/) appends
 * batches and prints each acknowledged offset after append returns; it is killed with SIGKILL at
 * random moments, sometimes during start-up recovery, for many rounds on the same log directory.
 * Afterwards every acknowledged batch must read back byte for byte, nothing corrupt or partial
 * may be served, the indexes must equal a rebuild, and appends must continue. Requires
 * `npm run build` (npm test does it). A failure names its seed (SEED=...).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { SeededRandom } from '../../host/io/random.js';
import { defaultLogConfig } from '../../host/log/log-config.js';
import { LogManager } from '../../host/log/log-manager.js';
import { readBatch } from '../../host/record/records.js';
// @ts-expect-error plain ESM fixture without type declarations
import { crashBatch } from './fixtures/crash-batches.mjs';
import { expectIndexesMatchRebuild, readAllBatches, removeTempDirs, splitBatches, stamped, tempDir } from './log-test-helpers.js';

afterEach(removeTempDirs);

const CHILD = fileURLToPath(new URL('./fixtures/crash-child.mjs', import.meta.url));
const DIST_LOG_MANAGER = fileURLToPath(new URL('../../dist/host/log/log-manager.js', import.meta.url));
const ROUNDS = 20;

interface Acknowledged {
  offset: number;
  round: number;
  n: number;
}

/** Runs one child until it is killed; returns its stdout lines (complete ones only). */
function runChild(dir: string, round: number, flushMessages: number, random: SeededRandom): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, dir, String(round), String(flushMessages)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timer: NodeJS.Timeout | undefined;
    const kill = (): void => {
      child.kill('SIGKILL');
    };
    const early = random.chance(0.25);
    if (early) timer = setTimeout(kill, random.int(0, 300));
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      if (!early && timer === undefined && stdout.length + chunk.length > 0 && (stdout + chunk).includes('ready')) {
        timer = setTimeout(kill, random.int(5, 250));
      }
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (timer !== undefined) clearTimeout(timer);
      if (signal !== 'SIGKILL') {
        reject(new Error(`child exited by itself (code ${code}): ${stderr}${stdout.slice(-500)}`));
        return;
      }
      const lines = stdout.split('\n');
      lines.pop(); // an unterminated last line is ignored
      resolve(lines);
    });
  });
}

describe('crash safety', () => {
  it(`keeps every acknowledged batch through ${ROUNDS} SIGKILLs at random moments`, async () => {
    if (!fs.existsSync(DIST_LOG_MANAGER)) throw new Error('dist/ is missing: run `npm run build` first');
    const seed = Number(process.env.CRASH_SEED ?? Date.now() % 100_000);
    const random = new SeededRandom(seed);
    const dir = tempDir('tributary-crash-');
    const acknowledged: Acknowledged[] = [];
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const flushMessages = round % 3 === 0 ? 1 : Number.MAX_SAFE_INTEGER;
        for (const line of await runChild(dir, round, flushMessages, random)) {
          const [word, offset, n] = line.split(' ');
          expect(word === 'ack' || word === 'ready', line).toBe(true);
          if (word === 'ack') acknowledged.push({ offset: Number(offset), round, n: Number(n) });
        }
      }
      expect(acknowledged.length).toBeGreaterThan(0);
      const config = { ...defaultLogConfig, segmentBytes: 64 * 1024, indexIntervalBytes: 1024, retentionMs: -1 };
      const manager = LogManager.open({ logDirs: [dir], defaults: config });
      const log = manager.getLog('crash', 0)!;
      for (const ack of acknowledged) {
        const read = log.read(ack.offset, 1, log.logEndOffset, true);
        expect(read.errorCode, `read of acknowledged ${JSON.stringify(ack)} in [${log.logStartOffset}, ${log.logEndOffset})`).toBe(0);
        const [first] = splitBatches(read.records);
        const expected = stamped(crashBatch(ack.round, ack.n) as Buffer, ack.offset, ack.round);
        expect(first!.equals(expected), `batch at ${ack.offset} (round ${ack.round}, n ${ack.n})`).toBe(true);
      }
      // Everything served is whole and valid (readAllBatches checks each CRC), offsets increase.
      let previousLast = -1;
      const all = readAllBatches(log);
      for (const batch of all) {
        const { header } = readBatch(batch);
        expect(header.baseOffset).toBeGreaterThan(previousLast);
        previousLast = header.lastOffset;
      }
      expect(all.length).toBeGreaterThanOrEqual(acknowledged.length);
      expect(all.length - acknowledged.length).toBeLessThanOrEqual(ROUNDS); // at most one in-flight batch per kill
      expectIndexesMatchRebuild(log);
      const next = log.logEndOffset;
      expect(log.appendAsLeader(crashBatch(ROUNDS, 0) as Buffer, ROUNDS)).toMatchObject({ errorCode: 0, baseOffset: next });
      manager.shutdown();
    } catch (error) {
      (error as Error).message = `SEED=${seed}: ${(error as Error).message}`;
      throw error;
    }
  }, 180_000);
});
