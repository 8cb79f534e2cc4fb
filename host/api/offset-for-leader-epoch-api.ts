/**
 * OffsetForLeaderEpoch (api key 23), v0-4: where a leader epoch ended in the partition leader's
 * log (KIP-101, KIP-279, KIP-320). Followers ask it to find where their log diverged from the
 * leader's; consumers (KIP-320) ask it after a leader change to check their position.
 *
 * ```
 * OffsetForLeaderEpoch Request (Version: 0-1) => [topics]
 *   topics => topic [partitions]  (partitions => partition leader_epoch)
 * OffsetForLeaderEpoch Request (Version: 2)   => ... partitions gain current_leader_epoch
 * OffsetForLeaderEpoch Request (Version: 3)   => replica_id [topics]
 * OffsetForLeaderEpoch Request (Version: 4)   => ... flexible
 * OffsetForLeaderEpoch Response (Version: 0)  => [topics]
 *   topics => topic [partitions]  (partitions => error_code partition end_offset)
 * OffsetForLeaderEpoch Response (Version: 1)  => ... partitions gain leader_epoch
 * OffsetForLeaderEpoch Response (Version: 2-4)=> throttle_time_ms [topics]
 * ```
 * Kafka's rules (KafkaApis.handleOffsetForLeaderEpochRequest, Partition.lastOffsetForLeaderEpoch):
 * - answered by the leader only, whoever asks (replica_id is for authorization only): a follower
 *   answers NOT_LEADER_OR_FOLLOWER (6), as does a broker not hosting a partition the metadata
 *   knows; an unknown partition UNKNOWN_TOPIC_OR_PARTITION (3);
 * - current_leader_epoch (v2+, -1 = not checked) older / newer than the leader's:
 *   FENCED_LEADER_EPOCH (74) / UNKNOWN_LEADER_EPOCH (75), checked before leadership;
 * - leader_epoch answered with the largest epoch <= it the log knows and the offset it ended at
 *   (exclusive; the log end offset for the latest epoch); leader_epoch -1 and end_offset -1
 *   (UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET) when no such epoch is known, which clients take as
 *   "cannot validate" (they keep their position).
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import {
  decodeOffsetForLeaderEpochRequest,
  encodeOffsetForLeaderEpochResponse,
  type OffsetForLeaderEpochRequest,
  type OffsetForLeaderEpochResponseInit,
} from '../protocol/generated/offset-for-leader-epoch.js';
import { defineApi } from './api-definition.js';

export const offsetForLeaderEpochApi = defineApi<OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponseInit>({
  apiKey: ApiKey.OffsetForLeaderEpoch,
  name: 'OffsetForLeaderEpoch',
  minVersion: 0,
  maxVersion: 4,
  decode: decodeOffsetForLeaderEpochRequest,
  encode: encodeOffsetForLeaderEpochResponse,
  handle(request, context) {
    const { broker, apiVersion } = context;
    const entries = request.topics.flatMap((topic) => topic.partitions.map((partition) => ({
      topic: topic.topic,
      partition: partition.partition,
      currentLeaderEpoch: apiVersion >= 2 ? partition.currentLeaderEpoch : -1,
      leaderEpoch: partition.leaderEpoch,
    })));
    const results = broker.replicaManager.lastOffsetForLeaderEpoch(entries);
    let index = 0;
    return {
      throttleTimeMs: 0,
      topics: request.topics.map((topic) => ({
        topic: topic.topic,
        partitions: topic.partitions.map((partition) => {
          const result = results[index++]!;
          let errorCode = result.errorCode;
          if (errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) {
            const known = broker.metadata.topic(topic.topic)?.partitions.some((p) => p.partition === partition.partition) ?? false;
            if (known) errorCode = ErrorCode.NOT_LEADER_OR_FOLLOWER;
          }
          return { errorCode, partition: partition.partition, leaderEpoch: result.leaderEpoch, endOffset: result.endOffset };
        }),
      })),
    };
  },
});
