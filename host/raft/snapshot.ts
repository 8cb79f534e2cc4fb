/**
 * Snapshot content: the state machine's records at a committed offset, serialized as one byte
 * string so FetchSnapshot can move it in chunks by byte position, as Kafka moves a `.checkpoint`
 * file. Layout (big-endian):
 *
 * ```
 * [u32 record count] then per record: [u32 length][length bytes]
 * ```
 *
 * The metadata controller wraps its records between SnapshotHeader and SnapshotFooter control
 * records on disk; here the content is opaque records, the frame is the caller's.
 */
import type { SnapshotId } from './raft-log.js';

/** What a listener gets in `handleLoadSnapshot`. */
export interface SnapshotReader {
  readonly snapshotId: SnapshotId;
  /** The records as the state machine wrote them in `createSnapshot`. */
  readonly records: readonly Uint8Array[];
}

/** Serializes snapshot records (layout in the file header). */
export function encodeSnapshotRecords(records: readonly Uint8Array[]): Uint8Array {
  let size = 4;
  for (const record of records) size += 4 + record.length;
  const bytes = new Uint8Array(size);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, records.length);
  let position = 4;
  for (const record of records) {
    view.setUint32(position, record.length);
    bytes.set(record, position + 4);
    position += 4 + record.length;
  }
  return bytes;
}

/**
 * Parses what {@link encodeSnapshotRecords} wrote.
 * @throws Error when the bytes are short or have trailing garbage (a snapshot assembled wrongly is
 *   a bug: chunks are checked by position and total size before this runs)
 */
export function decodeSnapshotRecords(bytes: Uint8Array): Uint8Array[] {
  if (bytes.length < 4) throw new Error(`snapshot of ${bytes.length} bytes is too short`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = view.getUint32(0);
  const records: Uint8Array[] = [];
  let position = 4;
  for (let i = 0; i < count; i++) {
    if (position + 4 > bytes.length) throw new Error('snapshot record header past the end');
    const length = view.getUint32(position);
    if (position + 4 + length > bytes.length) throw new Error('snapshot record past the end');
    records.push(bytes.slice(position + 4, position + 4 + length));
    position += 4 + length;
  }
  if (position !== bytes.length) throw new Error(`snapshot has ${bytes.length - position} trailing bytes`);
  return records;
}
