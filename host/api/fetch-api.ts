/**
 * Fetch (api key 1), v0-12, consumers and followers: whole record batches from the partition
 * logs, with long polling.
 *
 * ```
 * Fetch Request (Version: 0-2)  => replica_id max_wait_ms min_bytes [topics]
 * Fetch Request (Version: 3)    => ... max_bytes
 * Fetch Request (Version: 4)    => ... isolation_level
 * Fetch Request (Version: 5-6)  => ... partitions gain log_start_offset
 * Fetch Request (Version: 7-8)  => replica_id max_wait_ms min_bytes max_bytes isolation_level session_id session_epoch
 *                                  [topics] [forgotten_topics_data]
 * Fetch Request (Version: 9-10) => ... partitions gain current_leader_epoch
 * Fetch Request (Version: 11)   => ... rack_id
 * Fetch Request (Version: 12)   => ... flexible; partitions gain last_fetched_epoch; cluster_id (tagged)
 *   topics => topic [partitions]
 *     partitions => partition current_leader_epoch fetch_offset log_start_offset partition_max_bytes
 * Fetch Response (Version: 11) => throttle_time_ms error_code session_id [responses]
 *   responses => topic [partitions]
 *     partitions => partition_index error_code high_watermark last_stable_offset log_start_offset
 *                   [aborted_transactions] preferred_read_replica records
 * ```
 * Version notes that matter:
 * - v3+ (KIP-74): max_bytes for the whole response, and the first batch is returned even when it
 *   is larger than the limits, so a consumer never gets stuck; below v3 there is no such rule.
 *   max_bytes is also capped by fetch.max.bytes, and while the broker's queued.max.response.bytes
 *   is exceeded (peers not reading their answers) it is taken as 1: the first batch only.
 * - v4+ (KIP-98): isolation_level; read_committed (the librdkafka/kafkajs/platformatic default)
 *   reads up to the last stable offset, which is the high watermark while no transaction is open.
 *   last_stable_offset is returned, and aborted_transactions is an EMPTY array (not null).
 * - v7+ (KIP-227): fetch sessions. We are sessionless: session id 0 with epoch -1 (a full fetch)
 *   or 0 (asking for a session) is answered as a full fetch with session id 0, which every client
 *   takes as "no session"; a non-zero session id gets FETCH_SESSION_ID_NOT_FOUND (70), session id
 *   0 with a positive epoch INVALID_FETCH_SESSION_EPOCH (71).
 * - v9+ (KIP-320): current_leader_epoch is checked (FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH).
 * - v11 (KIP-392): preferred_read_replica is always -1 (no follower fetching).
 * - Followers (replica_id >= 0; v15+ would carry it in ReplicaState, not served): read up to the
 *   leader's log end offset instead of the high watermark, and their fetch offset is recorded as
 *   their log end offset (ISR, high watermark: Partition.readRecords). A replica id outside the
 *   partition's replicas gets UNKNOWN_LEADER_EPOCH (with a current_leader_epoch) or
 *   NOT_LEADER_OR_FOLLOWER. Any Fetch to a follower replica: NOT_LEADER_OR_FOLLOWER.
 * - v12 (KIP-320, KIP-595): last_fetched_epoch per partition. When that epoch ended in the
 *   leader's log before fetch_offset (or the leader knows only older epochs), the partition is
 *   answered with no records and diverging_epoch {epoch, end_offset} (a tagged field): the
 *   fetcher truncates there. An epoch the leader cannot place → OFFSET_OUT_OF_RANGE. v13+ names
 *   topics by id and is not served (UNKNOWN_TOPIC_ID lookups would be needed).
 * - Long poll (Kafka's DelayedFetch): the answer waits up to max_wait_ms until min_bytes are
 *   available, unless a partition errored.
 * - OFFSET_OUT_OF_RANGE (1) outside [log start, log end]: the client applies auto.offset.reset.
 * - Large record blobs are not copied into the response: they are written to the socket as
 *   separate chunks of the same frame (chunked-writer.ts). The one copy of a batch on this path is
 *   the read from the segment file into a reused buffer (read-buffer-pool.ts), which the TCP
 *   connection gives back once the socket has written it; then the kernel's copy into the socket.
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import {
  decodeFetchRequest,
  encodeFetchResponse,
  type FetchRequest,
  type FetchResponseInit,
  type FetchableTopicResponseInit,
} from '../protocol/generated/fetch.js';
import type { FetchPartitionRequest } from '../replication/replica-manager.js';
import { defineApi } from './api-definition.js';

/** KIP-227 epochs. */
const INITIAL_SESSION_EPOCH = 0;
const FINAL_SESSION_EPOCH = -1;

export const fetchApi = defineApi<FetchRequest, FetchResponseInit>({
  apiKey: ApiKey.Fetch,
  name: 'Fetch',
  minVersion: 0,
  maxVersion: 12,
  decode: decodeFetchRequest,
  encode: encodeFetchResponse,
  // Record blobs go to the socket as read from the log, without another copy.
  zeroCopyBytes: true,
  async handle(request, context) {
    const { broker, apiVersion } = context;
    if (apiVersion >= 7) {
      if (request.sessionId !== 0) return sessionError(ErrorCode.FETCH_SESSION_ID_NOT_FOUND);
      if (request.sessionEpoch !== INITIAL_SESSION_EPOCH && request.sessionEpoch !== FINAL_SESSION_EPOCH) {
        return sessionError(ErrorCode.INVALID_FETCH_SESSION_EPOCH);
      }
    }
    const partitions: FetchPartitionRequest[] = [];
    for (const topic of request.topics) {
      for (const partition of topic.partitions) {
        partitions.push({
          topic: topic.topic,
          partition: partition.partition,
          fetchOffset: partition.fetchOffset,
          partitionMaxBytes: partition.partitionMaxBytes,
          currentLeaderEpoch: apiVersion >= 9 ? partition.currentLeaderEpoch : -1,
          lastFetchedEpoch: apiVersion >= 12 ? partition.lastFetchedEpoch : -1,
          logStartOffset: apiVersion >= 5 ? partition.logStartOffset : -1,
        });
      }
    }
    // queued.max.response.bytes is exceeded (clients are not reading their answers): the first
    // batch only, which KIP-74 (v3+) returns whatever max_bytes says, so consumers still progress.
    // Until the response is complete it counts there as the most it can be (fetch.max.bytes), so
    // that the next Fetch pipelined in the same read sees it.
    const responseMemoryFull = apiVersion >= 3 && broker.responseMemory?.overCapacity === true;
    const maxBytes = responseMemoryFull ? 1 : Math.min(Math.max(0, request.maxBytes), broker.config.fetchMaxBytes);
    broker.responseMemory?.holdUntilTaskEnds(maxBytes);
    const results = await broker.replicaManager.fetchMessages({
      maxWaitMs: request.maxWaitMs,
      minBytes: responseMemoryFull ? Math.min(request.minBytes, 1) : request.minBytes,
      maxBytes,
      isolationLevel: apiVersion >= 4 ? request.isolationLevel : 0,
      minOneMessage: apiVersion >= 3,
      partitions,
      replicaId: request.replicaId,
    });
    const responses: FetchableTopicResponseInit[] = [];
    let current: FetchableTopicResponseInit | null = null;
    // Consumers only: a follower's fetch is replication traffic (Kafka's ReplicationBytesOutPerSec).
    const topicMetrics = request.replicaId < 0 ? broker.topicMetrics : undefined;
    const requestMetrics = broker.requestMetrics;
    for (const result of results) {
      // An unknown topic gets no per-topic counters: a client naming made-up topics must not take their places.
      if (result.errorCode !== ErrorCode.UNKNOWN_TOPIC_OR_PARTITION || broker.metadata.topic(result.topic) !== undefined) {
        topicMetrics?.recordFetch(result.topic, result.errorCode, result.records.length);
      }
      if (result.errorCode !== ErrorCode.NONE) requestMetrics?.recordError(ApiKey.Fetch, result.errorCode);
      // Results come back in request order; consecutive partitions of one topic share an entry.
      if (current === null || current.topic !== result.topic) {
        current = { topic: result.topic, partitions: [] };
        responses.push(current);
      }
      current.partitions.push({
        partitionIndex: result.partition,
        errorCode: result.errorCode,
        highWatermark: result.highWatermark,
        lastStableOffset: result.lastStableOffset,
        logStartOffset: result.logStartOffset,
        // read_committed: the aborted transactions overlapping the records (Partition.readRecords).
        abortedTransactions: result.abortedTransactions === undefined ? [] : [...result.abortedTransactions],
        preferredReadReplica: -1,
        records: result.records,
        ...(result.divergingEpoch === undefined ? {} : { divergingEpoch: result.divergingEpoch }),
      });
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, sessionId: 0, responses };
  },
  errorResponse(version, errorCode) {
    return version >= 7 ? sessionError(errorCode) : null;
  },
});

function sessionError(errorCode: number): FetchResponseInit {
  return { throttleTimeMs: 0, errorCode, sessionId: 0, responses: [] };
}
