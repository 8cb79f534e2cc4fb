import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBroker, type TestBroker } from '../../clients/broker-harness.js';
import { runInProcess } from './cli-harness.js';

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
});
