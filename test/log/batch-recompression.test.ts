import { afterEach, describe, expect, it } from 'vitest';
import { NodeDisk } from '../../host/io/disk.js';
import { recompressionCounters, targetCodec } from '../../host/log/batch-recompression.js';
import type { TopicCompressionType } from '../../host/log/log-config.js';
import { ProducerStateManager } from '../../host/log/producer-state-manager.js';
import type { UnifiedLog } from '../../host/log/unified-log.js';
import { buildRecordBatch, type RecordInput } from '../../host/record/batch-builder.js';
import { iterateBatches, readBatch } from '../../host/record/records.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { getCore } from '../../host/wasm/core.js';
import { openLog, removeTempDirs } from './log-test-helpers.js';

afterEach(removeTempDirs);

const T0 = 1_700_000_000_000;

function inputs(count: number, tag = 'r'): RecordInput[] {
  return Array.from({ length: count }, (_, i) => ({
    key: `${tag}-key-${i}`,
    value: `${tag}-value-${i} ${'payload '.repeat(12)}`,
    headers: [{ key: 'h', value: `${tag}-${i}` }, { key: 'nullable', value: null }],
    timestamp: T0 + i * 7,
  }));
}

/** Every stored batch: header fields, CRC checked (readBatch verifies it by default), records. */
function storedBatches(log: UnifiedLog): ReturnType<typeof readBatch>[] {
  const { records } = log.read(log.logStartOffset, 1 << 24, log.logEndOffset, true);
  return [...iterateBatches(records)].map((batch) => {
    const crc = batch.readUInt32BE(17);
    expect(getCore().crc32c(batch.subarray(21))).toBe(crc);
    return readBatch(batch);
  });
}

function comparable(batch: ReturnType<typeof readBatch>): unknown {
  return batch.records.map((r) => ({
    offset: r.offset, timestamp: r.timestamp, key: r.key?.toString(), value: r.value?.toString(),
    headers: r.headers.map((h) => [h.key, h.value?.toString() ?? null]),
  }));
}

describe('compression.type: the leader recompresses batches of other codecs (Kafka LogValidator)', () => {
  it('maps the config values to codec ids, producer to -1', () => {
    const names: TopicCompressionType[] = ['producer', 'uncompressed', 'gzip', 'snappy', 'lz4', 'zstd'];
    expect(names.map(targetCodec)).toEqual([-1, 0, 1, 2, 3, 4]);
  });

  it('producer (the default) stores every batch byte for byte as sent', () => {
    const { log } = openLog();
    const sent = [0, 1, 3].map((codec) => buildRecordBatch({ records: inputs(3, `c${codec}`), compression: codec }));
    for (const batch of sent) expect(log.appendAsLeader(batch, 5).errorCode).toBe(0);
    expect(storedBatches(log).map((b) => b.header.compression)).toEqual([0, 1, 3]);
  });

  it.each([
    ['lz4', 0, 3], ['lz4', 1, 3], ['lz4', 4, 3], ['uncompressed', 3, 0], ['gzip', 2, 1], ['snappy', 0, 2], ['zstd', 1, 4],
  ] as const)('%s topic: a codec %i batch is stored with codec %i, same records, offsets, timestamps, valid CRC', (type, from, to) => {
    const { log } = openLog({ config: { compressionType: type, segmentBytes: 1 << 20 } });
    expect(log.appendAsLeader(buildRecordBatch({ records: inputs(1, 'first') }), 3).errorCode).toBe(0);
    const sent = buildRecordBatch({ records: inputs(20), compression: from });
    const expected = comparable(readBatch(sent)) as { offset: number }[];
    const before = recompressionCounters.records;
    const result = log.appendAsLeader(sent, 3);
    expect(result.errorCode).toBe(0);
    expect([result.baseOffset, result.lastOffset]).toEqual([1, 20]);
    expect(result.batches[0]!.compression).toBe(to);
    const stored = storedBatches(log)[1]!;
    expect(stored.header).toMatchObject({ compression: to, baseOffset: 1, lastOffsetDelta: 19, partitionLeaderEpoch: 3, maxTimestamp: T0 + 19 * 7 });
    expect(comparable(stored)).toEqual(expected.map((r) => ({ ...r, offset: r.offset + 1 })));
    expect(recompressionCounters.records - before).toBe(from === to ? 0 : 20);
  });

  it('keeps producer id, epoch, base sequence and the transactional flag; the producer state sees the stored batch', () => {
    const { log } = openLog({ config: { compressionType: 'lz4' } });
    const state = new ProducerStateManager({ dir: log.dir, disk: new NodeDisk() });
    const batch = (baseSequence: number): Buffer => buildRecordBatch({
      records: inputs(4, `s${baseSequence}`), producerId: 42, producerEpoch: 3, baseSequence, compression: 1,
    });
    expect(log.appendAsLeader(batch(0), 0, state).errorCode).toBe(0);
    const retry = log.appendAsLeader(batch(0), 0, state);
    expect([retry.errorCode, retry.baseOffset, retry.batches.length]).toEqual([0, 0, 0]);
    expect(log.appendAsLeader(batch(4), 0, state).errorCode).toBe(0);
    expect(log.appendAsLeader(batch(9), 0, state).errorCode).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    const stored = storedBatches(log);
    expect(stored.map((b) => [b.header.compression, b.header.producerId, b.header.producerEpoch, b.header.baseSequence, b.header.baseOffset]))
      .toEqual([[3, 42, 3, 0, 0], [3, 42, 3, 4, 4]]);

    const txn = buildRecordBatch({ records: inputs(2, 'txn'), producerId: 43, producerEpoch: 0, baseSequence: 0, isTransactional: true });
    expect(log.appendAsLeader(txn, 0).errorCode).toBe(0);
    expect(storedBatches(log)[2]!.header).toMatchObject({ compression: 3, isTransactional: true, producerId: 43 });
  });

  it('LogAppendTime topics keep the broker\'s stamp in the rebuilt batch', () => {
    const { log, clock } = openLog({ config: { compressionType: 'gzip', messageTimestampType: 'LogAppendTime' } });
    const result = log.appendAsLeader(buildRecordBatch({ records: inputs(3) }), 0);
    expect(result.errorCode).toBe(0);
    const stored = storedBatches(log)[0]!;
    expect(stored.header).toMatchObject({ compression: 1, timestampType: 1, maxTimestamp: clock.nowMs() });
    expect(stored.records.every((r) => r.timestamp === clock.nowMs())).toBe(true);
  });

  it('refuses with MESSAGE_TOO_LARGE when the recompressed batch exceeds max.message.bytes, writing nothing', () => {
    const { log } = openLog({ config: { compressionType: 'uncompressed', maxMessageBytes: 2000, segmentBytes: 1 << 20 } });
    const records = Array.from({ length: 50 }, (_, i) => ({ key: `k${i}`, value: 'x'.repeat(200) }));
    const sent = buildRecordBatch({ records, compression: 1 });
    expect(sent.length).toBeLessThan(2000);
    expect(log.appendAsLeader(sent, 0).errorCode).toBe(ErrorCode.MESSAGE_TOO_LARGE);
    expect(log.logEndOffset).toBe(0);
  });

  it('still refuses a damaged batch (bad CRC) rather than recompressing it with a fresh CRC', () => {
    const { log } = openLog({ config: { compressionType: 'lz4' } });
    const sent = buildRecordBatch({ records: inputs(3) });
    sent[sent.length - 1] ^= 0xff;
    expect(log.appendAsLeader(sent, 0).errorCode).toBe(ErrorCode.CORRUPT_MESSAGE);
    expect(log.logEndOffset).toBe(0);
  });

  it('applies gzip and zstd levels (compression.gzip.level, compression.zstd.level)', () => {
    const records = Array.from({ length: 200 }, (_, i) => ({ key: `k${i}`, value: `value ${i % 17} ${'abcdefghij'.repeat(i % 5 + 1)}` }));
    const sizeWith = (config: Parameters<typeof openLog>[0]): number => {
      const { log } = openLog(config);
      expect(log.appendAsLeader(buildRecordBatch({ records }), 0).errorCode).toBe(0);
      return storedBatches(log)[0]!.header.sizeInBytes;
    };
    expect(sizeWith({ config: { compressionType: 'gzip', compressionGzipLevel: 1, segmentBytes: 1 << 20 } }))
      .toBeGreaterThan(sizeWith({ config: { compressionType: 'gzip', compressionGzipLevel: 9, segmentBytes: 1 << 20 } }));
    expect(sizeWith({ config: { compressionType: 'zstd', compressionZstdLevel: 1, segmentBytes: 1 << 20 } }))
      .toBeGreaterThanOrEqual(sizeWith({ config: { compressionType: 'zstd', compressionZstdLevel: 19, segmentBytes: 1 << 20 } }));
  });
});
