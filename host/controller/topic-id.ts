/**
 * Topic ids (Kafka's Uuid, KIP-516): 16 random bytes. Tributary carries them as 32 lowercase hex
 * digits (the representation of host/protocol's Reader.uuid / Writer.uuid, so generated codecs
 * take them as is). Kafka prints a Uuid as 22 characters of unpadded URL-safe base64
 * (Uuid.toString); {@link topicIdToBase64} gives that form for logs, the CLI and Metadata users.
 */
import { ZERO_UUID } from '../protocol/reader.js';

/** A source of random bytes (node:crypto in production, a SeededRandom in tests and simulators). */
export interface RandomSource {
  fill(target: Uint8Array): void;
}

/** Kafka's Uuid.ZERO_UUID: "no topic id". */
export const ZERO_TOPIC_ID = ZERO_UUID;
/** Kafka's Uuid.METADATA_TOPIC_ID (0, 1): reserved for `__cluster_metadata`, never given to a topic. */
export const METADATA_TOPIC_ID = '00000000000000000000000000000001';

/** Kafka's Uuid.toString: unpadded URL-safe base64 of the 16 bytes (22 characters). */
export function topicIdToBase64(topicId: string): string {
  return Buffer.from(topicId, 'hex').toString('base64url');
}

/** The inverse of {@link topicIdToBase64}; null when `text` is not 22 characters of base64url for 16 bytes. */
export function topicIdFromBase64(text: string): string | null {
  if (!/^[A-Za-z0-9_-]{22}$/.test(text)) return null;
  const bytes = Buffer.from(text, 'base64url');
  if (bytes.length !== 16 || bytes.toString('base64url') !== text) return null;
  return bytes.toString('hex');
}

/**
 * A fresh random topic id, never one of the reserved ids (zero, the metadata topic's) and never
 * one whose base64 form starts with '-' (Kafka's Uuid.randomUuid rule, so ids never look like
 * command-line options).
 */
export function randomTopicId(random: RandomSource): string {
  const bytes = new Uint8Array(16);
  for (;;) {
    random.fill(bytes);
    const hex = Buffer.from(bytes).toString('hex');
    if (hex === ZERO_TOPIC_ID || hex === METADATA_TOPIC_ID) continue;
    if (topicIdToBase64(hex).startsWith('-')) continue;
    return hex;
  }
}

/** Cryptographic randomness from node:crypto. */
export const cryptoRandomSource: RandomSource = {
  fill(target: Uint8Array): void {
    globalThis.crypto.getRandomValues(target);
  },
};
