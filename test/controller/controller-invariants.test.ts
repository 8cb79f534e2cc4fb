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

/** Throws (failing the test) with `message` when `condition` is false; cheaper than expect() per element. */
function check(condition: boolean, message: string): void {
  if (!condition) throw new Error(`invariant violated: ${message}`);
}

function checkInvariants(image: MetadataImage, context: string): void {
  const collisionKeys = new Set<string>();
  for (const topic of image.topics()) {
    check(image.topicById(topic.topicId) === image.topic(topic.name), `${context}: ${topic.name} by id`);
    check(!collisionKeys.has(topicCollisionKey(topic.name)), `${context}: ${topic.name} collides`);
    collisionKeys.add(topicCollisionKey(topic.name));
    check(topic.partitions.length > 0, `${context}: ${topic.name} has partitions`);
    topic.partitions.forEach((p, index) => {
      const where = `${context}: ${topic.name}-${index} ${JSON.stringify(p)}`;
      check(p.partitionId === index, `${where}: dense partition ids`);
      check(p.replicas.length > 0 && new Set(p.replicas).size === p.replicas.length, `${where}: distinct replicas`);
      check(p.isr.length > 0 && p.isr.every((id) => p.replicas.includes(id)), `${where}: ISR within replicas`);
      if (p.leader === -1) {
        check(p.isr.every((id) => image.broker(id)?.fenced ?? true), `${where}: leaderless with a usable ISR member`);
      } else {
        check(p.isr.includes(p.leader), `${where}: leader in ISR`);
        check(image.broker(p.leader)?.fenced === false, `${where}: leader usable`);
      }
      check(p.leaderEpoch >= 0 && p.partitionEpoch >= p.leaderEpoch, `${where}: epochs`);
    });
    const configs = [...image.topicConfigs(topic.name)].map(([name, value]) => ({ name, value }));
    check(validateTopicConfigs(configs).errors.length === 0, `${context}: ${topic.name} configs valid`);
  }
}

describe('QuorumController under random operations', () => {
  it('keeps the metadata invariants after every step and replays to the same image', async () => {
    for (let seed = 1; seed <= 8; seed++) {
      const random = new SeededRandom(seed);
      const { controller, log } = await startController({ brokers: BROKERS, seed });
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
            await controller.createTopics([{
              name, numPartitions: random.int(-1, 4), replicationFactor: random.int(-1, 3),
              configs: random.chance(0.3) ? [{ name: pick(['retention.ms', 'cleanup.policy', 'segment.bytes']), value: pick(['1000', 'compact', 'x', '-1']) }] : [],
            }]);
            break;
          case 2: await controller.deleteTopics([name]); break;
          case 3: await controller.createPartitions([{ name, count: random.int(0, 8) }]); break;
          case 4:
            await controller.alterConfigs([{ resourceType: ConfigResourceType.TOPIC, resourceName: name, configs: random.chance(0.5) ? [] : [{ name: 'retention.ms', value: String(random.int(-2, 5000)) }] }]);
            break;
          case 5:
            await controller.incrementalAlterConfigs([{
              resourceType: ConfigResourceType.TOPIC, resourceName: name,
              configs: [{ name: 'cleanup.policy', configOperation: pick([AlterConfigOp.APPEND, AlterConfigOp.SUBTRACT, AlterConfigOp.DELETE]), value: pick(['compact', 'delete']) }],
            }]);
            break;
          case 6: await controller.fenceBroker(brokerId, epoch); break;
          case 7: await controller.unfenceBroker(brokerId, epoch); break;
          case 8:
            await controller.registerBroker({ brokerId, endpoints: [], fenced: random.chance(0.3) });
            break;
          case 9: {
            const block = await controller.allocateProducerIds(brokerId, epoch);
            if (block.errorCode === 0) {
              expect(block.producerIdStart, context).toBeGreaterThanOrEqual(producerIdHighWater);
              producerIdHighWater = block.producerIdStart + block.producerIdLen;
            }
            break;
          }
        }
        checkInvariants(controller.image, context);
        check(controller.lastCommittedOffset === log.endOffset() - 1, `${context}: last committed offset`);
        if (step % 50 === 49) expect(restartController(log).image.toJSON(), context).toEqual(controller.image.toJSON());
      }
    }
  });
});
