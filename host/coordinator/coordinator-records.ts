/**
 * Keys and values of the records the group coordinator writes to `__consumer_offsets`, in
 * Kafka's layouts (coordinator-records/*.json, GroupMetadataManager.scala): every key and value
 * is an int16 version followed by the versioned struct, encoded with the generated codecs.
 *
 * - key version 0 or 1: OffsetCommitKey (group, topic, partition); we write version 1;
 * - key version 2: GroupMetadataKey (group);
 * - OffsetCommitValue version 1 when the commit carries an explicit expire timestamp
 *   (OffsetCommit v2-v4 with a retention time), else version 3 (Kafka 2.1+);
 * - GroupMetadataValue version 3 (with group.instance.id, Kafka 2.3+);
 * - a null value is a tombstone (compaction removes the key).
 * Keys of versions 3+ belong to record types of newer coordinators (KIP-848 consumer groups,
 * share groups); we never write them and skip them on load.
 */
import { decodeGroupMetadataKey, encodeGroupMetadataKey } from '../protocol/generated/group-metadata-key.js';
import {
  decodeGroupMetadataValue,
  encodeGroupMetadataValue,
  type GroupMetadataValue,
  type GroupMetadataValueInit,
} from '../protocol/generated/group-metadata-value.js';
import { decodeOffsetCommitKey, encodeOffsetCommitKey } from '../protocol/generated/offset-commit-key.js';
import { decodeOffsetCommitValue, encodeOffsetCommitValue } from '../protocol/generated/offset-commit-value.js';
import { Reader } from '../protocol/reader.js';
import { Writer } from '../protocol/writer.js';
import type { OffsetAndMetadata } from './coordinator-types.js';

export const OFFSET_COMMIT_KEY_VERSION = 1;
export const GROUP_METADATA_KEY_VERSION = 2;
export const OFFSET_COMMIT_VALUE_VERSION = 3;
export const OFFSET_COMMIT_VALUE_VERSION_WITH_EXPIRE_TIMESTAMP = 1;
export const GROUP_METADATA_VALUE_VERSION = 3;

export type CoordinatorRecordKey =
  | { type: 'offsetCommit'; group: string; topic: string; partition: number }
  | { type: 'groupMetadata'; group: string }
  | { type: 'other'; version: number };

export type { GroupMetadataValue, GroupMetadataValueInit };

/** OffsetCommitKey v1 bytes for (group, topic, partition). */
export function offsetCommitKey(group: string, topic: string, partition: number): Buffer {
  const w = new Writer(64);
  w.int16(OFFSET_COMMIT_KEY_VERSION);
  encodeOffsetCommitKey(w, OFFSET_COMMIT_KEY_VERSION, { group, topic, partition });
  return w.toBuffer();
}

/** GroupMetadataKey v2 bytes for `group`. */
export function groupMetadataKey(group: string): Buffer {
  const w = new Writer(32);
  w.int16(GROUP_METADATA_KEY_VERSION);
  encodeGroupMetadataKey(w, GROUP_METADATA_KEY_VERSION, { group });
  return w.toBuffer();
}

/** OffsetCommitValue bytes: v1 when an expire timestamp is present, else v3 (Kafka's offsetCommitValue). */
export function offsetCommitValue(offset: OffsetAndMetadata): Buffer {
  const version = offset.expireTimestampMs !== null
    ? OFFSET_COMMIT_VALUE_VERSION_WITH_EXPIRE_TIMESTAMP
    : OFFSET_COMMIT_VALUE_VERSION;
  const w = new Writer(64);
  w.int16(version);
  encodeOffsetCommitValue(w, version, {
    offset: offset.offset,
    leaderEpoch: offset.leaderEpoch,
    metadata: offset.metadata,
    commitTimestamp: offset.commitTimestampMs,
    expireTimestamp: offset.expireTimestampMs ?? -1,
  });
  return w.toBuffer();
}

/** GroupMetadataValue v3 bytes. */
export function groupMetadataValue(value: GroupMetadataValueInit): Buffer {
  const w = new Writer(256);
  w.int16(GROUP_METADATA_VALUE_VERSION);
  encodeGroupMetadataValue(w, GROUP_METADATA_VALUE_VERSION, value);
  return w.toBuffer();
}

/** Decodes a record key; null when the bytes are malformed. */
export function readCoordinatorRecordKey(key: Uint8Array): CoordinatorRecordKey | null {
  const r = new Reader(key);
  const version = r.int16();
  if (!r.ok) return null;
  if (version === 0 || version === 1) {
    const decoded = decodeOffsetCommitKey(r, version);
    if (!r.ok) return null;
    return { type: 'offsetCommit', group: decoded.group, topic: decoded.topic, partition: decoded.partition };
  }
  if (version === GROUP_METADATA_KEY_VERSION) {
    const decoded = decodeGroupMetadataKey(r, version);
    if (!r.ok) return null;
    return { type: 'groupMetadata', group: decoded.group };
  }
  return { type: 'other', version };
}

/** Decodes an OffsetCommitValue (any version 0-4); null when malformed. */
export function readOffsetCommitValue(value: Uint8Array): OffsetAndMetadata | null {
  const r = new Reader(value);
  const version = r.int16();
  if (!r.ok || version < 0 || version > 4) return null;
  const decoded = decodeOffsetCommitValue(r, version);
  if (!r.ok) return null;
  return {
    offset: decoded.offset,
    leaderEpoch: decoded.leaderEpoch,
    metadata: decoded.metadata,
    commitTimestampMs: decoded.commitTimestamp,
    expireTimestampMs: decoded.expireTimestamp === -1 ? null : decoded.expireTimestamp,
  };
}

/** Decodes a GroupMetadataValue (any version 0-4); null when malformed. */
export function readGroupMetadataValue(value: Uint8Array): GroupMetadataValue | null {
  const r = new Reader(value);
  const version = r.int16();
  if (!r.ok || version < 0 || version > 4) return null;
  const decoded = decodeGroupMetadataValue(r, version);
  return r.ok ? decoded : null;
}
