/**
 * The broker side of producer id allocation (Kafka's RPCProducerIdManager): hands out ids one at
 * a time for InitProducerId from a block the controller allocated, and asks for the next block
 * (PRODUCER_ID_BLOCK_SIZE ids, committed by the controller before it is handed out) when the
 * block is used up. Callers that arrive while a block is being asked for wait for that one
 * request. Ids left in a block at shutdown are never used: a restart asks for a fresh block, so
 * ids never repeat.
 */
import type { ProducerIdBlockResult } from './quorum-controller.js';

export interface ProducerIdResult {
  /** Kafka error code: 0, or the controller's error (e.g. KAFKA_STORAGE_ERROR 56, NOT_CONTROLLER 41). */
  readonly errorCode: number;
  /** The producer id; -1 on error. */
  readonly producerId: number;
}

export class ProducerIdManager {
  private next = 0;
  private end = 0;
  /** The block request in flight: resolves with its error code (0 once the block is installed). */
  private fetching: Promise<number> | null = null;

  /**
   * @param allocateBlock asks the controller for a block, e.g.
   *   `() => controller.allocateProducerIds(nodeId, brokerEpoch)`; answers once it is committed
   */
  constructor(private readonly allocateBlock: () => Promise<ProducerIdBlockResult> | ProducerIdBlockResult) {}

  /**
   * The next unused producer id; asks for a new block first when this one is used up (an error
   * of that request is passed on, and the next call asks again).
   * @throws Error when the controller hands out a block that is empty or goes back (a bug)
   */
  async generateProducerId(): Promise<ProducerIdResult> {
    while (this.next >= this.end) {
      this.fetching ??= this.fetchBlock().finally(() => { this.fetching = null; });
      const errorCode = await this.fetching;
      if (errorCode !== 0) return { errorCode, producerId: -1 };
    }
    return { errorCode: 0, producerId: this.next++ };
  }

  private async fetchBlock(): Promise<number> {
    const block = await this.allocateBlock();
    if (block.errorCode !== 0) return block.errorCode;
    if (block.producerIdLen <= 0 || block.producerIdStart < this.end) {
      throw new Error(`ProducerIdManager: bad block [${block.producerIdStart}, +${block.producerIdLen}) after ${this.end}`);
    }
    this.next = block.producerIdStart;
    this.end = block.producerIdStart + block.producerIdLen;
    return 0;
  }
}
