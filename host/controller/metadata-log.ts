/**
 * The metadata log as the controller sees it: an append-only sequence of metadata record values
 * (framed as in {@link ../controller/metadata-records.ts}), each with an offset. The embedded
 * single-node controller writes it directly (UnifiedLogMetadataLog over `__cluster_metadata-0`);
 * a later multi-node quorum puts a Raft client behind the same interface, where `append` means
 * "committed by a majority".
 */

/** One stored record value and its offset. */
export interface MetadataLogEntry {
  readonly offset: number;
  readonly value: Uint8Array;
}

export interface MetadataLog {
  /**
   * Appends `values` as one atomic batch (all or nothing, also across a crash), durably, and
   * returns the offset given to the first. Offsets are consecutive.
   * @throws MetadataLogError when the batch cannot be stored (disk failure): nothing was appended
   *   as far as this process knows; the controller stops accepting changes
   */
  append(values: readonly Uint8Array[]): number;
  /** Every stored record from the start, in offset order (start-up replay). */
  readAll(): Iterable<MetadataLogEntry>;
  /** The offset the next appended record gets. */
  endOffset(): number;
}

/**
 * The metadata log could not be written or read. `errorCode` is KAFKA_STORAGE_ERROR (56) for disk
 * failures (the default), or the log's refusal of a batch (e.g. MESSAGE_TOO_LARGE 10), after which
 * nothing was written and the log is still usable.
 */
export class MetadataLogError extends Error {
  readonly errorCode: number;
  constructor(message: string, options?: { cause?: unknown; errorCode?: number }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'MetadataLogError';
    this.errorCode = options?.errorCode ?? 56;
  }
}
