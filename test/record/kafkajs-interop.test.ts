import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { CoreStatus, getCore } from '../../host/wasm/core.js';
import { buildRecordBatch } from '../../host/record/batch-builder.js';
import { readBatch } from '../../host/record/records.js';

// kafkajs 2.2.4's own batch encoder/decoder (internal modules, CommonJS): a real client's view of
// the format, usable without a broker.
const require = createRequire(import.meta.url);
const { RecordBatch: KafkajsRecordBatch } = require('kafkajs/src/protocol/recordBatch/v0') as { RecordBatch: (options: object) => Promise<{ buffer: Buffer }> };
const KafkajsRecord = require('kafkajs/src/protocol/recordBatch/record/v0') as (options: object) => unknown;
const kafkajsDecodeBatch = require('kafkajs/src/protocol/recordBatch/v0/decoder') as (decoder: unknown) => Promise<{
  firstOffset: string; lastOffsetDelta: number; inTransaction: boolean; producerId: string;
  records: { offset: string; timestamp: string; key: Buffer | null; value: Buffer | null; headers: Record<string, Buffer> }[];
}>;
const KafkajsDecoder = require('kafkajs/src/protocol/decoder') as new (buffer: Buffer) => unknown;
const { Types: KafkajsCompression } = require('kafkajs/src/protocol/message/compression') as { Types: { None: number; GZIP: number } };

const core = getCore();

async function kafkajsBatch(compression: number): Promise<Buffer> {
  const base = 1_700_000_000_000;
  const records = [
    KafkajsRecord({ offsetDelta: 0, timestampDelta: 0, key: Buffer.from('k0'), value: Buffer.from('v0'), headers: { trace: Buffer.from('t') } }),
    KafkajsRecord({ offsetDelta: 1, timestampDelta: 9, key: null, value: Buffer.from('v1'.repeat(50)) }),
  ];
  const encoder = await KafkajsRecordBatch({
    compression, firstTimestamp: base, maxTimestamp: base + 9, lastOffsetDelta: 1, records,
  });
  return encoder.buffer;
}

describe('interoperability with kafkajs 2.2.4 record batches', () => {
  for (const [name, compression] of [['uncompressed', KafkajsCompression.None], ['gzip', KafkajsCompression.GZIP]] as const) {
    it(`accepts and decodes a ${name} batch kafkajs encodes`, async () => {
      const batch = await kafkajsBatch(compression);
      const result = core.validateBatches(batch, { fresh: true });
      expect(result.status).toBe(CoreStatus.OK);
      // kafkajs sends producerEpoch 0 and baseSequence 0 when not idempotent (CLIENTS.md 4.1).
      expect(result.batches[0]).toMatchObject({ compression, recordCount: 2, producerId: -1, producerEpoch: 0, baseSequence: 0 });
      const { records } = readBatch(batch);
      expect(records.map((r) => [r.offset, r.timestamp, r.key?.toString() ?? null])).toEqual([
        [0, 1_700_000_000_000, 'k0'], [1, 1_700_000_000_009, null],
      ]);
      expect(records[0]!.headers).toEqual([{ key: 'trace', value: Buffer.from('t') }]);
    });
  }

  it('has kafkajs decode what buildRecordBatch writes, after the core stamps it', async () => {
    for (const compression of [0, 1]) {
      const built = buildRecordBatch({
        records: [{ key: 'a', value: 'x', headers: [{ key: 'h', value: 'y' }], timestamp: 5000 }, { key: null, value: 'z', timestamp: 5001 }],
        compression, isTransactional: true, producerId: 77, producerEpoch: 1, baseSequence: 0,
      });
      const stamped = Buffer.from(core.prepareAppend(built, 300, 4, -1).bytes);
      const decoded = await kafkajsDecodeBatch(new KafkajsDecoder(stamped));
      expect(decoded.firstOffset).toBe('300');
      expect(decoded.inTransaction).toBe(true);
      expect(decoded.producerId).toBe('77');
      expect(decoded.records.map((r) => [r.offset, r.timestamp, r.key?.toString() ?? null, r.value?.toString()])).toEqual([
        ['300', '5000', 'a', 'x'], ['301', '5001', null, 'z'],
      ]);
      expect(decoded.records[0]!.headers.h!.toString()).toBe('y');
    }
  });
});
