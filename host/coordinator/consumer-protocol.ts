/** Protocol type of groups formed by Kafka consumers (ConsumerProtocol.PROTOCOL_TYPE). */
export const CONSUMER_PROTOCOL_TYPE = 'consumer';

/**
 * Topics named in a `consumer` protocol subscription (JoinGroup protocol metadata), or null when
 * the bytes are not a subscription. Like Kafka (GroupMetadata.computeSubscribedTopics) it reads
 * only the version-0 prefix shared by every version: int16 version, then an int32-counted array
 * of int16-length strings (ConsumerProtocolSubscription.json).
 */
export function parseSubscribedTopics(metadata: Uint8Array): string[] | null {
  const view = new DataView(metadata.buffer, metadata.byteOffset, metadata.byteLength);
  let position = 0;
  if (metadata.byteLength < 6) return null;
  const version = view.getInt16(position);
  position += 2;
  if (version < 0) return null;
  const count = view.getInt32(position);
  position += 4;
  if (count < 0) return null;
  const topics: string[] = [];
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for (let i = 0; i < count; i++) {
    if (position + 2 > metadata.byteLength) return null;
    const length = view.getInt16(position);
    position += 2;
    if (length < 0 || position + length > metadata.byteLength) return null;
    try {
      topics.push(decoder.decode(metadata.subarray(position, position + length)));
    } catch {
      return null;
    }
    position += length;
  }
  return topics;
}
