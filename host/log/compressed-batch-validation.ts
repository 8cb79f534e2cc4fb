/**
 * The leader's checks of client batches that the WebAssembly core leaves to the host: size and
 * control bit per batch, and the records of compressed batches (the core walks only uncompressed
 * records).
 */
import { CompressionError, decompress, DEFAULT_MAX_DECOMPRESSED_BYTES } from '../record/compression.js';
import { CorruptRecordError, readRecords } from '../record/records.js';
import { BatchAttributes, BatchLayout } from '../wasm/batch-layout.js';
import type { BatchSummary } from '../wasm/core.js';
import { LogErrorCode } from './log-results.js';

/**
 * The decompressed records sections of one append's compressed batches, by batch index (undefined
 * for an uncompressed batch): {@link checkClientBatches} decompresses each once, and the
 * per-record checks (record-validation.ts) and the recompression (batch-recompression.ts) of the
 * same append reuse them instead of decompressing again.
 */
export type DecompressedSections = readonly (Buffer | undefined)[];

/** The sections of an append without compressed batches (nothing allocated on that path). */
const NO_SECTIONS: DecompressedSections = Object.freeze([]);

/**
 * Kafka's leader-side checks (LogValidator) of the client `batches` the core validated in
 * `records`: MESSAGE_TOO_LARGE (10) for a batch above `maxMessageBytes` (max.message.bytes),
 * INVALID_RECORD (87) for a control batch (markers come from the broker: `allowControl` for its
 * own appends), then {@link validateCompressedBatch} for compressed ones. Returns that error code,
 * or when every batch passes the compressed batches' decompressed sections.
 */
export function checkClientBatches(
  records: Uint8Array, batches: readonly BatchSummary[], maxMessageBytes: number, allowControl = false,
): DecompressedSections | number {
  let sections: (Buffer | undefined)[] | undefined;
  for (let i = 0; i < batches.length; i++) {
    const batch = batches[i]!;
    if (batch.sizeInBytes > maxMessageBytes) return LogErrorCode.MESSAGE_TOO_LARGE;
    if (batch.isControl && (!allowControl || batch.compression !== 0)) return LogErrorCode.INVALID_RECORD;
    if (batch.compression !== 0) {
      const checked = validateCompressedBatch(records.subarray(batch.position, batch.position + batch.sizeInBytes), batch);
      if (typeof checked === 'number') return checked;
      (sections ??= [])[i] = checked;
    }
  }
  return sections ?? NO_SECTIONS;
}

/**
 * Kafka's leader-side check of a compressed client batch (LogValidator): the core walks only
 * uncompressed records, so here the records section is decompressed (bounded by
 * DEFAULT_MAX_DECOMPRESSED_BYTES) and decoded as an uncompressed copy of the batch. Returns
 * CORRUPT_MESSAGE (2) when the section does not decompress, INVALID_RECORD (87) when the records
 * do not parse or disagree with the header (count, lastOffsetDelta, offset deltas not 0..n-1),
 * else the decompressed records section. Never throws for bad client bytes.
 */
export function validateCompressedBatch(bytes: Uint8Array, batch: BatchSummary): Buffer | number {
  let section: Buffer;
  try {
    section = decompress(batch.compression, bytes.subarray(BatchLayout.RECORDS), DEFAULT_MAX_DECOMPRESSED_BYTES);
  } catch (error) {
    if (error instanceof CompressionError) return LogErrorCode.CORRUPT_MESSAGE;
    throw error;
  }
  const plain = Buffer.allocUnsafe(BatchLayout.RECORDS + section.length);
  plain.set(bytes.subarray(0, BatchLayout.RECORDS), 0);
  plain.set(section, BatchLayout.RECORDS);
  plain.writeInt32BE(plain.length - BatchLayout.LOG_OVERHEAD, BatchLayout.BATCH_LENGTH);
  plain.writeInt16BE(batch.attributes & ~BatchAttributes.COMPRESSION_CODEC_MASK, BatchLayout.ATTRIBUTES);
  let records: ReturnType<typeof readRecords>;
  try {
    records = readRecords(plain, { verifyCrc: false });
  } catch (error) {
    if (error instanceof CorruptRecordError) return LogErrorCode.INVALID_RECORD;
    throw error;
  }
  if (records.length === 0 || records.length !== batch.recordCount || batch.lastOffsetDelta !== records.length - 1) {
    return LogErrorCode.INVALID_RECORD;
  }
  const baseOffset = plain.readInt32BE(BatchLayout.BASE_OFFSET) * 4294967296 + plain.readUInt32BE(BatchLayout.BASE_OFFSET + 4);
  for (let i = 0; i < records.length; i++) {
    if (records[i]!.offset !== baseOffset + i) return LogErrorCode.INVALID_RECORD;
  }
  return section;
}
