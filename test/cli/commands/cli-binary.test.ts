import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Consumer } from '../../../host/clients/consumer.js';
import { startTestBroker, type TestBroker } from '../../clients/broker-harness.js';
import { spawn } from 'node:child_process';
import { assertBuilt, MAIN_JS, runBinary } from './cli-harness.js';

// The compiled CLI (dist/host/cli/main.js, built by `npm test`) against a broker in this process.
let broker: TestBroker;
let b: string[];

beforeAll(async () => {
  assertBuilt();
  broker = await startTestBroker();
  b = ['--brokers', broker.bootstrap];
});

afterAll(async () => {
  await broker?.stop();
});

describe('the compiled tributary client commands', () => {
  it('creates a topic and describes it as JSON', async () => {
    const created = await runBinary(['topic', 'create', 'bin-orders', '-p', '3', '-c', 'cleanup.policy=compact', '--json', ...b]);
    expect(created.stderr).toBe('');
    expect(created.status).toBe(0);
    expect(JSON.parse(created.stdout)).toEqual({ topic: 'bin-orders', status: 'CREATED', partitions: 3, replicationFactor: 1 });
    const described = await runBinary(['topic', 'describe', 'bin-orders', '--json', ...b]);
    expect(described.status).toBe(0);
    const [topic] = JSON.parse(described.stdout);
    expect(topic.name).toBe('bin-orders');
    expect(topic.partitions.map((p: { partition: number }) => p.partition)).toEqual([0, 1, 2]);
    expect(topic.configs['cleanup.policy'].value).toBe('compact');
  });

  it('produces stdin lines and consumes them back', async () => {
    const produced = await runBinary(['produce', 'bin-lines', '-k', '=', ...b], 'alpha=1\nbeta=2\ngamma=3\n');
    expect(produced.status).toBe(0);
    expect(produced.stderr).toContain('produced 3 record(s) to bin-lines');
    const consumed = await runBinary(['consume', 'bin-lines', '--from', 'beginning', '--count', '3', '--format', '%k -> %v\\n', ...b]);
    expect(consumed.status).toBe(0);
    expect(consumed.stdout).toBe('alpha -> 1\nbeta -> 2\ngamma -> 3\n');
  });

  it('shows a group\'s lag after records arrive past its commits', async () => {
    await runBinary(['topic', 'create', 'bin-lag', '-p', '1', ...b]);
    await runBinary(['produce', 'bin-lag', ...b], 'one\ntwo\n');
    const first = await runBinary(['consume', 'bin-lag', '-g', 'bin-lag-group', '--from', 'beginning', '-n', '2', ...b]);
    expect(first.stdout).toBe('one\ntwo\n');
    await runBinary(['produce', 'bin-lag', ...b], 'three\nfour\nfive\n');
    const described = await runBinary(['group', 'describe', 'bin-lag-group', ...b]);
    expect(described.status).toBe(0);
    expect(described.stdout).toMatch(/STATE\s+ASSIGNOR\s+MEMBERS\s+TOTAL-LAG\s+MAX-LAG-SECONDS\s+STATUS\nEmpty\s+-\s+0\s+3/);
    expect(described.stdout).toMatch(/bin-lag\s+0\s+2\s+5\s+3/);
    const consumer = new Consumer({ bootstrapServers: [broker.bootstrap], groupId: 'bin-lag-group' });
    consumer.subscribe(['bin-lag']);
    const resumed: string[] = [];
    while (resumed.length < 3) resumed.push(...(await consumer.poll(200)).map((r) => r.value!.toString()));
    await consumer.close();
    expect(resumed).toEqual(['three', 'four', 'five']);
  });

  it('stops quietly with exit 0 and leaves its group when the reader of stdout goes away', async () => {
    await runBinary(['topic', 'create', 'bin-epipe', '-p', '1', ...b]);
    await runBinary(['produce', 'bin-epipe', ...b], 'first\nsecond\n');
    const child = spawn(process.execPath, [MAIN_JS, 'consume', 'bin-epipe', '-g', 'bin-epipe-group', '--from', 'beginning',
      '--count', '5000', '--format', 'value', ...b], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    // Like `| head -1`: read the first output, then close the pipe.
    const first = await new Promise<string>((resolve) => child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString())));
    child.stdout.destroy();
    expect(first.startsWith('first\n')).toBe(true);
    // The next write is the one that meets EPIPE; keep records coming until the consumer exits.
    let status: number | null | undefined;
    void exited.then((code) => { status = code; });
    while (status === undefined) {
      await runBinary(['produce', 'bin-epipe', ...b], 'more\n');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(stderr).toBe('');
    expect(status).toBe(0);
    const described = await runBinary(['group', 'describe', 'bin-epipe-group', '--json', ...b]);
    expect(described.status).toBe(0);
    expect(described.stdout).toMatch(/"state": "Empty"/);
  });

  it('exits 1 with the problem and the fix when no broker listens', async () => {
    const result = await runBinary(['cluster', 'info', '-b', '127.0.0.1:1']);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^tributary: cannot describe the cluster: no broker reachable at 127\.0\.0\.1:1/);
    expect(result.stderr).toContain('  fix: ');
  });
});
