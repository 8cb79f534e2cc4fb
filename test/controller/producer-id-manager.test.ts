import { describe, expect, it } from 'vitest';
import { ProducerIdManager } from '../../host/controller/producer-id-manager.js';
import { PRODUCER_ID_BLOCK_SIZE } from '../../host/controller/quorum-controller.js';
import { startController } from './controller-fixture.js';

describe('ProducerIdManager', () => {
  it('hands out consecutive ids and asks the controller for a new block when one is used up', async () => {
    const { controller } = await startController();
    const epoch = controller.image.broker(1)!.brokerEpoch;
    let blocks = 0;
    const manager = new ProducerIdManager(() => { blocks++; return controller.allocateProducerIds(1, epoch); });
    const ids: number[] = [];
    for (let i = 0; i < PRODUCER_ID_BLOCK_SIZE + 2; i++) ids.push((await manager.generateProducerId()).producerId);
    expect(ids).toEqual(Array.from({ length: PRODUCER_ID_BLOCK_SIZE + 2 }, (_, i) => i));
    expect(blocks).toBe(2);
  });

  it('passes the controller\'s error on and tries again on the next call', async () => {
    const { controller } = await startController();
    let epoch = -5;
    const manager = new ProducerIdManager(() => controller.allocateProducerIds(1, epoch));
    expect(await manager.generateProducerId()).toEqual({ errorCode: 77, producerId: -1 });
    epoch = controller.image.broker(1)!.brokerEpoch;
    expect(await manager.generateProducerId()).toEqual({ errorCode: 0, producerId: 0 });
  });
});

describe('ProducerIdManager prefetch', () => {
  it('asks for the next block once 90% of the current one is handed out, and hands it out without waiting', async () => {
    const { controller } = await startController();
    const epoch = controller.image.broker(1)!.brokerEpoch;
    let blocks = 0;
    const manager = new ProducerIdManager(() => { blocks++; return controller.allocateProducerIds(1, epoch); });
    for (let i = 0; i < PRODUCER_ID_BLOCK_SIZE * 0.9 - 1; i++) await manager.generateProducerId();
    expect(blocks).toBe(1);
    await manager.generateProducerId();
    expect(blocks).toBe(2);
    const ids: number[] = [];
    for (let i = 0; i < PRODUCER_ID_BLOCK_SIZE * 0.1 + 1; i++) ids.push((await manager.generateProducerId()).producerId);
    expect(ids.at(-1)).toBe(PRODUCER_ID_BLOCK_SIZE);
    expect(blocks).toBe(2);
  });
});
