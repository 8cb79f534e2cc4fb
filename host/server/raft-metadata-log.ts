/**
 * The metadata log of a controller quorum: a {@link MetadataLog} over a {@link RaftClient}
 * (host/raft). The shapes already match (committed batches, leader and epoch); this adapter maps
 * the Raft client's refusals to NOT_CONTROLLER (41) and leaves the start-up replay to the client,
 * whose register hands every committed batch from the start of its log.
 *
 * The Raft client is driven by its owner (the CONTROLLER listener, the simulator); the controller
 * registered here hears commits and leader changes from inside that driver's calls
 * (handle/poll/start), and appends from there or from a request handler.
 *
 * It lives in server/ (the wiring) rather than controller/, which must not depend on raft/ (raft/
 * serves its requests through api/, which reads controller/).
 *
 * Snapshots: the controller writes its image as a snapshot every
 * `metadata.log.max.record.bytes.between.snapshots` (createSnapshot), and a log that starts at one
 * (at start-up, or sent by the leader with FetchSnapshot) hands it to the controller to load.
 */
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { decodeSnapshotFooterRecord, encodeSnapshotFooterRecord } from '../protocol/generated/snapshot-footer-record.js';
import { decodeSnapshotHeaderRecord, encodeSnapshotHeaderRecord } from '../protocol/generated/snapshot-header-record.js';
import { Reader } from '../protocol/reader.js';
import { Writer } from '../protocol/writer.js';
import type { RaftClient } from '../raft/raft-client.js';
import { LeaderEpochError, NotLeaderError } from '../raft/raft-errors.js';
import { type LeaderAndEpoch, type MetadataBatch, type MetadataLog, MetadataLogError, type MetadataLogListener } from '../controller/metadata-log.js';

export class RaftMetadataLog implements MetadataLog {
  /**
   * @param raft this node's Raft client (started or not; register before it starts to hear everything)
   * @param nowMs wall clock for the snapshot header's last-contained-log timestamp
   */
  constructor(private readonly raft: RaftClient, private readonly nowMs: () => number = () => -1) {}

  /** Registers `listener` with the Raft client: every committed batch from the log's start, then the leader changes. */
  register(listener: MetadataLogListener): void {
    this.raft.register({
      handleCommit: (batch) => listener.handleCommit(batch),
      handleLeaderChange: (leader) => listener.handleLeaderChange(leader),
      handleLoadSnapshot: (snapshot) => {
        if (listener.handleLoadSnapshot === undefined) throw new MetadataLogError('the metadata log starts at a snapshot, which this listener cannot load');
        listener.handleLoadSnapshot(snapshot.snapshotId.endOffset, unframeSnapshot(snapshot.records));
      },
    });
  }

  /**
   * {@link RaftClient.scheduleAppend}: committed once a majority has the batch flushed.
   * @throws MetadataLogError NOT_CONTROLLER (41) when this node does not lead `epoch`
   */
  append(epoch: number, values: readonly Uint8Array[]): number {
    try {
      return this.raft.scheduleAppend(epoch, values);
    } catch (error) {
      if (error instanceof NotLeaderError || error instanceof LeaderEpochError) {
        throw new MetadataLogError(error.message, { cause: error, errorCode: ErrorCode.NOT_CONTROLLER });
      }
      throw error;
    }
  }

  highWatermark(): number {
    return this.raft.highWatermark();
  }

  endOffset(): number {
    return this.raft.log.endOffset();
  }

  leaderAndEpoch(): LeaderAndEpoch {
    return this.raft.leaderAndEpoch();
  }

  /** {@link RaftClient.createSnapshot}: the `.checkpoint` file, then the log before it is deleted. */
  createSnapshot(endOffset: number, records: readonly Uint8Array[]): void {
    this.raft.createSnapshot(endOffset, frameSnapshot(records, this.nowMs()));
  }

  /** None: {@link register} replays the committed log from its start. */
  readCommitted(_fromOffset: number): Iterable<MetadataBatch> {
    return [];
  }
}

/**
 * A snapshot's records between Kafka's SnapshotHeader (version 0, the last contained log
 * timestamp) and SnapshotFooter (version 0) records, as Kafka's `.checkpoint` files frame them.
 */
export function frameSnapshot(records: readonly Uint8Array[], lastContainedLogTimestamp: number): Uint8Array[] {
  const header = new Writer(16);
  encodeSnapshotHeaderRecord(header, 0, { version: 0, lastContainedLogTimestamp });
  const footer = new Writer(8);
  encodeSnapshotFooterRecord(footer, 0, { version: 0 });
  return [new Uint8Array(header.toBuffer()), ...records, new Uint8Array(footer.toBuffer())];
}

/**
 * The records of a snapshot {@link frameSnapshot} framed.
 * @throws MetadataLogError when the header or footer is missing or malformed (a corrupt snapshot)
 */
export function unframeSnapshot(records: readonly Uint8Array[]): Uint8Array[] {
  const check = (value: Uint8Array | undefined, what: string, decode: (r: Reader) => { version: number }): void => {
    if (value === undefined) throw new MetadataLogError(`the metadata snapshot has no ${what}`);
    const reader = new Reader(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
    const decoded = decode(reader);
    if (reader.error !== null || reader.remaining !== 0 || decoded.version !== 0) throw new MetadataLogError(`the metadata snapshot's ${what} is malformed`);
  };
  check(records[0], 'SnapshotHeader', (r) => decodeSnapshotHeaderRecord(r, 0));
  check(records.length > 1 ? records[records.length - 1] : undefined, 'SnapshotFooter', (r) => decodeSnapshotFooterRecord(r, 0));
  return records.slice(1, -1);
}
