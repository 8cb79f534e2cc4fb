/**
 * Who wrote a stored record, read from the batch headers in a node's log files: the producer id,
 * producer epoch and base sequence of the RecordBatch v2 holding an offset (layout in
 * host/wasm/batch-layout.ts). The checker uses it to tell the two ways a value can be in a
 * partition twice:
 *
 * - both copies under the same (producerId, producerEpoch): the client retried one batch and the
 *   broker failed to recognise the retry — the idempotence bug the campaign exists to find;
 * - copies under different producer ids or epochs: the client itself sent the value again after
 *   bumping its epoch (KIP-360) or taking a new producer id. Kafka's sequence numbers restart with
 *   each epoch, so no broker can deduplicate across them; librdkafka does this for an idempotent,
 *   non-transactional producer when a partition's in-flight batch fails while another's may have
 *   been persisted (confluentinc/librdkafka#4953). Reported, never a broker violation.
 *
 * Reads the `<20-digit base offset>.log` segment files of `<log.dir>/<topic>-<partition>` with
 * plain file reads (a bench tool, run when the writers have stopped); a torn tail ends the walk.
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { readProducerBatches } from '../../host/log/producer-state-manager.js';

/** The producer fields of the stored batch holding an offset. */
export interface BatchOrigin {
  readonly baseOffset: number;
  readonly lastOffset: number;
  /** -1 for a non-idempotent batch. */
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly baseSequence: number;
}

/** Looks up the batch holding `offset` of `topic`-`partition`; undefined when no node's files hold it. */
export type BatchProvenance = (topic: string, partition: number, offset: number) => BatchOrigin | undefined;

/**
 * A {@link BatchProvenance} over the log directories of the nodes (`logDirs`, searched in order),
 * reading each topic-partition's segments once, on first use.
 */
export function batchProvenance(logDirs: readonly string[]): BatchProvenance {
  const loaded = new Map<string, BatchOrigin[][]>();
  return (topic, partition, offset) => {
    const key = `${topic}-${partition}`;
    let perNode = loaded.get(key);
    if (perNode === undefined) {
      perNode = logDirs.map((dir) => readBatchOrigins(path.join(dir, key)));
      loaded.set(key, perNode);
    }
    for (const batches of perNode) {
      const found = batchHolding(batches, offset);
      if (found !== undefined) return found;
    }
    return undefined;
  };
}

/** Every whole batch header in the segments of one partition directory, in offset order; [] when it is absent. */
export function readBatchOrigins(partitionDir: string): BatchOrigin[] {
  let names: string[];
  try {
    names = readdirSync(partitionDir).filter((name) => /^\d{20}\.log$/.test(name)).sort();
  } catch {
    return [];
  }
  const origins: BatchOrigin[] = [];
  for (const name of names) {
    for (const batch of readProducerBatches(readFileSync(path.join(partitionDir, name))).batches) {
      origins.push({
        baseOffset: batch.baseOffset,
        lastOffset: batch.baseOffset + batch.lastOffsetDelta,
        producerId: batch.producerId,
        producerEpoch: batch.producerEpoch,
        baseSequence: batch.baseSequence,
      });
    }
  }
  return origins;
}

/** The batch of `batches` (sorted by offset) whose offsets include `offset`, by binary search. */
export function batchHolding(batches: readonly BatchOrigin[], offset: number): BatchOrigin | undefined {
  let low = 0;
  let high = batches.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const batch = batches[middle]!;
    if (offset < batch.baseOffset) high = middle - 1;
    else if (offset > batch.lastOffset) low = middle + 1;
    else return batch;
  }
  return undefined;
}

/** `pid 7 epoch 1 seq 120 (batch 676..677)`. */
export function describeOrigin(origin: BatchOrigin | undefined): string {
  if (origin === undefined) return 'batch not found in any node\'s files';
  return `pid ${origin.producerId} epoch ${origin.producerEpoch} seq ${origin.baseSequence} (batch ${origin.baseOffset}..${origin.lastOffset})`;
}
