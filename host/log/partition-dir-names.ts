/**
 * Names of partition directories in a log directory: `<topic>-<partition>` for a live log, with
 * `.<unique>-delete` while it is being deleted and `.<unique>-stray` when set aside (Kafka's
 * LocalLog naming).
 */

/** Suffix of partition directories being deleted (Kafka: `<topic>-<partition>.<id>-delete`). */
export const DELETE_DIR_SUFFIX = '-delete';
/** Suffix of a log directory set aside as stray (not in the metadata image; Kafka KRaft's `-stray`). */
export const STRAY_DIR_SUFFIX = '-stray';
/** The longest file name most file systems take (ext4, xfs, tmpfs: 255 bytes). */
const MAX_FILE_NAME_LENGTH = 255;

/**
 * `<topic>-<partition>.<unique><suffix>`, the topic cut so the name stays within 255 characters
 * (Kafka's LocalLog.logDirNameWithSuffixCappedLength): a 249-character topic name plus a delete or
 * stray suffix is longer, and the rename failed with ENAMETOOLONG, taking the whole log directory
 * offline (found by the fuzzer). Topic names are ASCII (topic-name.ts), so characters are bytes.
 */
export function cappedDirName(topic: string, partition: number, uniqueAndSuffix: string): string {
  const fullSuffix = `-${partition}.${uniqueAndSuffix}`;
  return topic.slice(0, Math.max(0, MAX_FILE_NAME_LENGTH - fullSuffix.length)) + fullSuffix;
}

/**
 * Parses `<topic>-<partition>` where topic is a legal Kafka topic name (1..249 of
 * [a-zA-Z0-9._-], not `.` or `..`); null for anything else.
 */
export function parseTopicPartitionDir(name: string): { topic: string; partition: number } | null {
  const dash = name.lastIndexOf('-');
  if (dash <= 0) return null;
  const topic = name.slice(0, dash);
  if (topic.length > 249 || topic === '.' || topic === '..' || !/^[a-zA-Z0-9._-]+$/.test(topic)) return null;
  const digits = name.slice(dash + 1);
  if (!/^\d+$/.test(digits)) return null;
  const partition = Number(digits);
  if (!Number.isSafeInteger(partition) || partition > 0x7fffffff) return null;
  return { topic: name.slice(0, dash), partition };
}
