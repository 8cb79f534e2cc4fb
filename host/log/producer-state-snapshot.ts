/**
 * The producer-state snapshot file: encode, decode, file names.
 *
 * Kafka's idea (ProducerStateManager, `<offset>.snapshot` in the partition directory): the state
 * of every idempotent producer as of a log offset, so a restart only re-reads the log past that
 * offset. The byte layout is ours (Kafka's snapshot keeps only each producer's last batch; we keep
 * all cached batches so duplicates are still recognised after a restart).
 *
 * Layout, big-endian:
 * ```
 *  0  magic          4 bytes  "TPSS"
 *  4  version        int16    1
 *  6  crc            uint32   CRC-32 (IEEE, node:zlib) over bytes 10..end
 * 10  snapshotOffset int64    the log offset the state is current to (= the file name)
 * 18  producerCount  int32
 * 22  producers, each:
 *       producerId int64, producerEpoch int16, coordinatorEpoch int32,
 *       currentTxnFirstOffset int64 (-1 = none), lastTimestamp int64 (ms),
 *       batchCount int8 (0..maxBatches), then batchCount batches, oldest first:
 *         firstSequence int32, lastSequence int32, firstOffset int64, lastOffset int64, timestamp int64
 * ```
 * A file that is short, has a bad magic/version/CRC or trailing bytes decodes to null (the
 * caller deletes it and falls back to an older snapshot or a log rescan).
 */
import { crc32 } from 'node:zlib';

/** One cached batch of a producer: the identity used to recognise a retried (duplicate) batch. */
export interface ProducerBatchMetadata {
  firstSequence: number;
  lastSequence: number;
  firstOffset: number;
  lastOffset: number;
  /** The batch's max timestamp as stored (the broker's time under LogAppendTime), ms. */
  timestamp: number;
}

/** What is known of one producer id in one partition (Kafka's ProducerStateEntry). */
export interface ProducerStateEntry {
  producerId: number;
  producerEpoch: number;
  /** Transaction coordinator epoch of the last marker, -1 when none (markers with an older one are fenced, 52). */
  coordinatorEpoch: number;
  /** First offset of the open transaction, -1 when none. */
  currentTxnFirstOffset: number;
  /** Timestamp of the last batch, ms; drives producer.id.expiration.ms. */
  lastTimestamp: number;
  /** Up to the last 5 batches, oldest first. */
  batches: ProducerBatchMetadata[];
}

export const SNAPSHOT_FILE_SUFFIX = '.snapshot';
const MAGIC = Buffer.from('TPSS', 'ascii');
const VERSION = 1;
const HEADER_BYTES = 22;
const CRC_COVERED_FROM = 10;
const PRODUCER_FIXED_BYTES = 8 + 2 + 4 + 8 + 8 + 1;
const BATCH_BYTES = 4 + 4 + 8 + 8 + 8;
const MAX_BATCHES_IN_FILE = 127;

/** `<20-digit zero-padded offset>.snapshot`, like Kafka's segment file names. */
export function snapshotFileName(offset: number): string {
  if (!(Number.isSafeInteger(offset) && offset >= 0)) throw new Error(`snapshotFileName: bad offset ${offset}`);
  return `${String(offset).padStart(20, '0')}${SNAPSHOT_FILE_SUFFIX}`;
}

/** The offset in a snapshot file name, or -1 when the name is not one. */
export function parseSnapshotFileName(name: string): number {
  const match = /^(\d{20})\.snapshot$/.exec(name);
  if (match === null) return -1;
  const offset = Number(match[1]);
  return Number.isSafeInteger(offset) ? offset : -1;
}

/** Encodes a snapshot. Throws (bug) on entries that break the layout's limits. */
export function encodeProducerSnapshot(snapshotOffset: number, entries: Iterable<ProducerStateEntry>): Buffer {
  const list = [...entries];
  let size = HEADER_BYTES;
  for (const entry of list) {
    if (entry.batches.length > MAX_BATCHES_IN_FILE) throw new Error(`producer ${entry.producerId}: too many batches`);
    size += PRODUCER_FIXED_BYTES + entry.batches.length * BATCH_BYTES;
  }
  const out = Buffer.alloc(size);
  MAGIC.copy(out, 0);
  out.writeInt16BE(VERSION, 4);
  out.writeBigInt64BE(BigInt(snapshotOffset), 10);
  out.writeInt32BE(list.length, 18);
  let position = HEADER_BYTES;
  for (const entry of list) {
    out.writeBigInt64BE(BigInt(entry.producerId), position);
    out.writeInt16BE(entry.producerEpoch, position + 8);
    out.writeInt32BE(entry.coordinatorEpoch, position + 10);
    out.writeBigInt64BE(BigInt(entry.currentTxnFirstOffset), position + 14);
    out.writeBigInt64BE(BigInt(entry.lastTimestamp), position + 22);
    out.writeInt8(entry.batches.length, position + 30);
    position += PRODUCER_FIXED_BYTES;
    for (const batch of entry.batches) {
      out.writeInt32BE(batch.firstSequence, position);
      out.writeInt32BE(batch.lastSequence, position + 4);
      out.writeBigInt64BE(BigInt(batch.firstOffset), position + 8);
      out.writeBigInt64BE(BigInt(batch.lastOffset), position + 16);
      out.writeBigInt64BE(BigInt(batch.timestamp), position + 24);
      position += BATCH_BYTES;
    }
  }
  out.writeUInt32BE(crc32(out.subarray(CRC_COVERED_FROM)), 6);
  return out;
}

/** Decodes a snapshot; null when the bytes are not a whole, intact snapshot. */
export function decodeProducerSnapshot(
  bytes: Uint8Array,
): { snapshotOffset: number; entries: ProducerStateEntry[] } | null {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (data.length < HEADER_BYTES) return null;
  if (!data.subarray(0, 4).equals(MAGIC) || data.readInt16BE(4) !== VERSION) return null;
  if (data.readUInt32BE(6) !== crc32(data.subarray(CRC_COVERED_FROM))) return null;
  const snapshotOffset = readSafeInt64(data, 10);
  const count = data.readInt32BE(18);
  if (snapshotOffset === null || snapshotOffset < 0 || count < 0) return null;
  const entries: ProducerStateEntry[] = [];
  let position = HEADER_BYTES;
  for (let i = 0; i < count; i++) {
    if (position + PRODUCER_FIXED_BYTES > data.length) return null;
    const producerId = readSafeInt64(data, position);
    const currentTxnFirstOffset = readSafeInt64(data, position + 14);
    const lastTimestamp = readSafeInt64(data, position + 22);
    const batchCount = data.readInt8(position + 30);
    if (producerId === null || currentTxnFirstOffset === null || lastTimestamp === null || batchCount < 0) return null;
    const entry: ProducerStateEntry = {
      producerId,
      producerEpoch: data.readInt16BE(position + 8),
      coordinatorEpoch: data.readInt32BE(position + 10),
      currentTxnFirstOffset,
      lastTimestamp,
      batches: [],
    };
    position += PRODUCER_FIXED_BYTES;
    if (position + batchCount * BATCH_BYTES > data.length) return null;
    for (let b = 0; b < batchCount; b++) {
      const firstOffset = readSafeInt64(data, position + 8);
      const lastOffset = readSafeInt64(data, position + 16);
      const timestamp = readSafeInt64(data, position + 24);
      if (firstOffset === null || lastOffset === null || timestamp === null) return null;
      entry.batches.push({
        firstSequence: data.readInt32BE(position),
        lastSequence: data.readInt32BE(position + 4),
        firstOffset,
        lastOffset,
        timestamp,
      });
      position += BATCH_BYTES;
    }
    entries.push(entry);
  }
  if (position !== data.length) return null;
  return { snapshotOffset, entries };
}

function readSafeInt64(data: Buffer, position: number): number | null {
  const value = data.readBigInt64BE(position);
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) return null;
  return Number(value);
}
