/**
 * Topic name rules (Kafka's org.apache.kafka.common.internals.Topic): legal names, the reserved
 * names, and collisions between names that differ only in '.' versus '_' (both map to the same
 * metric names, so Kafka refuses the second one).
 */

/** Kafka's Topic.MAX_NAME_LENGTH. */
export const MAX_TOPIC_NAME_LENGTH = 249;
/** The KRaft metadata log's topic name (Topic.CLUSTER_METADATA_TOPIC_NAME); never a user topic. */
export const CLUSTER_METADATA_TOPIC_NAME = '__cluster_metadata';
/** Kafka's internal topics (Topic.isInternal): shown with isInternal=true in Metadata. */
export const INTERNAL_TOPIC_NAMES: ReadonlySet<string> = new Set(['__consumer_offsets', '__transaction_state']);

const LEGAL_TOPIC_NAME = /^[a-zA-Z0-9._-]+$/;

/**
 * Why `name` is not a legal topic name (Kafka's Topic.validate messages), or null when it is:
 * non-empty, not "." or "..", at most 249 characters of `[a-zA-Z0-9._-]`.
 */
export function topicNameProblem(name: string): string | null {
  if (name.length === 0) return 'Topic name is illegal, it can\'t be empty';
  if (name === '.' || name === '..') return 'Topic name cannot be "." or ".."';
  if (name.length > MAX_TOPIC_NAME_LENGTH) {
    return `Topic name is illegal, it can't be longer than ${MAX_TOPIC_NAME_LENGTH} characters, topic name: ${name}`;
  }
  if (!LEGAL_TOPIC_NAME.test(name)) {
    return `Topic name "${name}" is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'`;
  }
  return null;
}

/** The name with '.' replaced by '_' (Kafka's Topic.unifyCollisionChars): equal keys collide. */
export function topicCollisionKey(name: string): string {
  return name.replaceAll('.', '_');
}

/** Whether Kafka treats the topic as internal (`__consumer_offsets`, `__transaction_state`). */
export function isInternalTopic(name: string): boolean {
  return INTERNAL_TOPIC_NAMES.has(name);
}
