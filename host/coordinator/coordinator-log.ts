/**
 * The persistence seam of a coordinator runtime: the records of an internal topic
 * (`__consumer_offsets`, later `__transaction_state`) and the partitions they are appended to. In
 * its own file so the topic's helpers (offsets-topic.ts, offsets-batch.ts) and the runtime that
 * uses them share these shapes without importing each other.
 */

/** One record of an internal coordinator topic (a null value is a tombstone). */
export interface CoordinatorRecord {
  key: Uint8Array | null;
  value: Uint8Array | null;
  /**
   * Read back only: the producer id of a record of a transactional batch (TxnOffsetCommit on
   * `__consumer_offsets`), or of a transaction marker; absent for ordinary records.
   */
  producerId?: number;
  /** Read back only: a transaction marker (control batch) of `producerId`; key and value are null. */
  control?: 'commit' | 'abort';
}

/** The producer a transactional coordinator batch is written for (TxnOffsetCommit). */
export interface CoordinatorProducer {
  producerId: number;
  producerEpoch: number;
}

/**
 * The internal topic's partitions as the runtime sees them (wired by the broker to its logs,
 * in memory for tests and the simulator).
 */
export interface CoordinatorLog {
  /**
   * Appends one v2 record batch (uncompressed, CreateTime, no producer id) to `partition` as
   * leader. Returns the Kafka error code of the append (0 when durable per the topic's acks),
   * synchronously or as a promise (e.g. once replication acknowledges). Never throws for a disk
   * failure: that is KAFKA_STORAGE_ERROR (56).
   */
  append(partition: number, batch: Uint8Array): number | Promise<number>;
  /**
   * Every record of `partition` from the log start to the end, in offset order, with the
   * producer id of transactional records and the transaction markers (see {@link CoordinatorRecord}).
   */
  readAll(partition: number): Iterable<CoordinatorRecord>;
}
