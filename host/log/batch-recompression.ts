/**
 * The leader's recompression of client batches to the topic's `compression.type` (Kafka's
 * LogValidator.validateMessagesAndAssignOffsetsCompressed when the source codec differs from the
 * target: "no in place assignment situation 1"). Rules taken from Kafka 3.9:
 *  - `producer` keeps every batch as sent (no work at all);
 *  - a batch already in the target codec is kept as is (Kafka compares codecs, not levels);
 *  - a control batch written uncompressed stays uncompressed ("do not compress control records
 *    unless they are written compressed"); clients cannot send control batches anyway;
 *  - a rebuilt batch keeps its base offset, offsets (deltas 0..n-1, checked before), timestamps
 *    and timestamp type, producer id / epoch / base sequence, transactional flag and partition
 *    leader epoch; only the records section, batchLength, the codec bits of the attributes and
 *    the CRC-32C change;
 *  - the new size is checked again: MESSAGE_TOO_LARGE (10) for a batch above max.message.bytes
 *    (Kafka's UnifiedLog does this when `messageSizeMaybeChanged`), RECORD_LIST_TOO_LARGE (18)
 *    for a blob above segment.bytes.
 *
 * The records section is recompressed as it is (the bytes of the records in their v2 encoding):
 * the record encoding does not depend on the codec, so this equals Kafka's re-encoding record by
 * record. Work is bounded by max.message.bytes per batch and the decompression limit.
 */
import { compress, CompressionType, decompress, DEFAULT_MAX_DECOMPRESSED_BYTES } from '../record/compression.js';
import { BatchAttributes, BatchLayout } from '../wasm/batch-layout.js';
import type { BatchSummary, PreparedAppend } from '../wasm/core.js';
import type { DecompressedSections } from './compressed-batch-validation.js';
import type { LogConfig, TopicCompressionType } from './log-config.js';
import { LogErrorCode } from './log-results.js';

/** The codec id compression.type asks for, or -1 for `producer` (keep the producer's). */
export function targetCodec(type: TopicCompressionType): number {
  switch (type) {
    case 'producer': return -1;
    case 'uncompressed': return CompressionType.NONE;
    case 'gzip': return CompressionType.GZIP;
    case 'snappy': return CompressionType.SNAPPY;
    case 'lz4': return CompressionType.LZ4;
    case 'zstd': return CompressionType.ZSTD;
  }
}

/** The level compression.<codec>.level gives `codec` (undefined: the codec has no level here). */
function levelOf(codec: number, config: LogConfig): number | undefined {
  if (codec === CompressionType.GZIP) return config.compressionGzipLevel;
  if (codec === CompressionType.ZSTD) return config.compressionZstdLevel;
  return undefined;
}

/** What {@link recompressBatches} did. */
export interface Recompression {
  /** The append to write: `prepared` itself when no batch changed. */
  prepared: PreparedAppend;
  /** Batches rebuilt with the target codec. */
  batches: number;
  /** Records in those batches (Kafka counts them as conversions). */
  records: number;
}

/**
 * The append to write for a client append on a log with `config`: `prepared` itself for
 * compression.type `producer` (one comparison: the hot path) or when every batch already has the
 * target codec, else the rebuilt append; a Kafka error code as {@link recompressBatches}.
 * `sections`: the compressed batches' records sections as the validation decompressed them.
 */
export function recompressForTopic(
  prepared: PreparedAppend, config: LogConfig, core: { crc32c(data: Uint8Array): number }, sections?: DecompressedSections,
): PreparedAppend | number {
  if (config.compressionType === 'producer') return prepared;
  const result = recompressBatches(prepared, config, (data) => core.crc32c(data), sections);
  if (typeof result === 'number') return result;
  if (result.batches > 0) recompressionCounters.batches += result.batches;
  if (result.records > 0) recompressionCounters.records += result.records;
  return result.prepared;
}

/**
 * Batches and records recompressed by leaders of this process since it started (Kafka counts
 * these records in ProduceMessageConversionsPerSec); read by `/metrics` when scraped.
 */
export const recompressionCounters = { batches: 0, records: 0 };

/** True when some batch of `batches` must be rebuilt for `codec` (-1: none). */
function needsRecompression(batches: readonly BatchSummary[], codec: number): boolean {
  if (codec < 0) return false;
  for (const batch of batches) {
    if (batch.compression !== codec && !(batch.isControl && batch.compression === CompressionType.NONE)) return true;
  }
  return false;
}

/**
 * Rebuilds the stamped batches of `prepared` whose codec is not the one `config.compressionType`
 * asks for (see the file header). Returns the (possibly new) append, or a Kafka error code:
 * MESSAGE_TOO_LARGE (10) or RECORD_LIST_TOO_LARGE (18) for the new sizes, CORRUPT_MESSAGE (2)
 * when a section does not decompress (already refused by the validation before; kept for safety).
 * `crc32c` computes the new checksums (the core's; it leaves `prepared.bytes` alone). `sections`
 * (by batch index): records sections already decompressed by the validation, used instead of
 * decompressing again. The returned append's bytes are JavaScript-owned (`stable`), written once.
 */
export function recompressBatches(
  prepared: PreparedAppend, config: LogConfig, crc32c: (data: Uint8Array) => number, sections?: DecompressedSections,
): Recompression | number {
  const codec = targetCodec(config.compressionType);
  if (!needsRecompression(prepared.batches, codec)) return { prepared, batches: 0, records: 0 };
  const level = levelOf(codec, config);
  const source = prepared.bytes;
  // First the new records sections and the sizes (`source` is a view the next core call may
  // overwrite; the codecs are not the core), then one copy of every batch into the new append,
  // then the CRCs (core calls).
  const bodies: (Buffer | undefined)[] = [];
  let rebuilt = 0;
  let records = 0;
  let size = 0;
  for (let i = 0; i < prepared.batches.length; i++) {
    const batch = prepared.batches[i]!;
    if (batch.compression === codec || (batch.isControl && batch.compression === CompressionType.NONE)) {
      bodies.push(undefined);
      size += batch.sizeInBytes;
      continue;
    }
    let section = sections?.[i];
    if (section === undefined) {
      try {
        section = decompress(batch.compression, source.subarray(batch.position + BatchLayout.RECORDS, batch.position + batch.sizeInBytes), DEFAULT_MAX_DECOMPRESSED_BYTES);
      } catch {
        return LogErrorCode.CORRUPT_MESSAGE;
      }
    }
    const body = compress(codec, section, level);
    if (BatchLayout.RECORDS + body.length > config.maxMessageBytes) return LogErrorCode.MESSAGE_TOO_LARGE;
    bodies.push(body);
    size += BatchLayout.RECORDS + body.length;
    rebuilt++;
    records += batch.recordCount;
  }
  if (size > config.segmentBytes) return LogErrorCode.RECORD_LIST_TOO_LARGE;
  const bytes = Buffer.allocUnsafe(size);
  const batches: BatchSummary[] = [];
  let position = 0;
  for (let i = 0; i < prepared.batches.length; i++) {
    const batch = prepared.batches[i]!;
    const body = bodies[i];
    if (body === undefined) {
      bytes.set(source.subarray(batch.position, batch.position + batch.sizeInBytes), position);
      batches.push({ ...batch, position });
      position += batch.sizeInBytes;
      continue;
    }
    const sizeInBytes = BatchLayout.RECORDS + body.length;
    const attributes = (batch.attributes & ~BatchAttributes.COMPRESSION_CODEC_MASK) | codec;
    bytes.set(source.subarray(batch.position, batch.position + BatchLayout.RECORDS), position);
    bytes.set(body, position + BatchLayout.RECORDS);
    bytes.writeInt32BE(sizeInBytes - BatchLayout.LOG_OVERHEAD, position + BatchLayout.BATCH_LENGTH);
    bytes.writeInt16BE(attributes, position + BatchLayout.ATTRIBUTES);
    batches.push({ ...batch, position, sizeInBytes, attributes, compression: codec });
    position += sizeInBytes;
  }
  for (let i = 0; i < batches.length; i++) {
    if (bodies[i] === undefined) continue;
    const at = batches[i]!.position;
    bytes.writeUInt32BE(crc32c(bytes.subarray(at + BatchLayout.ATTRIBUTES, at + batches[i]!.sizeInBytes)), at + BatchLayout.CRC);
  }
  return { prepared: { ...prepared, bytes, stable: true, batches }, batches: rebuilt, records };
}
