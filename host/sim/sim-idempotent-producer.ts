/**
 * The replication simulation's idempotent producer (KIP-98): one per partition, with its own
 * producer id, writing acks=all batches with consecutive sequence numbers, one batch in flight at
 * a time, and retrying that batch, byte for byte, until it is acknowledged: after an error, and
 * after a timeout when the broker it went to crashed and will never answer (a real client's
 * request.timeout.ms). The retry goes to whichever broker the client then believes leads, so it
 * crosses leader changes, crashes and truncations; each partition's producer state
 * (ProducerStateManager) must recognise it. The invariants then require that no log holds one
 * (producerId, producerEpoch, baseSequence) twice (replication-invariants.ts).
 *
 * When the current leader refuses a sequence gap (OUT_OF_ORDER_SEQUENCE_NUMBER, 45), the client
 * bumps its epoch and starts again at sequence 0 with new records, as librdkafka and the Java
 * client do. That is legitimate only after an acknowledged batch was lost (power loss without
 * fsync); on seeds where nothing acknowledged may be lost it is a violation. A deposed leader
 * that has not heard of its successor answers 45 too (its state stopped at its deposition): the
 * simulation hands the client that answer as NOT_LEADER_OR_FOLLOWER, and the batch is retried.
 */
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { buildRecordBatch } from '../record/batch-builder.js';

/** The batch being written: built once, sent until acknowledged. */
export interface PendingBatch {
  readonly batch: Buffer;
  readonly crc: number;
  readonly values: readonly string[];
  /** Step it was first produced at. */
  readonly step: number;
  /** Simulated ms of the last send. */
  sentAtMs: number;
  /** Sends not answered yet. */
  inFlight: number;
  attempts: number;
}

/** What the client does next: nothing (waiting for an answer), or send `pending`. */
export type NextSend = { kind: 'wait' } | { kind: 'send'; pending: PendingBatch; retry: boolean };

/** What one answer meant. */
export type AnswerOutcome = 'acked' | 'retry' | 'epochBumped' | 'stale';

/** A client's wait for an answer before it sends again, simulated ms (above the longest produce timeout, 3 s). */
export const RETRY_AFTER_MS = 3_500;

export class SimIdempotentProducer {
  private epoch = 0;
  private nextSequence = 0;
  private pending: PendingBatch | null = null;
  epochBumps = 0;
  retries = 0;

  constructor(readonly producerId: number) {}

  get producerEpoch(): number {
    return this.epoch;
  }

  /**
   * The batch to send at `nowMs`: the pending one when it was answered with an error or its
   * answer is overdue, a new one of `values()` when none is pending, else nothing.
   */
  next(nowMs: number, step: number, timestamp: number, values: () => string[]): NextSend {
    const pending = this.pending;
    if (pending !== null) {
      if (pending.inFlight > 0 && nowMs - pending.sentAtMs < RETRY_AFTER_MS) return { kind: 'wait' };
      pending.sentAtMs = nowMs;
      pending.inFlight++;
      pending.attempts++;
      this.retries++;
      return { kind: 'send', pending, retry: true };
    }
    const chosen = values();
    const batch = buildRecordBatch({
      producerId: this.producerId, producerEpoch: this.epoch, baseSequence: this.nextSequence,
      records: chosen.map((value) => ({ value, timestamp })),
    });
    this.nextSequence += chosen.length;
    const created: PendingBatch = { batch, crc: batch.readUInt32BE(17), values: chosen, step, sentAtMs: nowMs, inFlight: 1, attempts: 1 };
    this.pending = created;
    return { kind: 'send', pending: created, retry: false };
  }

  /** An answer to one send of `sent` (a broker that crashed never answers: see {@link next}). */
  answer(sent: PendingBatch, errorCode: number): AnswerOutcome {
    sent.inFlight = Math.max(0, sent.inFlight - 1);
    if (this.pending !== sent) return errorCode === ErrorCode.NONE ? 'acked' : 'stale';
    if (errorCode === ErrorCode.NONE) {
      this.pending = null;
      return 'acked';
    }
    if (errorCode === ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER) {
      // The broker lost the batches before this one: a new epoch restarts the sequences.
      this.epoch++;
      this.nextSequence = 0;
      this.pending = null;
      this.epochBumps++;
      return 'epochBumped';
    }
    return 'retry';
  }
}
