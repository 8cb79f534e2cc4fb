/**
 * A fresh user's broker whose port is taken: `tributary broker` prints one sentence naming the
 * listener, its port and the `--override listeners=...` that moves it, logs no stack trace, and
 * exits 1 (the compiled CLI as a process); listenerBindError's sentence for a listener among
 * several (the suggested list moves only that one).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenerBindError } from '../../../host/cli/listener-bind-error.js';
import { assertBuilt, runBinary } from './cli-harness.js';

let occupier: Server;
let port: number;
let logDir: string;

beforeAll(async () => {
  assertBuilt();
  occupier = createServer();
  await new Promise<void>((resolve) => occupier.listen(0, '127.0.0.1', resolve));
  port = (occupier.address() as { port: number }).port;
  logDir = mkdtempSync(join(tmpdir(), 'tributary-port-in-use-'));
});

afterAll(async () => {
  await new Promise((resolve) => occupier.close(resolve));
  rmSync(logDir, { recursive: true, force: true });
});

describe('a broker whose listener port is in use', () => {
  it('says which listener and port, and what to change, without a stack trace, and exits 1', async () => {
    const result = await runBinary(['broker', '--override', `listeners=PLAINTEXT://127.0.0.1:${port}`, '--override', `log.dirs=${logDir}`, '--override', 'http.listeners=']);
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      `tributary: listener PLAINTEXT cannot listen on 127.0.0.1:${port}: port ${port} is already in use by another process (EADDRINUSE)\n` +
      `  fix: stop what uses port ${port}, or give the listener another port, e.g. --override listeners=PLAINTEXT://127.0.0.1:${port + 1}\n`,
    );
    expect(result.stdout).not.toMatch(/"stack"/);
    expect(result.stdout).toMatch(/"event":"broker.failed","code":"EADDRINUSE","port":\d+/);
  });

  it('moves only the listener that failed in the suggested listeners=', () => {
    const error = Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE', syscall: 'listen', address: '::1', port: 9093 });
    const wrapped = new Error('start-up failed', { cause: error });
    const config = { listeners: [{ name: 'PLAINTEXT', host: '', port: 9092 }, { name: 'CONTROLLER', host: '::1', port: 9093 }] };
    const cli = listenerBindError(wrapped, config)!;
    expect(cli.problem).toBe('listener CONTROLLER cannot listen on [::1]:9093: port 9093 is already in use by another process (EADDRINUSE)');
    expect(cli.fix).toBe('stop what uses port 9093, or give the listener another port, e.g. --override listeners=PLAINTEXT://:9092,CONTROLLER://[::1]:9094');
    expect(listenerBindError(new Error('disk full'), config)).toBeNull();
  });
});
