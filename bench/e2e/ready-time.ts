/**
 * Single-node quick start ready time, this build against a baseline build in the same run (issue
 * 10: "its ready time does not get worse"). Each start is what `npm start` does
 * (`node dist/host/cli/main.js broker`, default configs, the HTTP listener on) with a fresh temp
 * `log.dirs` and free ports; ready = the first `GET /ready` answered 200 (polled every 2 ms).
 * Starts alternate between the two builds (A B, B A, ...) so machine load hits both alike; one
 * discarded warm-up start of each fills the page cache first.
 *
 * Figures per build: wall ms spawn → ready (the figure), spawn → the `config.loaded` log
 * line (the part spent loading modules and parsing configs), and, from ready-probe.ts preloaded
 * into the broker, the wall ms from its process's time origin to `broker.started` (ready minus
 * this is spawn cost, the probe's polling lag and whatever delays the first `/ready` answer) and the CPU ms its main thread ran until it logged `config.loaded` and
 * `broker.started` (right after opening its gate): the start-up's critical path, far less disturbed than wall time by other
 * processes on a shared machine. Printed: medians with min–max and the ratios this ÷ baseline.
 *
 * Usage: `npm run bench:ready -- <baseline dist dir> [--runs 15]`, e.g. with a worktree of the
 * previous commit built by `npx tsc -p tsconfig.json` (its build/tributary.wasm beside dist/):
 * `git worktree add --detach /tmp/base HEAD~1 && (cd /tmp/base && ln -s $PWD/node_modules && npx tsc -p tsconfig.json)`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT, takeBuildSnapshot, type BuildSnapshot } from './build-snapshot.js';
import { fileURLToPath } from 'node:url';
import { freePort } from './server-process.js';
import { summarize, type Summary } from './stats.js';

const HOST = '127.0.0.1';
const POLL_INTERVAL_MS = 2;
const START_TIMEOUT_MS = 30_000;
const DEFAULT_RUNS = 15;
const PROBE = fileURLToPath(new URL('./ready-probe.js', import.meta.url));

interface StartSample {
  readyMs: number;
  configLoadedMs: number;
  cpuMs: number;
  configLoadedCpuMs: number;
  /** Wall ms from the broker process's time origin to its `broker.started` line (the probe's figure). */
  startedMs: number;
}

/** One `GET /ready`; resolves with the status code, or 0 when the connection failed. */
function probeReady(port: number): Promise<number> {
  return new Promise((resolve) => {
    const probe = request({ host: HOST, port, path: '/ready', method: 'GET', agent: false }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    probe.once('error', () => resolve(0));
    probe.end();
  });
}

/**
 * Starts the snapshot's broker as the quick start does, waits for /ready 200, stops it (SIGTERM)
 * and removes its data. @throws Error when it exits or is not ready within 30 s
 */
async function startOnce(snapshot: BuildSnapshot): Promise<StartSample> {
  const logDir = mkdtempSync(path.join(tmpdir(), 'tributary-ready-'));
  const [port, httpPort] = [await freePort(), await freePort()];
  const args = ['--import', PROBE, snapshot.cliPath, 'broker', '--override', `log.dirs=${logDir}`, '--override', `listeners=PLAINTEXT://${HOST}:${port}`, '--override', `http.listeners=${HOST}:${httpPort}`];
  const spawnedAtEpochMs = Date.now();
  const spawnedAtMs = performance.now();
  const child = spawn(process.execPath, args, { cwd: snapshot.root, stdio: ['ignore', 'pipe', 'pipe'] });
  let configLoadedMs = Number.NaN;
  let output = '';
  let partialLine = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output = (output + chunk).slice(-8192);
    const lines = (partialLine + chunk).split('\n');
    partialLine = lines.pop()!;
    for (const line of lines) {
      // pino's line: {"level":"info","time":"<ISO 8601>",...,"event":"config.loaded",...}
      const match = /"time":"([^"]+)".*"event":"config\.loaded"/.exec(line);
      if (match !== null && Number.isNaN(configLoadedMs)) configLoadedMs = Date.parse(match[1]!) - spawnedAtEpochMs;
    }
  });
  let cpuMs = Number.NaN;
  let configLoadedCpuMs = Number.NaN;
  let startedMs = Number.NaN;
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    output = (output + chunk).slice(-8192);
    for (const probe of chunk.matchAll(/READY_PROBE (\S+) (\S+) (\S+)/g)) {
      if (probe[1] === 'broker.started') [startedMs, cpuMs] = [Number(probe[2]), Number(probe[3])];
      else configLoadedCpuMs = Number(probe[3]);
    }
  });
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => { exited = true; resolve(); }));
  try {
    for (;;) {
      if (exited) throw new Error(`broker exited before it was ready:\n${output}`);
      if (performance.now() - spawnedAtMs > START_TIMEOUT_MS) throw new Error(`broker not ready within ${START_TIMEOUT_MS} ms:\n${output}`);
      if ((await probeReady(httpPort)) === 200) {
        const readyMs = performance.now() - spawnedAtMs;
        // The probe's line is written in the same turn as the gate opens; it may still be in the pipe.
        for (let wait = 0; Number.isNaN(cpuMs) && wait < 1_000 && !exited; wait++) await new Promise((resolve) => setTimeout(resolve, 2));
        return { readyMs, configLoadedMs, cpuMs, configLoadedCpuMs, startedMs };
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
    }
  } finally {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exit;
    clearTimeout(timer);
    rmSync(logDir, { recursive: true, force: true });
  }
}

function parseArguments(argv: readonly string[]): { baselineDist: string; runs: number } {
  let baselineDist: string | undefined;
  let runs = DEFAULT_RUNS;
  for (let index = 0; index < argv.length; index++) {
    if (argv[index] === '--runs') runs = Number(argv[++index]);
    else baselineDist = argv[index];
  }
  if (baselineDist === undefined || !Number.isInteger(runs) || runs < 1) {
    throw new Error('usage: node dist/bench/e2e/ready-time.js <baseline dist dir> [--runs N]');
  }
  return { baselineDist: path.resolve(baselineDist), runs };
}

function format(summary: Summary): string {
  return `${summary.median.toFixed(0)} (${summary.min.toFixed(0)}–${summary.max.toFixed(0)})`;
}

async function main(): Promise<void> {
  const { baselineDist, runs } = parseArguments(process.argv.slice(2));
  const builds = [
    { name: 'this build', snapshot: takeBuildSnapshot(PROJECT_ROOT), samples: [] as StartSample[] },
    { name: 'baseline', snapshot: takeBuildSnapshot(path.dirname(baselineDist)), samples: [] as StartSample[] },
  ];
  try {
    for (const build of builds) await startOnce(build.snapshot);
    for (let run = 0; run < runs; run++) {
      const order = run % 2 === 0 ? builds : [...builds].reverse();
      for (const build of order) build.samples.push(await startOnce(build.snapshot));
      process.stderr.write(`run ${run + 1}/${runs}\n`);
    }
    const rows = builds.map((build) => ({
      name: `${build.name} (${build.snapshot.gitCommit})`,
      ready: summarize(build.samples.map((sample) => sample.readyMs)),
      configLoaded: summarize(build.samples.map((sample) => sample.configLoadedMs)),
      cpu: summarize(build.samples.map((sample) => sample.cpuMs)),
      configLoadedCpu: summarize(build.samples.map((sample) => sample.configLoadedCpuMs)),
      started: summarize(build.samples.map((sample) => sample.startedMs)),
    }));
    console.log(`single-node ready time, median (min–max) of ${runs} alternating starts, ms`);
    for (const row of rows) {
      console.log(`${row.name.padEnd(36)} ready ${format(row.ready)}  broker.started ${format(row.started)}  config.loaded ${format(row.configLoaded)}  main-thread cpu ${format(row.cpu)} (to config.loaded ${format(row.configLoadedCpu)})`);
    }
    const [current, baseline] = rows as [typeof rows[0], typeof rows[0]];
    console.log(
      `ratio this ÷ baseline: ready ${(current.ready.median / baseline.ready.median).toFixed(3)}x, ` +
        `broker.started ${(current.started.median / baseline.started.median).toFixed(3)}x, ` +
        `config.loaded ${(current.configLoaded.median / baseline.configLoaded.median).toFixed(3)}x, ` +
        `cpu ${(current.cpu.median / baseline.cpu.median).toFixed(3)}x (to config.loaded ${(current.configLoadedCpu.median / baseline.configLoadedCpu.median).toFixed(3)}x)`,
    );
  } finally {
    for (const build of builds) build.snapshot.remove();
  }
}

await main();
