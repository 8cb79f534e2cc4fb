import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../host/io/random.js';
import { METADATA_TOPIC_ID, ZERO_TOPIC_ID, randomTopicId, topicIdFromBase64, topicIdToBase64 } from '../../host/controller/topic-id.js';

describe('topic ids', () => {
  it('prints as Kafka\'s 22-character URL-safe base64 and parses back', () => {
    expect(topicIdToBase64(ZERO_TOPIC_ID)).toBe('AAAAAAAAAAAAAAAAAAAAAA');
    expect(topicIdToBase64(METADATA_TOPIC_ID)).toBe('AAAAAAAAAAAAAAAAAAAAAQ');
    const id = 'fbffbeef00112233445566778899aabb';
    expect(topicIdFromBase64(topicIdToBase64(id))).toBe(id);
    expect(topicIdFromBase64('not-a-uuid')).toBeNull();
  });

  it('draws random ids that are never reserved and never print with a leading dash', () => {
    const random = new SeededRandom(3);
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const id = randomTopicId(random);
      expect(id).toMatch(/^[0-9a-f]{32}$/);
      expect(topicIdToBase64(id).startsWith('-')).toBe(false);
      seen.add(id);
    }
    expect(seen.size).toBe(2000);
  });

  it('skips the reserved ids when the source produces them', () => {
    const zeros = [new Uint8Array(16), Uint8Array.from({ length: 16 }, (_, i) => (i === 15 ? 1 : 0)), Uint8Array.from({ length: 16 }, () => 7)];
    let call = 0;
    expect(randomTopicId({ fill: (target) => target.set(zeros[call++]!) })).toBe('07'.repeat(16));
  });
});
