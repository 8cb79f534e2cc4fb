/**
 * host/record (not the broker hot path): building and decoding a batch of 1000 records of 1 KiB
 * with each codec, against the uncompressed batch as the baseline in the same run.
 */
import { buildRecordBatch, type RecordInput } from '../host/record/batch-builder.js';
import { readRecords } from '../host/record/records.js';
import { runBenchTable } from './run.js';

const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;

export async function main(): Promise<void> {
  const value = Buffer.alloc(1024);
  for (let i = 0; i < value.length; i++) value[i] = (i * 31) % 97; // compressible, not trivial
  const records: RecordInput[] = Array.from({ length: 1000 }, (_, i) => ({
    key: `key-${i}`, value, headers: [{ key: 'trace', value: 'abc' }], timestamp: 1_700_000_000_000 + i,
  }));
  const uncompressedBytes = buildRecordBatch({ records }).length;

  await runBenchTable(`buildRecordBatch, 1000 records of 1 KiB (${uncompressedBytes} bytes uncompressed)`,
    CODECS.map((name, compression) => ({
      name: `build ${name}`, fn: () => buildRecordBatch({ records, compression }), bytesPerCall: uncompressedBytes,
    })));

  const batches = CODECS.map((_, compression) => buildRecordBatch({ records, compression }));
  console.log(`batch sizes: ${CODECS.map((name, i) => `${name} ${batches[i]!.length}`).join(', ')}`);
  await runBenchTable('readRecords (CRC check + decompress + decode), same batches',
    CODECS.map((name, i) => ({
      name: `read ${name}`, fn: () => readRecords(batches[i]!), bytesPerCall: uncompressedBytes,
    })));
}
