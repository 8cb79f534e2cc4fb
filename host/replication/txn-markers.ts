/**
 * Writing transaction markers (Kafka's ReplicaManager side of WriteTxnMarkers, KIP-98): the
 * contract between the transaction coordinator and the partitions, used in process through
 * `ReplicaManager.appendTxnMarkers` and over the wire by the WriteTxnMarkers handler (API 27,
 * host/api/write-txn-markers-api.ts). Shapes are the generated WriteTxnMarkers codec's, so a
 * local call and a request to another broker carry the same data (see /work/wt/TXN-INTERFACE.md
 * for the coordinator's notes).
 *
 * ```
 *   appendTxnMarkers(markers: TxnMarkerEntry[], timeoutMs) → Promise<TxnMarkerResult[]>
 *   TxnMarkerEntry  = { producerId, producerEpoch, transactionResult (true COMMIT, false ABORT),
 *                       topics: [{ name, partitionIndexes }], coordinatorEpoch }
 *   TxnMarkerResult = { producerId, topics: [{ name, partitions: [{ partitionIndex, errorCode }] }] }
 * ```
 * For every (marker, partition) the leader appends one control batch (the EndTransactionMarker:
 * key type 0 ABORT / 1 COMMIT, value coordinator_epoch; producer id and epoch in the header),
 * origin 'coordinator', and answers once the high watermark covers it (acks=all, DelayedProduce),
 * like Kafka's appendRecords(requiredAcks = -1, origin = COORDINATOR). Results come in request
 * order; the promise never rejects. Per-partition error codes:
 *   0 NONE; 3 UNKNOWN_TOPIC_OR_PARTITION; 6 NOT_LEADER_OR_FOLLOWER (this broker does not lead it);
 *   7 REQUEST_TIMED_OUT (not replicated within timeoutMs); 19 NOT_ENOUGH_REPLICAS /
 *   20 NOT_ENOUGH_REPLICAS_AFTER_APPEND; 47 INVALID_PRODUCER_EPOCH (the marker's producer epoch is
 *   older than the partition's); 52 TRANSACTION_COORDINATOR_FENCED (its coordinator epoch is older
 *   than the last marker's); 56 KAFKA_STORAGE_ERROR; 42 INVALID_REQUEST for every partition of a
 *   marker whose producer id is negative or past 2^53 - 1 (no producer: a coordinator never sends one; found by the
 *   fuzzer, which made the control batch builder throw).
 * A marker for a producer without an open transaction on the partition is written anyway and
 * changes only its epochs (Kafka's), so the coordinator may retry a marker after a timeout.
 */
import type {
  WritableTxnMarkerInit,
  WritableTxnMarkerResultInit,
} from '../protocol/generated/write-txn-markers.js';
import { ControlRecordType } from '../log/end-txn-marker.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { buildControlBatch } from '../record/batch-builder.js';
import type { ProduceParams, ProducePartitionData, ProducePartitionResult } from './replication-types.js';

/** A producer id a control batch can carry: an integer in [0, 2^53 - 1] (ids come from the controller's blocks). */
const isProducerId = (producerId: number): boolean => Number.isSafeInteger(producerId) && producerId >= 0;

/** One WriteTxnMarkers entry: a producer's COMMIT (transactionResult true) or ABORT on some partitions. */
export type TxnMarkerEntry = WritableTxnMarkerInit;
/** The per-partition outcome of one {@link TxnMarkerEntry}, in the same order. */
export type TxnMarkerResult = WritableTxnMarkerResultInit;

/**
 * Builds the control batches of `markers` (timestamp `nowMs`), appends them all through
 * `appendRecords` (acks=all, origin 'coordinator', internal topics allowed: offsets of
 * TxnOffsetCommit live in __consumer_offsets) and maps the results back to the markers' shape.
 */
export async function appendTxnMarkers(
  appendRecords: (params: ProduceParams) => Promise<ProducePartitionResult[]>,
  markers: readonly TxnMarkerEntry[],
  timeoutMs: number,
  nowMs: number,
): Promise<TxnMarkerResult[]> {
  const entries: ProducePartitionData[] = [];
  for (const marker of markers) {
    if (!isProducerId(marker.producerId)) continue;
    const records = buildControlBatch({
      type: marker.transactionResult ? ControlRecordType.COMMIT : ControlRecordType.ABORT,
      producerId: marker.producerId,
      producerEpoch: marker.producerEpoch,
      coordinatorEpoch: marker.coordinatorEpoch,
      timestamp: nowMs,
    });
    for (const topic of marker.topics) {
      for (const partition of topic.partitionIndexes) entries.push({ topic: topic.name, partition, records });
    }
  }
  const results = entries.length === 0 ? [] : await appendRecords({
    requiredAcks: -1, timeoutMs, entries, internalTopicsAllowed: true, origin: 'coordinator',
  });
  let index = 0;
  return markers.map((marker) => {
    const valid = isProducerId(marker.producerId);
    return {
      producerId: marker.producerId,
      topics: marker.topics.map((topic) => ({
        name: topic.name,
        partitions: topic.partitionIndexes.map((partitionIndex) => ({
          partitionIndex, errorCode: valid ? results[index++]!.errorCode : ErrorCode.INVALID_REQUEST,
        })),
      })),
    };
  });
}
