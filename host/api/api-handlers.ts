/**
 * Every API the broker serves, registered in one place. The ApiVersions answer is built from this
 * registry, so adding a handler here is what advertises it (CLIENTS.md "Level A" ranges; no SASL yet).
 *
 * Only what answers a client's first two requests is imported eagerly: ApiVersions and Metadata.
 * Every other handler (and its generated codecs) is advertised from {@link LAZY_API_TABLE} and
 * imported on first use or by `ApiRegistry.loadAll` right after the listeners bind: importing them
 * all was ~100 ms of broker start-up (issue 5, W6 "ready"). Each table row must equal its
 * handler's definition (the registry refuses a handler that differs, and test/api checks all).
 */
import type { AnyApiDefinition } from './api-definition.js';
import { ApiRegistry, type LazyApiEntry } from './api-registry.js';
import { createApiVersionsApi } from './api-versions-api.js';
import { metadataApi } from './metadata-api.js';
import { ApiKey } from '../protocol/generated/api-keys.js';

const row = (apiKey: number, name: string, maxVersion: number, load: () => Promise<AnyApiDefinition>): LazyApiEntry =>
  ({ apiKey, name, minVersion: 0, maxVersion, load });

/** The handlers imported on first use: api key, name, advertised range, import. */
export const LAZY_API_TABLE: readonly LazyApiEntry[] = [
  row(ApiKey.Produce, 'Produce', 8, async () => (await import('./produce-api.js')).produceApi),
  row(ApiKey.Fetch, 'Fetch', 12, async () => (await import('./fetch-api.js')).fetchApi),
  row(ApiKey.ListOffsets, 'ListOffsets', 3, async () => (await import('./list-offsets-api.js')).listOffsetsApi),
  row(ApiKey.OffsetCommit, 'OffsetCommit', 7, async () => (await import('./offset-commit-api.js')).offsetCommitApi),
  row(ApiKey.OffsetFetch, 'OffsetFetch', 5, async () => (await import('./offset-fetch-api.js')).offsetFetchApi),
  row(ApiKey.FindCoordinator, 'FindCoordinator', 2, async () => (await import('./find-coordinator-api.js')).findCoordinatorApi),
  row(ApiKey.JoinGroup, 'JoinGroup', 5, async () => (await import('./join-group-api.js')).joinGroupApi),
  row(ApiKey.Heartbeat, 'Heartbeat', 3, async () => (await import('./heartbeat-api.js')).heartbeatApi),
  row(ApiKey.LeaveGroup, 'LeaveGroup', 3, async () => (await import('./leave-group-api.js')).leaveGroupApi),
  row(ApiKey.SyncGroup, 'SyncGroup', 3, async () => (await import('./sync-group-api.js')).syncGroupApi),
  row(ApiKey.DescribeGroups, 'DescribeGroups', 4, async () => (await import('./describe-groups-api.js')).describeGroupsApi),
  row(ApiKey.ListGroups, 'ListGroups', 5, async () => (await import('./list-groups-api.js')).listGroupsApi),
  row(ApiKey.CreateTopics, 'CreateTopics', 4, async () => (await import('./create-topics-api.js')).createTopicsApi),
  row(ApiKey.DeleteTopics, 'DeleteTopics', 3, async () => (await import('./delete-topics-api.js')).deleteTopicsApi),
  row(ApiKey.DeleteRecords, 'DeleteRecords', 1, async () => (await import('./delete-records-api.js')).deleteRecordsApi),
  row(ApiKey.InitProducerId, 'InitProducerId', 4, async () => (await import('./init-producer-id-api.js')).initProducerIdApi),
  row(ApiKey.AddPartitionsToTxn, 'AddPartitionsToTxn', 3, async () => (await import('./add-partitions-to-txn-api.js')).addPartitionsToTxnApi),
  row(ApiKey.AddOffsetsToTxn, 'AddOffsetsToTxn', 2, async () => (await import('./add-offsets-to-txn-api.js')).addOffsetsToTxnApi),
  row(ApiKey.EndTxn, 'EndTxn', 2, async () => (await import('./end-txn-api.js')).endTxnApi),
  row(ApiKey.DescribeConfigs, 'DescribeConfigs', 4, async () => (await import('./describe-configs-api.js')).describeConfigsApi),
  row(ApiKey.AlterConfigs, 'AlterConfigs', 1, async () => (await import('./alter-configs-api.js')).alterConfigsApi),
  row(ApiKey.CreatePartitions, 'CreatePartitions', 1, async () => (await import('./create-partitions-api.js')).createPartitionsApi),
  row(ApiKey.DeleteGroups, 'DeleteGroups', 1, async () => (await import('./delete-groups-api.js')).deleteGroupsApi),
  row(ApiKey.ElectLeaders, 'ElectLeaders', 2, async () => (await import('./elect-leaders-api.js')).electLeadersApi),
  row(ApiKey.IncrementalAlterConfigs, 'IncrementalAlterConfigs', 1,
    async () => (await import('./incremental-alter-configs-api.js')).incrementalAlterConfigsApi),
  row(ApiKey.AlterPartitionReassignments, 'AlterPartitionReassignments', 0,
    async () => (await import('./alter-partition-reassignments-api.js')).alterPartitionReassignmentsApi),
  row(ApiKey.ListPartitionReassignments, 'ListPartitionReassignments', 0,
    async () => (await import('./list-partition-reassignments-api.js')).listPartitionReassignmentsApi),
  row(ApiKey.OffsetDelete, 'OffsetDelete', 0, async () => (await import('./offset-delete-api.js')).offsetDeleteApi),
  row(ApiKey.DescribeTopicPartitions, 'DescribeTopicPartitions', 0,
    async () => (await import('./describe-topic-partitions-api.js')).describeTopicPartitionsApi),
  row(ApiKey.OffsetForLeaderEpoch, 'OffsetForLeaderEpoch', 4, async () => (await import('./offset-for-leader-epoch-api.js')).offsetForLeaderEpochApi),
  row(ApiKey.DescribeQuorum, 'DescribeQuorum', 2, async () => (await import('./describe-quorum-api.js')).describeQuorumApi),
  row(ApiKey.DescribeCluster, 'DescribeCluster', 1, async () => (await import('./describe-cluster-api.js')).describeClusterApi),
  row(ApiKey.WriteTxnMarkers, 'WriteTxnMarkers', 1, async () => (await import('./write-txn-markers-api.js')).writeTxnMarkersApi),
  row(ApiKey.TxnOffsetCommit, 'TxnOffsetCommit', 3, async () => (await import('./txn-offset-commit-api.js')).txnOffsetCommitApi),
  row(ApiKey.DescribeProducers, 'DescribeProducers', 0, async () => (await import('./describe-producers-api.js')).describeProducersApi),
  row(ApiKey.DescribeTransactions, 'DescribeTransactions', 0, async () => (await import('./describe-transactions-api.js')).describeTransactionsApi),
  row(ApiKey.ListTransactions, 'ListTransactions', 1, async () => (await import('./list-transactions-api.js')).listTransactionsApi),
];

/**
 * A registry with every handler: ApiVersions and Metadata loaded, the rest from
 * {@link LAZY_API_TABLE} (advertised at once, imported by `registry.load`/`loadAll`).
 */
export function createApiRegistry(): ApiRegistry {
  const registry = new ApiRegistry();
  registry.register(metadataApi);
  for (const entry of LAZY_API_TABLE) registry.registerLazy(entry);
  registry.register(createApiVersionsApi(registry));
  return registry;
}
