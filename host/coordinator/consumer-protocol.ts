import { decodeConsumerProtocolSubscription } from '../protocol/generated/consumer-protocol-subscription.js';
import { Reader } from '../protocol/reader.js';

/** Protocol type of groups formed by Kafka consumers (ConsumerProtocol.PROTOCOL_TYPE). */
export const CONSUMER_PROTOCOL_TYPE = 'consumer';

/**
 * Topics named in a `consumer` protocol subscription (JoinGroup protocol metadata), or null when
 * the bytes are not a subscription. Like Kafka (GroupMetadata.computeSubscribedTopics) it reads
 * the int16 version and then decodes with version 0, whose layout prefixes every later version,
 * so subscriptions of future versions are understood too.
 */
export function parseSubscribedTopics(metadata: Uint8Array): string[] | null {
  const r = new Reader(metadata);
  const version = r.int16();
  if (!r.ok || version < 0) return null;
  const subscription = decodeConsumerProtocolSubscription(r, 0);
  return r.ok ? subscription.topics : null;
}
