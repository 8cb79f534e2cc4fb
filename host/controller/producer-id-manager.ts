/**
 * The broker side of producer id allocation (Kafka's RPCProducerIdManager): hands out ids one at
 * a time for InitProducerId from a block the controller allocated, and asks for the next block
 * (PRODUCER_ID_BLOCK_SIZE ids, committed by the controller before it is handed out) when the
 * block is used up. Callers that arrive while a block is being asked for wait for that one
 * request; once 90% of a block is used the next one is asked for in the background. Ids left in a block at shutdown are never used: a restart asks for a fresh block, so
 * ids never repeat.
 */
import type { ProducerIdBlockResult } from './quorum-controller.js';

export interface ProducerIdResult {
  /** Kafka error code: 0, or the controller's error (e.g. KAFKA_STORAGE_ERROR 56, NOT_CONTROLLER 41). */
  readonly errorCode: number;
  /** The producer id; -1 on error. */
  readonly producerId: number;
}

/** Share of a block used before the next one is asked for in the background (Kafka's PID_PREFETCH_THRESHOLD). */
export const PRODUCER_ID_PREFETCH_THRESHOLD = 0.9;

export class ProducerIdManager {
  private next = 0;
  private end = 0;
  /** Ids in the current block. */
  private blockLength = 0;
  /** The next block, asked for in advance once {@link PRODUCER_ID_PREFETCH_THRESHOLD} of this one is used. */
  private prefetched: { start: number; end: number } | null = null;
  /** The block request in flight: resolves with its error code (0 once the block is installed or kept). */
  private fetching: Promise<number> | null = null;

  /**
   * @param allocateBlock asks the controller for a block, e.g.
   *   `() => controller.allocateProducerIds(nodeId, brokerEpoch)`; answers once it is committed
   */
  constructor(private readonly allocateBlock: () => Promise<ProducerIdBlockResult> | ProducerIdBlockResult) {}

  /**
   * The next unused producer id; waits for a new block first when this one is used up and none
   * was prefetched (an error of that request is passed on, and the next call asks again). Once
   * 90% of a block is handed out the next block is asked for in the background, so a forwarded
   * AllocateProducerIds rarely delays an InitProducerId (Kafka's RPCProducerIdManager).
   * @throws Error when the controller hands out a block that is empty or goes back (a bug)
   */
  async generateProducerId(): Promise<ProducerIdResult> {
    while (this.next >= this.end) {
      if (this.prefetched !== null) {
        this.install(this.prefetched);
        this.prefetched = null;
        continue;
      }
      const errorCode = await this.fetch();
      if (errorCode !== 0) return { errorCode, producerId: -1 };
    }
    const producerId = this.next++;
    if (this.prefetched === null && this.fetching === null && this.pastPrefetchThreshold()) {
      // A failed prefetch is asked for again when the block runs out; a bug still surfaces there.
      this.fetch().catch(() => undefined);
    }
    return { errorCode: 0, producerId };
  }

  private pastPrefetchThreshold(): boolean {
    const used = this.next - (this.end - this.blockLength);
    return used >= this.blockLength * PRODUCER_ID_PREFETCH_THRESHOLD;
  }

  private install(range: { start: number; end: number }): void {
    this.next = range.start;
    this.end = range.end;
    this.blockLength = range.end - range.start;
  }

  private fetch(): Promise<number> {
    this.fetching ??= this.fetchBlock().finally(() => { this.fetching = null; });
    return this.fetching;
  }

  private async fetchBlock(): Promise<number> {
    const block = await this.allocateBlock();
    if (block.errorCode !== 0) return block.errorCode;
    const highest = this.prefetched?.end ?? this.end;
    if (block.producerIdLen <= 0 || block.producerIdStart < highest) {
      throw new Error(`ProducerIdManager: bad block [${block.producerIdStart}, +${block.producerIdLen}) after ${highest}`);
    }
    const range = { start: block.producerIdStart, end: block.producerIdStart + block.producerIdLen };
    if (this.next >= this.end) {
      this.install(range);
    } else {
      this.prefetched = range;
    }
    return 0;
  }
}
