/**
 * THE table of what the generator emits: for each API, the highest version we generate codecs
 * for (versions 0..maxVersion). Extending support for an API = raising its number here and
 * running `npm run generate:protocol`.
 *
 * The ranges follow the "Level A" table of ../shared/kafka-protocol/CLIENTS.md (section 3). The
 * SASL and transaction APIs are generated ahead of their handlers. Generating a codec does not
 * mean advertising it: ApiVersions is built from the handler registry (host/api/).
 */
export interface SupportedApi {
  /** Schema name without the Request/Response suffix, e.g. 'Produce' for ProduceRequest.json. */
  readonly name: string;
  /** Highest version generated; 'all' = the schema's highest valid version. */
  readonly maxVersion: number | 'all';
}

export const SUPPORTED_APIS: readonly SupportedApi[] = [
  { name: 'Produce', maxVersion: 8 },
  { name: 'Fetch', maxVersion: 'all' },
  { name: 'ListOffsets', maxVersion: 3 },
  { name: 'Metadata', maxVersion: 8 },
  { name: 'OffsetCommit', maxVersion: 7 },
  { name: 'OffsetFetch', maxVersion: 5 },
  { name: 'FindCoordinator', maxVersion: 2 },
  { name: 'JoinGroup', maxVersion: 5 },
  { name: 'Heartbeat', maxVersion: 3 },
  { name: 'LeaveGroup', maxVersion: 3 },
  { name: 'SyncGroup', maxVersion: 3 },
  { name: 'DescribeGroups', maxVersion: 4 },
  { name: 'ListGroups', maxVersion: 5 },
  { name: 'SaslHandshake', maxVersion: 1 },
  { name: 'ApiVersions', maxVersion: 4 },
  { name: 'CreateTopics', maxVersion: 4 },
  { name: 'DeleteTopics', maxVersion: 3 },
  { name: 'DeleteRecords', maxVersion: 1 },
  { name: 'InitProducerId', maxVersion: 4 },
  { name: 'AddPartitionsToTxn', maxVersion: 'all' },
  { name: 'AddOffsetsToTxn', maxVersion: 2 },
  { name: 'EndTxn', maxVersion: 2 },
  { name: 'WriteTxnMarkers', maxVersion: 'all' },
  { name: 'TxnOffsetCommit', maxVersion: 3 },
  { name: 'DescribeConfigs', maxVersion: 'all' },
  { name: 'AlterConfigs', maxVersion: 1 },
  { name: 'SaslAuthenticate', maxVersion: 1 },
  { name: 'CreatePartitions', maxVersion: 1 },
  { name: 'DeleteGroups', maxVersion: 1 },
  { name: 'OffsetDelete', maxVersion: 0 },
  // KRaft's controller-quorum RPCs (KIP-595, KIP-996 pre-vote, KIP-853 endpoints), for host/raft/.
  { name: 'Vote', maxVersion: 'all' },
  { name: 'BeginQuorumEpoch', maxVersion: 'all' },
  { name: 'EndQuorumEpoch', maxVersion: 'all' },
  { name: 'FetchSnapshot', maxVersion: 'all' },
  { name: 'DescribeQuorum', maxVersion: 'all' },
  // KRaft broker lifecycle (KIP-631) and ISR changes (KIP-497), for host/server and host/replication.
  { name: 'BrokerRegistration', maxVersion: 'all' },
  { name: 'BrokerHeartbeat', maxVersion: 'all' },
  { name: 'UnregisterBroker', maxVersion: 'all' },
  { name: 'DescribeCluster', maxVersion: 'all' },
  { name: 'AlterPartition', maxVersion: 'all' },
  // Partition replication (KIP-101/279/320 leader epochs, KIP-460 elections, KIP-455 reassignment),
  // the controller's producer-id blocks (KIP-730) and Kafka 3.x admin APIs clients send to any broker.
  { name: 'OffsetForLeaderEpoch', maxVersion: 'all' },
  { name: 'ElectLeaders', maxVersion: 'all' },
  { name: 'AlterPartitionReassignments', maxVersion: 'all' },
  { name: 'ListPartitionReassignments', maxVersion: 'all' },
  { name: 'AllocateProducerIds', maxVersion: 'all' },
  { name: 'IncrementalAlterConfigs', maxVersion: 'all' },
  { name: 'DescribeTopicPartitions', maxVersion: 'all' },
  // The transaction coordinator's admin APIs (KIP-664).
  { name: 'DescribeProducers', maxVersion: 'all' },
  { name: 'DescribeTransactions', maxVersion: 'all' },
  { name: 'ListTransactions', maxVersion: 'all' },
];

/** Schemas that are not wire APIs but byte layouts inside records or group protocol metadata. */
export interface StandaloneSchema {
  /** Folder under the kafka-protocol directory. */
  readonly folder: 'messages' | 'coordinator-records' | 'metadata-records';
  /** Schema name = file name without .json. */
  readonly name: string;
  /**
   * Decode versions newer than the schema's highest as the highest. Kafka does this for the
   * consumer protocol ("future versions will not break compatibility", ConsumerProtocol*.json).
   */
  readonly readNewerAsLatest: boolean;
}

export const STANDALONE_SCHEMAS: readonly StandaloneSchema[] = [
  { folder: 'coordinator-records', name: 'OffsetCommitKey', readNewerAsLatest: false },
  { folder: 'coordinator-records', name: 'OffsetCommitValue', readNewerAsLatest: false },
  { folder: 'coordinator-records', name: 'GroupMetadataKey', readNewerAsLatest: false },
  { folder: 'coordinator-records', name: 'GroupMetadataValue', readNewerAsLatest: false },
  { folder: 'coordinator-records', name: 'TransactionLogKey', readNewerAsLatest: false },
  { folder: 'coordinator-records', name: 'TransactionLogValue', readNewerAsLatest: false },
  { folder: 'metadata-records', name: 'RegisterBrokerRecord', readNewerAsLatest: false },
  { folder: 'metadata-records', name: 'UnregisterBrokerRecord', readNewerAsLatest: false },
  { folder: 'metadata-records', name: 'TopicRecord', readNewerAsLatest: false },
  { folder: 'metadata-records', name: 'PartitionRecord', readNewerAsLatest: false },
  { folder: 'metadata-records', name: 'ConfigRecord', readNewerAsLatest: false },
  { folder: 'metadata-records', name: 'PartitionChangeRecord', readNewerAsLatest: false },
  { folder: 'metadata-records', name: 'FenceBrokerRecord', readNewerAsLatest: false },
  { folder: 'metadata-records', name: 'UnfenceBrokerRecord', readNewerAsLatest: false },
  { folder: 'metadata-records', name: 'RemoveTopicRecord', readNewerAsLatest: false },
  { folder: 'metadata-records', name: 'FeatureLevelRecord', readNewerAsLatest: false },
  { folder: 'metadata-records', name: 'ProducerIdsRecord', readNewerAsLatest: false },
  { folder: 'metadata-records', name: 'BrokerRegistrationChangeRecord', readNewerAsLatest: false },
  { folder: 'metadata-records', name: 'NoOpRecord', readNewerAsLatest: false },
  { folder: 'messages', name: 'ConsumerProtocolSubscription', readNewerAsLatest: true },
  { folder: 'messages', name: 'ConsumerProtocolAssignment', readNewerAsLatest: true },
  // KRaft control records (the value of a control batch's record) and the quorum-state file.
  { folder: 'messages', name: 'LeaderChangeMessage', readNewerAsLatest: false },
  { folder: 'messages', name: 'SnapshotHeaderRecord', readNewerAsLatest: false },
  { folder: 'messages', name: 'SnapshotFooterRecord', readNewerAsLatest: false },
  { folder: 'messages', name: 'VotersRecord', readNewerAsLatest: false },
  { folder: 'messages', name: 'KRaftVersionRecord', readNewerAsLatest: false },
  { folder: 'metadata-records', name: 'QuorumStateData', readNewerAsLatest: false },
];
