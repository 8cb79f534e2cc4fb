import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KafkaError } from '../../../host/clients/errors.js';
import { toCliError } from '../../../host/cli/commands/client-errors.js';
import { ADD_PARTITIONS_FIXES } from '../../../host/cli/commands/topic-commands.js';
import { ErrorCode } from '../../../host/protocol/generated/error-codes.js';
import { startTestBroker, type TestBroker } from '../../clients/broker-harness.js';
import { assertBuilt, MAIN_JS, runInProcess } from './cli-harness.js';

let broker: TestBroker;
let b: string[];

beforeAll(async () => {
  broker = await startTestBroker();
  b = ['-b', broker.bootstrap];
});

afterAll(async () => {
  await broker?.stop();
});

describe('fix lines of CLI errors', () => {
  it('points a POLICY_VIOLATION at the broker\'s message, which asks one oversized topic for fewer partitions', async () => {
    const result = await runInProcess(['topic', 'create', 'hint-big', '--partitions', '60000', ...b]);
    expect(result.codes).toEqual([1]);
    expect(result.err).toContain('POLICY_VIOLATION');
    expect(result.err).toContain('ask for fewer partitions or raise controller.max.records.per.user.op');
    expect(result.err).not.toContain('split it into smaller requests');
    expect(result.err).toContain('fix: the broker\'s message names the limit or policy and the config that raises it');
    expect(result.err).not.toContain('ask the cluster operator for the permission');
  });

  it('tells add-partitions\' INVALID_REPLICATION_FACTOR to start the missing brokers, not to lower an option it does not have', () => {
    const error = new KafkaError(ErrorCode.INVALID_REPLICATION_FACTOR, 'CreatePartitions "t"', 'Unable to replicate the partition 3 time(s): only 1 broker(s) are registered.');
    const added = toCliError(error, 'add partitions to "t"', ['127.0.0.1:9092'], ADD_PARTITIONS_FIXES);
    expect(added.fix).toContain('fewer brokers are available than the topic\'s replication factor: start the missing brokers');
    expect(added.fix).not.toContain('use a replication factor');
    // topic create keeps the generic fix, which names its --replication-factor choice.
    expect(toCliError(error, 'create topic "t"', ['127.0.0.1:9092']).fix).toContain('use a replication factor no larger than the number of brokers');
  });

  it('exits 0 without a stack trace when the reader of stdout goes away (cluster info | head)', async () => {
    assertBuilt();
    const child = spawn(process.execPath, [MAIN_JS, 'cluster', 'info', '--brokers', broker.bootstrap], { stdio: ['ignore', 'pipe', 'pipe'] });
    // The reader closes before the CLI writes a byte: every write to stdout then fails with EPIPE.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
    const status = await new Promise<number | null>((resolvePromise) => child.on('close', resolvePromise));
    expect(stderr).not.toContain('EPIPE');
    expect(stderr).toBe('');
    expect(status).toBe(0);
  }, 30_000);
});
