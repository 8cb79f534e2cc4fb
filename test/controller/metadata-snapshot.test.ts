import { describe, expect, it } from 'vitest';
import { MetadataImage } from '../../host/controller/metadata-image.js';
import { decodeMetadataRecord, encodeMetadataRecord } from '../../host/controller/metadata-records.js';
import { imageRecords } from '../../host/controller/metadata-snapshot.js';
import { ConfigResourceType } from '../../host/controller/metadata-records.js';
import { startController } from './controller-fixture.js';

describe('imageRecords', () => {
  it('writes an image as records that, encoded, decoded and replayed into an empty image, give the same image', async () => {
    const { controller } = await startController({ brokers: [1, 2, 3] });
    const created = await controller.createTopics([
      { name: 'orders', numPartitions: 3, replicationFactor: 2, configs: [{ name: 'retention.ms', value: '60000' }] },
      { name: 'payments', numPartitions: 1, replicationFactor: 3, configs: [] },
      { name: 'doomed', numPartitions: 1, replicationFactor: 1, configs: [] },
    ]);
    expect(created.map((r) => r.errorCode)).toEqual([0, 0, 0]);
    await controller.deleteTopics(['doomed']);
    await controller.incrementalAlterConfigs([{ resourceType: ConfigResourceType.TOPIC, resourceName: 'payments', configs: [{ name: 'cleanup.policy', configOperation: 0, value: 'compact' }] }]);
    const epoch = controller.image.broker(2)!.brokerEpoch;
    expect((await controller.allocateProducerIds(2, epoch)).errorCode).toBe(0);
    expect((await controller.fenceBroker(3, controller.image.broker(3)!.brokerEpoch)).errorCode).toBe(0);

    const image = controller.image;
    const rebuilt = new MetadataImage();
    for (const record of imageRecords(image)) rebuilt.replay(decodeMetadataRecord(encodeMetadataRecord(record)));
    expect(rebuilt.toJSON()).toEqual(image.toJSON());
    expect(rebuilt.topicNames()).toEqual(['orders', 'payments']);
    expect(rebuilt.broker(3)!.fenced).toBe(true);
    expect(rebuilt.nextProducerId).toBe(image.nextProducerId);
    expect(rebuilt.nextProducerId).toBeGreaterThan(0);
  });

  it('writes nothing for an empty image', () => {
    expect(imageRecords(new MetadataImage())).toEqual([]);
  });
});
