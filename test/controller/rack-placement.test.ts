/**
 * broker.rack on the controller: brokers register with their rack, and CreateTopics and
 * CreatePartitions place each partition's replicas on distinct racks (Kafka's rack-aware
 * assignment, replica-placer.ts), with the leaders spread over the brokers.
 */
import { describe, expect, it } from 'vitest';
import { InMemoryMetadataLog } from '../../host/controller/in-memory-metadata-log.js';
import { QuorumController } from '../../host/controller/quorum-controller.js';
import { ManualClock } from '../../host/io/clock.js';
import { SeededRandom } from '../../host/io/random.js';

const RACKS: Record<number, string> = { 1: 'eu-1a', 2: 'eu-1a', 3: 'eu-1b', 4: 'eu-1b', 5: 'eu-1c', 6: 'eu-1c' };

describe('rack-aware placement at topic creation', () => {
  it('puts the three replicas of every partition on the three racks, leaders on every broker', async () => {
    const controller = new QuorumController({
      config: { nodeId: 1, numPartitions: 1, defaultReplicationFactor: 1, deleteTopicEnable: true },
      log: new InMemoryMetadataLog(), random: new SeededRandom(9), clock: new ManualClock(),
    });
    for (const [id, rack] of Object.entries(RACKS)) {
      const brokerId = Number(id);
      const r = await controller.registerBroker({ brokerId, rack, endpoints: [{ name: 'PLAINTEXT', host: 'h', port: 9000 + brokerId, securityProtocol: 0 }] });
      expect(r.errorCode).toBe(0);
    }
    expect(controller.image.broker(3)!.rack).toBe('eu-1b');
    const [created] = await controller.createTopics([{ name: 'racked', numPartitions: 12, replicationFactor: 3 }]);
    expect(created!.errorCode).toBe(0);
    const [grown] = await controller.createPartitions([{ name: 'racked', count: 18 }]);
    expect(grown!.errorCode).toBe(0);
    const partitions = controller.image.topic('racked')!.partitions;
    expect(partitions).toHaveLength(18);
    for (const p of partitions) expect(new Set(p.replicas.map((id) => RACKS[id])).size).toBe(3);
    const leaders = new Map<number, number>();
    for (const p of partitions.slice(0, 12)) leaders.set(p.replicas[0]!, (leaders.get(p.replicas[0]!) ?? 0) + 1);
    expect([...leaders.values()]).toEqual([2, 2, 2, 2, 2, 2]);
  });
});
