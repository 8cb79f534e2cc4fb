/**
 * The broker side of producer id allocation (Kafka's RPCProducerIdManager, synchronous here):
 * hands out ids one at a time for InitProducerId from a block the controller allocated, and asks
 * for the next block (PRODUCER_ID_BLOCK_SIZE ids, persisted by the controller before it is
 * handed out) when the block is used up. Ids left in a block at shutdown are never used: a
 * restart asks for a fresh block, so ids never repeat.
 */
import type { ProducerIdBlockResult } from './quorum-controller.js';

export interface ProducerIdResult {
  /** Kafka error code: 0, or the controller's error (e.g. KAFKA_STORAGE_ERROR 56). */
  readonly errorCode: number;
  /** The producer id; -1 on error. */
  readonly producerId: number;
}

export class ProducerIdManager {
  private next = 0;
  private end = 0;

  /**
   * @param allocateBlock asks the controller for a block, e.g.
   *   `() => controller.allocateProducerIds(nodeId, brokerEpoch)`
   */
  constructor(private readonly allocateBlock: () => ProducerIdBlockResult) {}

  /** The next unused producer id. */
  generateProducerId(): ProducerIdResult {
    if (this.next >= this.end) {
      const block = this.allocateBlock();
      if (block.errorCode !== 0) return { errorCode: block.errorCode, producerId: -1 };
      if (block.producerIdLen <= 0 || block.producerIdStart < this.end) {
        throw new Error(`ProducerIdManager: bad block [${block.producerIdStart}, +${block.producerIdLen}) after ${this.end}`);
      }
      this.next = block.producerIdStart;
      this.end = block.producerIdStart + block.producerIdLen;
    }
    return { errorCode: 0, producerId: this.next++ };
  }
}
