/**
 * kcat (librdkafka) as the load generator a user would reach for: `kcat -P` reading a
 * pre-generated file of one record per line, `kcat -C -e -o beginning -q` counting records as
 * they arrive, and `kcat -G` for a consumer group. Found on PATH; rows are skipped without it.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runChild } from './child-run.js';
import { payload, type LoadResult } from './load-common.js';

/** kcat's version line (and librdkafka's), or null when kcat is not installed. */
export function kcatVersion(): string | null {
  try {
    const text = execFileSync('kcat', ['-V'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const version = /Version ([\d.]+)/.exec(text)?.[1];
    const librdkafka = /librdkafka ([\d.]+)/.exec(text)?.[1];
    return `kcat ${version ?? '?'} (librdkafka ${librdkafka ?? '?'})`;
  } catch {
    return null;
  }
}

/** Files of `records` lines of `size` bytes (+ '\n'), made once per shape and reused across runs. */
export class PayloadFiles {
  private readonly root = mkdtempSync(path.join(tmpdir(), 'tributary-bench-payload-'));

  /** Path of a file of `records` records of `size` bytes. */
  file(records: number, size: number, name = 'all'): string {
    const file = path.join(this.root, `${name}-${records}x${size}.txt`);
    if (existsSync(file)) return file;
    const line = Buffer.concat([payload(size), Buffer.of(0x0a)]);
    const linesPerChunk = Math.max(1, Math.floor((1 << 20) / line.length));
    const chunk = Buffer.concat(Array.from({ length: linesPerChunk }, () => line));
    const fd = openSync(file, 'w');
    try {
      for (let written = 0; written < records; written += linesPerChunk) {
        const lines = Math.min(linesPerChunk, records - written);
        writeSync(fd, chunk, 0, lines * line.length);
      }
    } finally {
      closeSync(fd);
    }
    return file;
  }

  remove(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

export interface KcatProduceOptions {
  bootstrap: string;
  topic: string;
  file: string;
  records: number;
  size: number;
  acks: 1 | -1;
  /** Fixed partition (`-p`); default librdkafka's partitioner. */
  partition?: number;
  lingerMs: number;
  batchMessages: number;
  timeoutMs: number;
}

/** `kcat -P` of a whole file; elapsed = process start → exit (kcat waits for every delivery report). */
export async function kcatProduce(options: KcatProduceOptions): Promise<LoadResult> {
  const args = ['-P', '-b', options.bootstrap, '-t', options.topic, '-q',
    '-X', `acks=${options.acks}`, '-X', `linger.ms=${options.lingerMs}`, '-X', `batch.num.messages=${options.batchMessages}`,
    '-X', 'enable.idempotence=false', '-X', 'compression.codec=none'];
  if (options.partition !== undefined) args.push('-p', String(options.partition));
  // -l: the file holds one record per line (without it kcat sends each file as one record).
  args.push('-l', options.file);
  const outcome = await runChild('kcat', args, { timeoutMs: options.timeoutMs });
  if (outcome.code !== 0 || /fail|error/i.test(outcome.stderr)) {
    throw new Error(`kcat -P failed (code ${outcome.code}):\n${outcome.stderr.slice(-4000)}`);
  }
  return { records: options.records, bytes: options.records * options.size, elapsedMs: outcome.elapsedMs };
}

export interface KcatConsumeOptions {
  bootstrap: string;
  topic: string;
  /** Records expected; fewer is an error (the figure would be a lie). */
  records: number;
  size: number;
  /** Consumer group (`-G`); default a simple consumer of every partition from the beginning. */
  group?: string;
  timeoutMs: number;
}

/**
 * `kcat -C -e -o beginning -q` (or `kcat -G group` with auto.offset.reset=earliest and -e):
 * counts the newline-terminated values on stdout; elapsed = process start → the last expected
 * record on stdout (the exit at the end of every partition follows one more long poll).
 */
export async function kcatConsume(options: KcatConsumeOptions): Promise<LoadResult> {
  const args = options.group === undefined
    ? ['-C', '-b', options.bootstrap, '-t', options.topic, '-e', '-o', 'beginning', '-q']
    : ['-b', options.bootstrap, '-G', options.group, '-X', 'auto.offset.reset=earliest', '-e', '-q', options.topic];
  let bytes = 0;
  let records = 0;
  let lastRecordAtMs = -1;
  const startedAtMs = performance.now();
  const outcome = await runChild('kcat', args, {
    timeoutMs: options.timeoutMs,
    onStdout: (chunk) => {
      bytes += chunk.length;
      for (let at = chunk.indexOf(0x0a); at >= 0; at = chunk.indexOf(0x0a, at + 1)) records++;
      if (lastRecordAtMs < 0 && records >= options.records) lastRecordAtMs = performance.now();
    },
  });
  if (outcome.code !== 0) throw new Error(`kcat consumer failed (code ${outcome.code}):\n${outcome.stderr.slice(-4000)}`);
  // -e exits only after a Fetch at the end offset comes back empty, which a Kafka broker holds
  // for fetch.wait.max.ms (librdkafka: 500 ms) by the long-poll rule; that wait is not reading.
  const elapsedMs = lastRecordAtMs >= 0 ? lastRecordAtMs - startedAtMs : outcome.elapsedMs;
  return { records, bytes: bytes - records, elapsedMs };
}
