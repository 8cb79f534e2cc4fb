import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  BrokerCommandDeps,
  BrokerModule,
  RunningBroker,
  loadBrokerModule,
} from '../../host/cli/broker-command.js';
import { ClientCommandHandlers } from '../../host/cli/client-commands.js';
import { CliError, CliIo } from '../../host/cli/output.js';
import { runCli } from '../../host/cli/program.js';
import { createLogger } from '../../host/observability/logger.js';

const tempDir = mkdtempSync(join(tmpdir(), 'tributary-cli-'));
afterAll(() => rmSync(tempDir, { recursive: true, force: true }));

function recordingIo(): CliIo & { out: string; err: string; codes: number[] } {
  const io = {
    out: '', err: '', codes: [] as number[],
    stdout: { write: (text: string) => { io.out += text; } },
    stderr: { write: (text: string) => { io.err += text; } },
    exit: (code: number) => { io.codes.push(code); },
  };
  return io;
}

const argv = (...args: string[]): string[] => ['node', 'tributary', ...args];

/** A fake broker module and the seams of the broker command, recording what happens. */
function fakeBroker(options: { startFails?: boolean; stopFails?: boolean; startGate?: Promise<void> } = {}) {
  const io = recordingIo();
  const signals = new Map<string, () => void>();
  const events: string[] = [];
  const logLines: string[] = [];
  let startedWith: Parameters<BrokerModule['startBroker']>[0] | undefined;
  const running: RunningBroker = {
    listeners: [{ name: 'PLAINTEXT', host: '127.0.0.1', port: 40000 }],
    stop: async () => {
      events.push('stop');
      if (options.stopFails) throw new Error('flush failed');
    },
  };
  const deps: BrokerCommandDeps = {
    io,
    loadModule: async () => ({
      startBroker: async (startOptions) => {
        startedWith = startOptions;
        events.push('start');
        await options.startGate;
        if (options.startFails) throw new Error('EADDRINUSE 127.0.0.1:9092');
        return running;
      },
    }),
    createLogger: (loggerOptions) => createLogger({
      ...loggerOptions,
      destination: new Writable({ write(chunk: Buffer, _encoding, callback) { logLines.push(chunk.toString()); callback(); } }),
    }),
    onSignal: (signal, handler) => { signals.set(signal, handler); },
  };
  return { io, deps, signals, events, logLines, startedWith: () => startedWith };
}

const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

describe('tributary broker', () => {
  it('starts the broker with the loaded config and a logger at log.level', async () => {
    const broker = fakeBroker();
    const file = join(tempDir, 'server.properties');
    writeFileSync(file, 'num.partitions=4\nlog.level=debug\n');
    await runCli(argv('broker', '--config', file, '--override', 'num.partitions=6', 'log.retention.hours=1'), { brokerDeps: broker.deps });
    expect(broker.io.codes).toEqual([]);
    expect(broker.startedWith()!.config.numPartitions).toBe(6);
    expect(broker.startedWith()!.config.logRetentionMs).toBe(3_600_000);
    expect(broker.startedWith()!.logger.level).toBe('debug');
    expect(broker.logLines.join('')).toContain('"event":"config.loaded"');
  });

  it('warns about Kafka configs that have no effect', async () => {
    const broker = fakeBroker();
    await runCli(argv('broker', '-o', 'num.io.threads=8', '-o', 'log.cleaner.io.buffer.load.factor=0.9'), { brokerDeps: broker.deps });
    const ignored = broker.logLines.filter((line) => line.includes('"event":"config.ignored"'));
    expect(ignored).toHaveLength(2);
    expect(ignored[0]).toContain('"config":"num.io.threads"');
    expect(ignored[0]).toContain('config num.io.threads has no effect in Tributary: Node handles requests on one event loop');
    expect(ignored[1]).toContain('config log.cleaner.io.buffer.load.factor has no effect in Tributary');
  });

  it('exits 2 naming the key for an unknown config, before starting anything', async () => {
    const broker = fakeBroker();
    await runCli(argv('broker', '--override', 'bogus.key=1'), { brokerDeps: broker.deps });
    expect(broker.io.codes).toEqual([2]);
    expect(broker.io.err).toContain('Unknown broker config "bogus.key"');
    expect(broker.events).toEqual([]);
  });

  it('exits 2 for an override that is not key=value', async () => {
    const broker = fakeBroker();
    await runCli(argv('broker', '--override', 'num.partitions'), { brokerDeps: broker.deps });
    expect(broker.io.codes).toEqual([2]);
    expect(broker.io.err).toContain('is not key=value');
  });

  it('stops the broker on SIGTERM and exits 0', async () => {
    const broker = fakeBroker();
    await runCli(argv('broker'), { brokerDeps: broker.deps });
    broker.signals.get('SIGTERM')!();
    await settle();
    expect(broker.events).toEqual(['start', 'stop']);
    expect(broker.io.codes).toEqual([0]);
  });

  it('exits 1 at once on a second signal during the stop', async () => {
    const broker = fakeBroker();
    await runCli(argv('broker'), { brokerDeps: broker.deps });
    broker.signals.get('SIGINT')!();
    broker.signals.get('SIGINT')!();
    expect(broker.io.codes).toEqual([1]);
    await settle();
    expect(broker.io.codes).toEqual([1, 0]);
  });

  it('stops right after start when the signal arrived during start', async () => {
    let open!: () => void;
    const broker = fakeBroker({ startGate: new Promise((resolve) => { open = resolve; }) });
    const running = runCli(argv('broker'), { brokerDeps: broker.deps });
    await settle();
    broker.signals.get('SIGTERM')!();
    expect(broker.events).toEqual(['start']);
    open();
    await running;
    await settle();
    expect(broker.events).toEqual(['start', 'stop']);
    expect(broker.io.codes).toEqual([0]);
  });

  it('exits 1 with the reason when the broker fails to start or to stop', async () => {
    const failing = fakeBroker({ startFails: true });
    await runCli(argv('broker'), { brokerDeps: failing.deps });
    expect(failing.io.codes).toEqual([1]);
    expect(failing.io.err).toContain('the broker failed to start: EADDRINUSE 127.0.0.1:9092');
    expect(failing.io.err).toContain('fix: ');
    const stuck = fakeBroker({ stopFails: true });
    await runCli(argv('broker'), { brokerDeps: stuck.deps });
    stuck.signals.get('SIGTERM')!();
    await settle();
    expect(stuck.io.codes).toEqual([1]);
    expect(stuck.logLines.join('')).toContain('the broker failed to stop cleanly');
  });
});

describe('loadBrokerModule', () => {
  it('names the missing broker module and the fix', async () => {
    const url = pathToFileURL(join(tempDir, 'no-such-broker.mjs'));
    const error = await loadBrokerModule(url).then(() => undefined, (failure: unknown) => failure);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).problem).toBe(`this build has no broker: ${join(tempDir, 'no-such-broker.mjs')} does not exist`);
    expect((error as CliError).fix).toContain('npm run build');
  });

  it('refuses a module without startBroker', async () => {
    const file = join(tempDir, 'empty-broker.mjs');
    writeFileSync(file, 'export const nothing = 1;\n');
    await expect(loadBrokerModule(pathToFileURL(file))).rejects.toThrow('does not export startBroker()');
  });

  it('loads a module that exports startBroker', async () => {
    const file = join(tempDir, 'good-broker.mjs');
    writeFileSync(file, 'export async function startBroker() { return { listeners: [], stop: async () => {} }; }\n');
    const loaded = await loadBrokerModule(pathToFileURL(file));
    expect(typeof loaded.startBroker).toBe('function');
  });
});

describe('tributary command set', () => {
  it('registers only the broker command until client commands have handlers', async () => {
    const io = recordingIo();
    await runCli(argv('--help'), { io });
    expect(io.codes).toEqual([0]);
    expect(io.out).toContain('broker [options]');
    for (const name of ['topic', 'produce', 'consume', 'group', 'cluster']) expect(io.out).not.toMatch(new RegExp(`^  ${name}\\b`, 'm'));
    const unknown = recordingIo();
    await runCli(argv('topic', 'list'), { io: unknown });
    expect(unknown.codes).toEqual([2]);
    expect(unknown.err).toContain("unknown command 'topic'");
  });

  it('exits 2 on an unknown option', async () => {
    const io = recordingIo();
    await runCli(argv('broker', '--bogus'), { io });
    expect(io.codes).toEqual([2]);
    expect(io.err).toContain("unknown option '--bogus'");
  });

  it('registers a client command with its handler and parses its options', async () => {
    const io = recordingIo();
    const calls: unknown[] = [];
    const handlers: Partial<ClientCommandHandlers> = {
      topicCreate: async (topic, options) => { calls.push({ topic, options }); },
      consume: async (topic, options) => { calls.push({ topic, options }); },
      groupSeek: async (group, options) => { calls.push({ group, options }); },
    };
    await runCli(argv('topic', 'create', 'orders', '-p', '3', '-c', 'retention.ms=1000', 'cleanup.policy=compact', '--json',
      '-b', '127.0.0.1:1,[::1]:2'), { io, clientHandlers: handlers });
    await runCli(argv('consume', 'orders', '-g', 'g1', '--from-beginning', '-p', '0', '2', '-n', '10', '-f', 'json'), { io, clientHandlers: handlers });
    await runCli(argv('group', 'seek', 'g1', '--to', '@1700000000000', '-t', 'orders'), { io, clientHandlers: handlers });
    expect(io.codes).toEqual([]);
    expect(calls).toEqual([
      { topic: 'orders', options: {
        bootstrapServer: ['127.0.0.1:1', '[::1]:2'], json: true, partitions: 3, replicationFactor: -1,
        config: { 'retention.ms': '1000', 'cleanup.policy': 'compact' }, ifNotExists: false,
      } },
      { topic: 'orders', options: {
        bootstrapServer: ['127.0.0.1:9092'], json: false, group: 'g1', fromBeginning: true, partition: [0, 2], count: 10, format: 'json',
      } },
      { group: 'g1', options: {
        bootstrapServer: ['127.0.0.1:9092'], json: false, to: { kind: 'timestamp', timestampMs: 1700000000000 }, topic: ['orders'],
      } },
    ]);
    const help = recordingIo();
    await runCli(argv('topic', '--help'), { io: help, clientHandlers: handlers });
    expect(help.out).toContain('create [options] <topic>');
    expect(help.out).not.toMatch(/^  list\b/m);
  });

  it('rejects bad client option values with exit code 2', async () => {
    const io = recordingIo();
    const handlers: Partial<ClientCommandHandlers> = { topicCreate: async () => {}, produce: async () => {} };
    await runCli(argv('topic', 'create', 't', '-p', 'many'), { io, clientHandlers: handlers });
    await runCli(argv('topic', 'create', 't', '-c', 'noequals'), { io, clientHandlers: handlers });
    await runCli(argv('produce', 't', '--acks', '2'), { io, clientHandlers: handlers });
    await runCli(argv('produce', 't', '-b', 'localhost'), { io, clientHandlers: handlers });
    expect(io.codes).toEqual([2, 2, 2, 2]);
    expect(io.err).toContain('expected an integer between -1 and 2147483647');
    expect(io.err).toContain('expected key=value');
    expect(io.err).toContain('expected an integer between -1 and 1');
    expect(io.err).toContain('expected host:port');
  });
});
