/**
 * The final read of a campaign: every partition of a topic from offset 0 to its high watermark,
 * with kcat (librdkafka: a reader independent of our client) when it is installed, else with our
 * Consumer. A short read (fewer records than the high watermark says, on a topic nobody deletes
 * from) throws, so a reader problem never passes for lost writes.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Admin } from '../../host/clients/admin.js';
import { Consumer } from '../../host/clients/consumer.js';
import type { ReadRecord } from './history.js';

/** Debian's kcat. */
export const KCAT = '/usr/bin/kcat';

/** Reads every partition of `topic` (partition → records in offset order). */
export async function readTopic(bootstrap: string, topic: string): Promise<Map<number, ReadRecord[]>> {
  const admin = new Admin({ bootstrapServers: bootstrap.split(','), clientId: 'jepsen-read-back' });
  await admin.connect();
  let ends: { partition: number; low: number; high: number }[];
  try {
    ends = await admin.fetchTopicOffsets(topic);
  } finally {
    await admin.close();
  }
  const result = new Map<number, ReadRecord[]>();
  for (const { partition, low, high } of ends.sort((a, b) => a.partition - b.partition)) {
    const records = existsSync(KCAT) ? await kcatRead(bootstrap, topic, partition) : await consumerRead(bootstrap, topic, partition, high);
    const below = records.filter((record) => record.offset < high);
    if (below.length !== high - low) throw new Error(`read back ${below.length} records of ${topic}-${partition}, its offsets span ${low}..${high}`);
    result.set(partition, below);
  }
  return result;
}

function kcatRead(bootstrap: string, topic: string, partition: number): Promise<ReadRecord[]> {
  const args = ['-C', '-b', bootstrap, '-t', topic, '-p', String(partition), '-o', 'beginning', '-e', '-q', '-f', '%o %s\\n'];
  return new Promise((resolve, reject) => {
    execFile(KCAT, args, { maxBuffer: 1 << 30, timeout: 120_000 }, (error, stdout) => {
      if (error !== null) {
        reject(new Error(`kcat ${args.join(' ')}: ${error.message}`));
        return;
      }
      resolve(stdout.split('\n').filter((line) => line !== '').map((line) => {
        const space = line.indexOf(' ');
        return { partition, offset: Number(line.slice(0, space)), value: line.slice(space + 1) };
      }));
    });
  });
}

async function consumerRead(bootstrap: string, topic: string, partition: number, high: number): Promise<ReadRecord[]> {
  const consumer = new Consumer({ bootstrapServers: bootstrap.split(','), clientId: 'jepsen-read-back', autoOffsetReset: 'earliest', maxPollRecords: 10_000 });
  const records: ReadRecord[] = [];
  try {
    consumer.assign([{ topic, partition }]);
    await consumer.seekToBeginning();
    let next = 0;
    for (let idle = 0; next < high && idle < 60; ) {
      const batch = await consumer.poll(1000);
      if (batch.length === 0) idle++;
      for (const record of batch) {
        records.push({ partition, offset: record.offset, value: record.value === null ? '' : record.value.toString('utf8') });
        next = record.offset + 1;
      }
    }
  } finally {
    await consumer.close();
  }
  return records;
}
