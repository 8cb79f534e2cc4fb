/**
 * `npm run bench:transactions [-- --records 20000 --size 100 --per-txn 100 --runs 3]`: throughput
 * of transactional produce (our Producer, `--per-txn` records per transaction: begin, send,
 * commit) as a ratio of idempotent produce (the same Producer without a transactional id), in the
 * same run on one in-process broker (a temp log dir, 1 partition, acks=all), alternating the two
 * (ABAB) on fresh topics. A transaction costs AddPartitionsToTxn, EndTxn, the
 * PrepareCommit/CompleteCommit records of `__transaction_state` and a COMMIT marker per
 * partition, and the next transaction waits for the markers (CONCURRENT_TRANSACTIONS retried).
 * Prints records/s per run and the ratio of the medians. Not a test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { startBroker } from '../../host/broker.js';
import { Admin } from '../../host/clients/admin.js';
import { Producer } from '../../host/clients/producer.js';
import { createLogger } from '../../host/observability/logger.js';

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

async function run(bootstrap: string, topic: string, records: number, size: number, perTxn: number, transactionalId: string | null): Promise<number> {
  const producer = new Producer({ bootstrapServers: [bootstrap], lingerMs: 1, ...(transactionalId === null ? {} : { transactionalId }) });
  const value = Buffer.alloc(size, 'x');
  const chunk = Array.from({ length: perTxn }, () => ({ value, partition: 0 }));
  try {
    if (transactionalId !== null) await producer.initTransactions();
    const started = performance.now();
    for (let sent = 0; sent < records; sent += perTxn) {
      if (transactionalId !== null) producer.beginTransaction();
      await producer.send({ topic, messages: chunk });
      if (transactionalId !== null) await producer.commitTransaction();
    }
    return records / ((performance.now() - started) / 1000);
  } finally {
    await producer.close();
  }
}

async function main(): Promise<void> {
  const options = new Command()
    .option('--records <n>', 'records per run', '20000').option('--size <bytes>', 'record value size', '100')
    .option('--per-txn <n>', 'records per transaction (and per idempotent send)', '100').option('--runs <n>', 'runs per condition', '3')
    .parse().opts<{ records: string; size: string; perTxn: string; runs: string }>();
  const [records, size, perTxn, runs] = [Number(options.records), Number(options.size), Number(options.perTxn), Number(options.runs)];
  const logDir = mkdtempSync(path.join(tmpdir(), 'tributary-bench-txn-'));
  const broker = await startBroker({ logDirs: logDir, logger: createLogger({ level: 'warn' }), overrides: { 'num.partitions': 1, 'transaction.state.log.num.partitions': 5 } });
  const admin = new Admin({ bootstrapServers: [broker.bootstrap] });
  const rates: Record<'idempotent' | 'transactional', number[]> = { idempotent: [], transactional: [] };
  try {
    for (let i = 0; i < runs; i++) {
      for (const condition of ['idempotent', 'transactional'] as const) {
        const topic = `bench-${condition}-${i}`;
        await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] });
        const rate = await run(broker.bootstrap, topic, records, size, perTxn, condition === 'transactional' ? `bench-tx-${i}` : null);
        rates[condition].push(rate);
        console.log(`${condition.padEnd(13)} run ${i + 1}: ${Math.round(rate)} records/s`);
      }
    }
    const ratio = median(rates.transactional) / median(rates.idempotent);
    console.log(`median idempotent ${Math.round(median(rates.idempotent))} records/s, transactional ${Math.round(median(rates.transactional))} records/s: ratio ${ratio.toFixed(2)}`);
  } finally {
    await admin.close();
    await broker.stop();
    rmSync(logDir, { recursive: true, force: true });
  }
}

await main();
