/**
 * Random operation sequences against the controller (seeded; a failure names SEED=...), checking
 * the metadata invariants after every step and that replaying the log rebuilds the same image.
 */
import { describe, expect, it } from 'vitest';
import { validateTopicConfigs } from '../../host/config/topic-config.js';
import { SeededRandom } from '../../host/io/random.js';
import type { MetadataImage } from '../../host/controller/metadata-image.js';
import { ConfigResourceType } from '../../host/controller/metadata-records.js';
import { AlterConfigOp } from '../../host/controller/quorum-controller.js';
import { topicCollisionKey } from '../../host/controller/topic-name.js';
import { restartController, startController } from './controller-fixture.js';

const NAMES = ['a', 'b', 'c.d', 'c_d', 'e-1', 'orders', '__consumer_offsets'];
const BROKERS = [1, 2, 3];

function checkInvariants(image: MetadataImage, context: string): void {
  const collisionKeys = new Set<string>();
  for (const topic of image.topics()) {
    expect(image.topicById(topic.topicId), context).toBe(image.topic(topic.name));
    expect(collisionKeys.has(topicCollisionKey(topic.name)), `${context}: ${topic.name} collides`).toBe(false);
    collisionKeys.add(topicCollisionKey(topic.name));
    expect(topic.partitions.length, context).toBeGreaterThan(0);
    topic.partitions.forEach((p, index) => {
      const where = `${context}: ${topic.name}-${index}`;
      expect(p.partitionId, where).toBe(index);
      expect(p.replicas.length, where).toBeGreaterThan(0);
      expect(new Set(p.replicas).size, where).toBe(p.replicas.length);
      expect(p.isr.length, where).toBeGreaterThan(0);
      for (const id of p.isr) expect(p.replicas, where).toContain(id);
      if (p.leader === -1) {
        for (const id of p.isr) expect(image.broker(id)?.fenced ?? true, `${where}: leaderless with live ISR member ${id}`).toBe(true);
      } else {
        expect(p.isr, where).toContain(p.leader);
        expect(image.broker(p.leader)?.fenced, `${where}: leader ${p.leader} is usable`).toBe(false);
      }
      expect(p.leaderEpoch, where).toBeGreaterThanOrEqual(0);
      expect(p.partitionEpoch, where).toBeGreaterThanOrEqual(p.leaderEpoch);
    });
    const configs = [...image.topicConfigs(topic.name)].map(([name, value]) => ({ name, value }));
    expect(validateTopicConfigs(configs).errors, context).toEqual([]);
  }
}

describe('QuorumController under random operations', () => {
  it('keeps the metadata invariants after every step and replays to the same image', () => {
    for (let seed = 1; seed <= 12; seed++) {
      const random = new SeededRandom(seed);
      const { controller, log } = startController({ brokers: BROKERS, seed });
      const pick = <T>(values: readonly T[]): T => values[random.int(0, values.length - 1)]!;
      let producerIdHighWater = 0;
      for (let step = 0; step < 150; step++) {
        const context = `SEED=${seed} step ${step}`;
        const name = pick(NAMES);
        const brokerId = pick(BROKERS);
        const epoch = controller.image.broker(brokerId)?.brokerEpoch ?? -1;
        switch (random.int(0, 9)) {
          case 0:
          case 1:
            controller.createTopics([{
              name, numPartitions: random.int(-1, 4), replicationFactor: random.int(-1, 3),
              configs: random.chance(0.3) ? [{ name: pick(['retention.ms', 'cleanup.policy', 'segment.bytes']), value: pick(['1000', 'compact', 'x', '-1']) }] : [],
            }]);
            break;
          case 2: controller.deleteTopics([name]); break;
          case 3: controller.createPartitions([{ name, count: random.int(0, 8) }]); break;
          case 4:
            controller.alterConfigs([{ resourceType: ConfigResourceType.TOPIC, resourceName: name, configs: random.chance(0.5) ? [] : [{ name: 'retention.ms', value: String(random.int(-2, 5000)) }] }]);
            break;
          case 5:
            controller.incrementalAlterConfigs([{
              resourceType: ConfigResourceType.TOPIC, resourceName: name,
              configs: [{ name: 'cleanup.policy', configOperation: pick([AlterConfigOp.APPEND, AlterConfigOp.SUBTRACT, AlterConfigOp.DELETE]), value: pick(['compact', 'delete']) }],
            }]);
            break;
          case 6: controller.fenceBroker(brokerId, epoch); break;
          case 7: controller.unfenceBroker(brokerId, epoch); break;
          case 8:
            controller.registerBroker({ brokerId, endpoints: [], fenced: random.chance(0.3) });
            break;
          case 9: {
            const block = controller.allocateProducerIds(brokerId, epoch);
            if (block.errorCode === 0) {
              expect(block.producerIdStart, context).toBeGreaterThanOrEqual(producerIdHighWater);
              producerIdHighWater = block.producerIdStart + block.producerIdLen;
            }
            break;
          }
        }
        checkInvariants(controller.image, context);
        expect(controller.lastCommittedOffset, context).toBe(log.endOffset() - 1);
        if (step % 50 === 49) expect(restartController(log).image.toJSON(), context).toEqual(controller.image.toJSON());
      }
    }
  });
});
