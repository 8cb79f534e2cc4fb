import { ErrorCode } from '../protocol/generated/error-codes.js';
import { DelayedOperation } from './delayed-operation.js';
import type { Partition } from './partition.js';
import type { ProducePartitionResult } from './replication-types.js';

/** One partition an acks=all Produce waits on. */
export interface ProduceAcksPending {
  topic: string;
  partition: number;
  /** The high watermark must reach this (last appended offset + 1). */
  requiredOffset: number;
  /** The result object that goes into the response; its errorCode is updated in place. */
  result: ProducePartitionResult;
}

/**
 * Kafka's DelayedProduce: an acks=all (-1) Produce waits until every partition it appended to
 * has its high watermark past the appended records, or `timeoutMs` passes (REQUEST_TIMED_OUT, 7,
 * for the partitions still waiting). On a single node the high watermark moves with the append,
 * so this completes on its first check.
 */
export class DelayedProduce extends DelayedOperation<void> {
  private readonly waiting: ProduceAcksPending[];

  constructor(
    timeoutMs: number,
    waiting: readonly ProduceAcksPending[],
    private readonly results: ProducePartitionResult[],
    private readonly getPartition: (topic: string, partition: number) => Pick<Partition, 'checkEnoughReplicasReachOffset'> | undefined,
    private readonly respond: (results: ProducePartitionResult[]) => void,
  ) {
    super(Math.max(0, timeoutMs));
    this.waiting = [...waiting];
  }

  get keys(): string[] {
    return this.waiting.map((w) => `${w.topic}-${w.partition}`);
  }

  tryComplete(): boolean {
    if (this.isCompleted) return true;
    this.checkWaiting();
    if (this.waiting.length === 0) {
      this.forceComplete();
      return true;
    }
    return false;
  }

  protected override onExpiration(): void {
    this.checkWaiting();
    for (const w of this.waiting) w.result.errorCode = ErrorCode.REQUEST_TIMED_OUT;
    this.waiting.length = 0;
  }

  protected onComplete(): void {
    // Forced completion (shutdown, partition removal) answers what is still waiting as timed out.
    this.checkWaiting();
    for (const w of this.waiting) w.result.errorCode = ErrorCode.REQUEST_TIMED_OUT;
    this.waiting.length = 0;
    this.respond(this.results);
  }

  private checkWaiting(): void {
    for (let i = this.waiting.length - 1; i >= 0; i--) {
      const w = this.waiting[i]!;
      const partition = this.getPartition(w.topic, w.partition);
      if (partition === undefined) {
        w.result.errorCode = ErrorCode.NOT_LEADER_OR_FOLLOWER;
        this.waiting.splice(i, 1);
        continue;
      }
      const check = partition.checkEnoughReplicasReachOffset(w.requiredOffset);
      if (!check.done) continue;
      w.result.errorCode = check.errorCode;
      this.waiting.splice(i, 1);
    }
  }
}
