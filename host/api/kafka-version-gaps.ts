/**
 * What Apache Kafka 3.9 serves for each API this broker serves, and why this broker stops lower
 * where it does (issue 13, "API versions"). The README's API table shows both columns, and
 * test/api/kafka-39-versions.test.ts fails when the broker advertises less than Kafka 3.9 for an API
 * without a reason here, or keeps a reason for an API that has caught up.
 *
 * Source of the maxima: the `validVersions` of Kafka's `messages/*Request.json` at the Kafka 3.9 line
 * (../shared/kafka-protocol), minus a latest version marked `latestVersionUnstable` (Kafka 3.9 does
 * not advertise it: EndTxn v5, KIP-890 part 2).
 */
import { ApiKey } from '../protocol/generated/api-keys.js';

/** Kafka 3.9's highest advertised (stable) version per api key, for every API this broker serves. */
export const KAFKA_3_9_MAX_VERSION: Readonly<Record<number, number>> = {
  [ApiKey.Produce]: 11,
  [ApiKey.Fetch]: 17,
  [ApiKey.ListOffsets]: 10,
  [ApiKey.Metadata]: 12,
  [ApiKey.OffsetCommit]: 9,
  [ApiKey.OffsetFetch]: 9,
  [ApiKey.FindCoordinator]: 6,
  [ApiKey.JoinGroup]: 9,
  [ApiKey.Heartbeat]: 4,
  [ApiKey.LeaveGroup]: 5,
  [ApiKey.SyncGroup]: 5,
  [ApiKey.DescribeGroups]: 5,
  [ApiKey.ListGroups]: 5,
  [ApiKey.ApiVersions]: 4,
  [ApiKey.CreateTopics]: 7,
  [ApiKey.DeleteTopics]: 6,
  [ApiKey.DeleteRecords]: 2,
  [ApiKey.InitProducerId]: 5,
  [ApiKey.OffsetForLeaderEpoch]: 4,
  [ApiKey.AddPartitionsToTxn]: 5,
  [ApiKey.AddOffsetsToTxn]: 4,
  [ApiKey.EndTxn]: 4,
  [ApiKey.WriteTxnMarkers]: 1,
  [ApiKey.TxnOffsetCommit]: 4,
  [ApiKey.DescribeConfigs]: 4,
  [ApiKey.AlterConfigs]: 2,
  [ApiKey.CreatePartitions]: 3,
  [ApiKey.DeleteGroups]: 2,
  [ApiKey.ElectLeaders]: 2,
  [ApiKey.IncrementalAlterConfigs]: 1,
  [ApiKey.AlterPartitionReassignments]: 0,
  [ApiKey.ListPartitionReassignments]: 0,
  [ApiKey.OffsetDelete]: 0,
  [ApiKey.DescribeQuorum]: 2,
  [ApiKey.DescribeCluster]: 1,
  [ApiKey.DescribeProducers]: 0,
  [ApiKey.DescribeTransactions]: 0,
  [ApiKey.ListTransactions]: 1,
  [ApiKey.DescribeTopicPartitions]: 0,
};

/**
 * Why the broker's highest version is below Kafka 3.9's, per api key (only for those that are).
 * "Not built yet" means nothing but work stands in the way; the versions named are Kafka's own
 * descriptions from the request schemas.
 */
export const WHY_NOT_KAFKA_3_9_LATEST: Readonly<Record<number, string>> = {
  [ApiKey.Produce]: 'v9 flexible, v10 KIP-951 leader hints, v11 TRANSACTION_ABORTABLE (KIP-890): not built yet',
  [ApiKey.Fetch]: 'v13+ names topics by topic id (KIP-516) in fetches and fetch sessions: not built (no topic ids, no fetch sessions)',
  [ApiKey.ListOffsets]: 'v4+ current leader epoch fencing (KIP-320), v6 flexible, v7 max timestamp (KIP-734), v8-10 tiered storage (KIP-405, KIP-1005, KIP-1075): not built yet',
  [ApiKey.Metadata]: 'v9 flexible: not built yet; v10+ topic ids (KIP-516): the broker has no topic ids',
  [ApiKey.OffsetCommit]: 'v8 flexible and v9 (KIP-848 consumer protocol member epochs): not built yet',
  [ApiKey.OffsetFetch]: 'v6 flexible, v7 require_stable, v8 many groups per request (KIP-709), v9 KIP-848 member epochs: not built yet',
  [ApiKey.FindCoordinator]: 'v3 flexible, v4 batched coordinator keys (KIP-699), v5 TRANSACTION_ABORTABLE (KIP-890), v6 share groups (KIP-932): not built yet',
  [ApiKey.JoinGroup]: 'v6 flexible, v7 protocol type in the response, v8 leave reason (KIP-800): not built yet',
  [ApiKey.Heartbeat]: 'v4 flexible: not built yet',
  [ApiKey.LeaveGroup]: 'v4 flexible, v5 leave reason (KIP-800): not built yet',
  [ApiKey.SyncGroup]: 'v4 flexible, v5 protocol type and name checks (KIP-559): not built yet',
  [ApiKey.DescribeGroups]: 'v5 flexible: not built yet',
  [ApiKey.CreateTopics]: 'v5 flexible with topic configs in the response (KIP-525), v6 THROTTLING_QUOTA_EXCEEDED, v7 topic ids: not built yet (no topic ids)',
  [ApiKey.DeleteTopics]: 'v4 flexible, v5 error message, v6 topics by topic id (KIP-516): not built yet (no topic ids)',
  [ApiKey.DeleteRecords]: 'v2 flexible: not built yet',
  [ApiKey.InitProducerId]: 'v5 TRANSACTION_ABORTABLE (KIP-890): not built yet',
  [ApiKey.AddPartitionsToTxn]: 'v4+ is KIP-890\'s broker-to-broker verify-only form; kafkajs would send v5 to a broker that lists it',
  [ApiKey.AddOffsetsToTxn]: 'v3 flexible, v4 TRANSACTION_ABORTABLE (KIP-890): not built yet',
  [ApiKey.EndTxn]: 'v3 flexible, v4 TRANSACTION_ABORTABLE (KIP-890): not built yet',
  [ApiKey.TxnOffsetCommit]: 'v4 TRANSACTION_ABORTABLE (KIP-890): not built yet',
  [ApiKey.AlterConfigs]: 'v2 flexible: not built yet',
  [ApiKey.CreatePartitions]: 'v2 flexible, v3 THROTTLING_QUOTA_EXCEEDED: not built yet',
  [ApiKey.DeleteGroups]: 'v2 flexible: not built yet',
};
