/**
 * ListOffsets (api key 2), v0-3: earliest, latest, or first offset at a timestamp.
 *
 * ```
 * ListOffsets Request (Version: 0)   => replica_id [topics]
 *   topics => name [partitions]
 *     partitions => partition_index timestamp max_num_offsets
 * ListOffsets Request (Version: 1)   => replica_id [topics]            (partitions => partition_index timestamp)
 * ListOffsets Request (Version: 2-3) => replica_id isolation_level [topics]
 * ListOffsets Response (Version: 0)   => [topics]
 *   topics => name [partitions]
 *     partitions => partition_index error_code [old_style_offsets]
 * ListOffsets Response (Version: 1)   => [topics]   (partitions => partition_index error_code timestamp offset)
 * ListOffsets Response (Version: 2-3) => throttle_time_ms [topics]
 * ```
 * Version notes that matter:
 * - timestamp -1 = latest: the high watermark for read_uncommitted, the last stable offset for
 *   read_committed (v2+, KIP-98; librdkafka's default, CLIENTS.md L8); -2 = earliest: the log
 *   start offset; otherwise the first offset whose record timestamp is >= the given time (the
 *   time index), only below the high watermark / LSO; none → offset -1, timestamp -1.
 * - v0 answers with an offsets array (old_style_offsets); we return the one offset found.
 * - v1 (KIP-79) introduced the timestamp lookup semantics used by `kcat -o s@...` and
 *   offsets_for_times.
 * - A request naming more than list.offsets.max.partitions.per.turn partitions is answered in slices that yield to the event loop
 *   (request-slices.ts, issue 15).
 * - Only the partition leader answers (NOT_LEADER_OR_FOLLOWER, 6, on a follower replica). A
 *   follower's request (replica_id >= 0, as a ReplicaFetcher sends after OFFSET_OUT_OF_RANGE) gets
 *   the log end offset for latest, not the high watermark, and no isolation (Kafka's
 *   isolationLevel None).
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import {
  decodeListOffsetsRequest,
  encodeListOffsetsResponse,
  type ListOffsetsPartitionResponseInit,
  type ListOffsetsRequest,
  type ListOffsetsResponseInit,
} from '../protocol/generated/list-offsets.js';
import { IsolationLevel } from '../replication/partition.js';
import { defineApi } from './api-definition.js';
import { mapInSlices } from './request-slices.js';
import type { BrokerServices } from './broker-services.js';

/** Kafka's ListOffsetsRequest special timestamps. */
export const LATEST_TIMESTAMP = -1;
export const EARLIEST_TIMESTAMP = -2;

export const listOffsetsApi = defineApi<ListOffsetsRequest, ListOffsetsResponseInit>({
  apiKey: ApiKey.ListOffsets,
  name: 'ListOffsets',
  minVersion: 0,
  maxVersion: 3,
  decode: decodeListOffsetsRequest,
  encode: encodeListOffsetsResponse,
  async handle(request, context) {
    const { broker, apiVersion } = context;
    const isolationLevel = apiVersion >= 2 ? request.isolationLevel : IsolationLevel.READ_UNCOMMITTED;
    const entries = request.topics.flatMap((topic) => topic.partitions.map((partition) => ({ topic: topic.name, partition })));
    const answers = await mapInSlices(entries, broker.config.listOffsetsMaxPartitionsPerTurn, (slice) => slice.map(({ topic, partition }) => {
      const found = lookup(broker, topic, partition.partitionIndex, partition.timestamp, isolationLevel, request.replicaId >= 0);
      const response: ListOffsetsPartitionResponseInit = {
        partitionIndex: partition.partitionIndex,
        errorCode: found.errorCode,
        timestamp: found.timestamp,
        offset: found.offset,
      };
      if (apiVersion === 0) {
        response.oldStyleOffsets = found.errorCode === ErrorCode.NONE && found.offset >= 0 && partition.maxNumOffsets > 0
          ? [found.offset]
          : [];
      }
      return response;
    }), broker.defer);
    let index = 0;
    return {
      throttleTimeMs: 0,
      topics: request.topics.map((topic) => ({ name: topic.name, partitions: topic.partitions.map(() => answers[index++]!) })),
    };
  },
});

function lookup(
  broker: BrokerServices,
  topic: string,
  index: number,
  timestamp: number,
  isolationLevel: number,
  fromReplica: boolean,
): { errorCode: number; offset: number; timestamp: number } {
  const partition = broker.replicaManager.getPartition(topic, index);
  if (partition === undefined) return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, offset: -1, timestamp: -1 };
  if (!partition.isLeader) return { errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER, offset: -1, timestamp: -1 };
  const log = partition.log;
  if (log.isOffline) return { errorCode: ErrorCode.KAFKA_STORAGE_ERROR, offset: -1, timestamp: -1 };
  const lastFetchableOffset = fromReplica
    ? partition.logEndOffset
    : isolationLevel === IsolationLevel.READ_COMMITTED ? partition.lastStableOffset : partition.highWatermark;
  if (timestamp === LATEST_TIMESTAMP) return { errorCode: ErrorCode.NONE, offset: lastFetchableOffset, timestamp: -1 };
  if (timestamp === EARLIEST_TIMESTAMP) return { errorCode: ErrorCode.NONE, offset: log.logStartOffset, timestamp: -1 };
  if (timestamp < 0) return { errorCode: ErrorCode.INVALID_REQUEST, offset: -1, timestamp: -1 };
  const found = log.fetchOffsetByTimestamp(timestamp);
  if (found === null && log.isOffline) return { errorCode: ErrorCode.KAFKA_STORAGE_ERROR, offset: -1, timestamp: -1 };
  if (found === null || found.offset >= lastFetchableOffset) return { errorCode: ErrorCode.NONE, offset: -1, timestamp: -1 };
  return { errorCode: ErrorCode.NONE, offset: found.offset, timestamp: found.timestamp };
}
