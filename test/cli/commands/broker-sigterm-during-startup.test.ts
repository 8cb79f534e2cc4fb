/**
 * A fresh user's lone voter: one node of a 3-voter quorum started with its peers down waits to be
 * unfenced forever; SIGTERM during that wait must stop it cleanly (listeners, Raft, logs closed)
 * and exit 0, not hang until a second signal (the compiled CLI as a process).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROKER_CLI_PATH, findFreePort } from '../../helpers/broker-process.js';
import { assertBuilt } from './cli-harness.js';

let logDir: string;
/** The broker started by the test; killed in afterAll when a failure (a hang) left it running. */
let child: ChildProcess | undefined;

beforeAll(() => {
  assertBuilt();
  logDir = mkdtempSync(join(tmpdir(), 'tributary-sigterm-startup-'));
});

afterAll(() => {
  if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(logDir, { recursive: true, force: true });
});

/** Resolves true when `port` can be bound on 127.0.0.1 (the broker released it). */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

describe('SIGTERM while a lone voter waits to be unfenced', () => {
  it('stops the broker cleanly, frees its ports and exits 0', async () => {
    const [client, c1, c2, c3] = [await findFreePort(), await findFreePort(), await findFreePort(), await findFreePort()];
    child = spawn(process.execPath, [
      BROKER_CLI_PATH, 'broker',
      '--override', 'process.roles=broker,controller',
      '--override', 'node.id=1',
      '--override', `controller.quorum.voters=1@127.0.0.1:${c1},2@127.0.0.1:${c2},3@127.0.0.1:${c3}`,
      '--override', `listeners=PLAINTEXT://127.0.0.1:${client},CONTROLLER://127.0.0.1:${c1}`,
      '--override', 'controller.listener.names=CONTROLLER',
      '--override', 'inter.broker.listener.name=PLAINTEXT',
      '--override', `log.dirs=${logDir}`,
      '--override', 'http.listeners=',
    ], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let signals = 0;
    const started = child;
    const exited = new Promise<number | null>((resolve) => started.on('exit', (code) => resolve(code)));
    // The signal goes out once the waiting line is logged (progress, not time).
    const waiting = new Promise<void>((resolve, reject) => {
      started.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        if (signals === 0 && stdout.includes('waiting to be unfenced')) {
          signals += 1;
          resolve();
        }
      });
      void exited.then((code) => reject(new Error(`the broker exited (${code}) before waiting to be unfenced: ${stderr}\n${stdout}`)));
    });
    started.stderr!.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
    try {
      await waiting;
      expect(started.kill('SIGTERM')).toBe(true);
      const code = await exited;
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      expect(stdout).toContain('SIGTERM received: stopping the broker');
      expect(stdout).toContain('"event":"broker.stopped"');
      expect(stdout).not.toContain('again while stopping');
      expect(stdout).not.toMatch(/"level":50/);
      expect(await portIsFree(client)).toBe(true);
      expect(await portIsFree(c1)).toBe(true);
    } finally {
      if (started.exitCode === null && started.signalCode === null) started.kill('SIGKILL');
    }
  });
});
