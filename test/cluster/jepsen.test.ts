/**
 * The Jepsen-style checker of issue 11 in small (`npm run jepsen` runs the long campaigns): three
 * real broker processes, a topic with replication.factor 3 and min.insync.replicas 2, our
 * Producer, kafkajs and confluent-kafka writing with acks=all and idempotence, an acks=1 writer on
 * a second topic and a live consumer, while a fixed seed's dozen faults strike (SIGKILL and
 * restart, SIGSTOP/SIGCONT, clean restarts, cut links to clients, between controllers and between
 * replicas). Afterwards every acknowledged acks=all write reads back once, at its offset, in write
 * order; nothing the live consumer read changed; no broker crashed; the cluster recovered.
 * The verdict never depends on timing: waits are generous and only bound how long a fault lasts.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { formatCampaign, runCampaign } from '../../bench/jepsen/campaign.js';
import { BROKER_CLI_PATH } from '../helpers/broker-process.js';

afterAll(() => {
  // Node processes and the Python writer are SIGKILLed by their modules' exit hooks if a failure left any.
});

describe('the Jepsen-style checker over real processes', () => {
  it('loses, changes, duplicates and reorders no acknowledged acks=all write through a dozen seeded faults', async () => {
    const result = await runCampaign({
      cliPath: BROKER_CLI_PATH,
      seed: 20_261_202,
      faults: 12,
      timeScale: 0.4,
      recoveryTimeoutMs: 90_000,
      progress: (line) => process.stderr.write(`[jepsen] ${line}\n`),
    });
    const report = formatCampaign(result);
    process.stderr.write(`${report}\n`);
    expect(result.faults).toHaveLength(12);
    expect(result.check.violations, report).toEqual([]);
    expect(result.clusterProblems, report).toEqual([]);
    for (const client of result.check.clients) expect(client.acked, `${client.spec.client} got acknowledgements\n${report}`).toBeGreaterThan(0);
  }, 300_000);
});
