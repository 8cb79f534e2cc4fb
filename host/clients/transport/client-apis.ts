/**
 * The APIs the client library sends, with the generated codecs and the window of versions it
 * can send for each (`minVersion`..`maxVersion`). A connection sends `min(maxVersion, brokerMax)`
 * and refuses (UnsupportedVersionError) when that is below `max(minVersion, brokerMin)`, like the
 * Java client (NetworkClient / ApiVersions). The maxima are the "Level A" versions of
 * shared/kafka-protocol/CLIENTS.md section 3, which our generated codecs cover.
 *
 * `ClientApiMap` ties an api key to its request (encoder input) and response (decoder output)
 * types, so `connection.request(ApiKey.Metadata, { topics: null })` is typed end to end.
 */
import type { Reader } from '../../protocol/reader.js';
import type { Writer } from '../../protocol/writer.js';

import { decodeProduceResponse, encodeProduceRequest, type ProduceRequestInit, type ProduceResponse } from '../../protocol/generated/produce.js';
import { decodeFetchResponse, encodeFetchRequest, type FetchRequestInit, type FetchResponse } from '../../protocol/generated/fetch.js';
import { decodeListOffsetsResponse, encodeListOffsetsRequest, type ListOffsetsRequestInit, type ListOffsetsResponse } from '../../protocol/generated/list-offsets.js';
import { decodeMetadataResponse, encodeMetadataRequest, type MetadataRequestInit, type MetadataResponse } from '../../protocol/generated/metadata.js';
import { decodeOffsetCommitResponse, encodeOffsetCommitRequest, type OffsetCommitRequestInit, type OffsetCommitResponse } from '../../protocol/generated/offset-commit.js';
import { decodeOffsetFetchResponse, encodeOffsetFetchRequest, type OffsetFetchRequestInit, type OffsetFetchResponse } from '../../protocol/generated/offset-fetch.js';
import { decodeFindCoordinatorResponse, encodeFindCoordinatorRequest, type FindCoordinatorRequestInit, type FindCoordinatorResponse } from '../../protocol/generated/find-coordinator.js';
import { decodeJoinGroupResponse, encodeJoinGroupRequest, type JoinGroupRequestInit, type JoinGroupResponse } from '../../protocol/generated/join-group.js';
import { decodeHeartbeatResponse, encodeHeartbeatRequest, type HeartbeatRequestInit, type HeartbeatResponse } from '../../protocol/generated/heartbeat.js';
import { decodeLeaveGroupResponse, encodeLeaveGroupRequest, type LeaveGroupRequestInit, type LeaveGroupResponse } from '../../protocol/generated/leave-group.js';
import { decodeSyncGroupResponse, encodeSyncGroupRequest, type SyncGroupRequestInit, type SyncGroupResponse } from '../../protocol/generated/sync-group.js';
import { decodeDescribeGroupsResponse, encodeDescribeGroupsRequest, type DescribeGroupsRequestInit, type DescribeGroupsResponse } from '../../protocol/generated/describe-groups.js';
import { decodeListGroupsResponse, encodeListGroupsRequest, type ListGroupsRequestInit, type ListGroupsResponse } from '../../protocol/generated/list-groups.js';
import { decodeApiVersionsResponse, encodeApiVersionsRequest, type ApiVersionsRequestInit, type ApiVersionsResponse } from '../../protocol/generated/api-versions.js';
import { decodeCreateTopicsResponse, encodeCreateTopicsRequest, type CreateTopicsRequestInit, type CreateTopicsResponse } from '../../protocol/generated/create-topics.js';
import { decodeDeleteTopicsResponse, encodeDeleteTopicsRequest, type DeleteTopicsRequestInit, type DeleteTopicsResponse } from '../../protocol/generated/delete-topics.js';
import { decodeDeleteRecordsResponse, encodeDeleteRecordsRequest, type DeleteRecordsRequestInit, type DeleteRecordsResponse } from '../../protocol/generated/delete-records.js';
import { decodeInitProducerIdResponse, encodeInitProducerIdRequest, type InitProducerIdRequestInit, type InitProducerIdResponse } from '../../protocol/generated/init-producer-id.js';
import { decodeDescribeConfigsResponse, encodeDescribeConfigsRequest, type DescribeConfigsRequestInit, type DescribeConfigsResponse } from '../../protocol/generated/describe-configs.js';
import { decodeAlterConfigsResponse, encodeAlterConfigsRequest, type AlterConfigsRequestInit, type AlterConfigsResponse } from '../../protocol/generated/alter-configs.js';
import { decodeCreatePartitionsResponse, encodeCreatePartitionsRequest, type CreatePartitionsRequestInit, type CreatePartitionsResponse } from '../../protocol/generated/create-partitions.js';
import { decodeDeleteGroupsResponse, encodeDeleteGroupsRequest, type DeleteGroupsRequestInit, type DeleteGroupsResponse } from '../../protocol/generated/delete-groups.js';
import { decodeOffsetDeleteResponse, encodeOffsetDeleteRequest, type OffsetDeleteRequestInit, type OffsetDeleteResponse } from '../../protocol/generated/offset-delete.js';
import { decodeDescribeQuorumResponse, encodeDescribeQuorumRequest, type DescribeQuorumRequestInit, type DescribeQuorumResponse } from '../../protocol/generated/describe-quorum.js';
import { decodeElectLeadersResponse, encodeElectLeadersRequest, type ElectLeadersRequestInit, type ElectLeadersResponse } from '../../protocol/generated/elect-leaders.js';
import {
  decodeAlterPartitionReassignmentsResponse, encodeAlterPartitionReassignmentsRequest,
  type AlterPartitionReassignmentsRequestInit, type AlterPartitionReassignmentsResponse,
} from '../../protocol/generated/alter-partition-reassignments.js';
import {
  decodeListPartitionReassignmentsResponse, encodeListPartitionReassignmentsRequest,
  type ListPartitionReassignmentsRequestInit, type ListPartitionReassignmentsResponse,
} from '../../protocol/generated/list-partition-reassignments.js';
import { decodeAddPartitionsToTxnResponse, encodeAddPartitionsToTxnRequest, type AddPartitionsToTxnRequestInit, type AddPartitionsToTxnResponse } from '../../protocol/generated/add-partitions-to-txn.js';
import { decodeAddOffsetsToTxnResponse, encodeAddOffsetsToTxnRequest, type AddOffsetsToTxnRequestInit, type AddOffsetsToTxnResponse } from '../../protocol/generated/add-offsets-to-txn.js';
import { decodeEndTxnResponse, encodeEndTxnRequest, type EndTxnRequestInit, type EndTxnResponse } from '../../protocol/generated/end-txn.js';
import { decodeTxnOffsetCommitResponse, encodeTxnOffsetCommitRequest, type TxnOffsetCommitRequestInit, type TxnOffsetCommitResponse } from '../../protocol/generated/txn-offset-commit.js';
import { decodeDescribeProducersResponse, encodeDescribeProducersRequest, type DescribeProducersRequestInit, type DescribeProducersResponse } from '../../protocol/generated/describe-producers.js';
import { decodeDescribeTransactionsResponse, encodeDescribeTransactionsRequest, type DescribeTransactionsRequestInit, type DescribeTransactionsResponse } from '../../protocol/generated/describe-transactions.js';
import { decodeListTransactionsResponse, encodeListTransactionsRequest, type ListTransactionsRequestInit, type ListTransactionsResponse } from '../../protocol/generated/list-transactions.js';
import { decodeDescribeClusterResponse, encodeDescribeClusterRequest, type DescribeClusterRequestInit, type DescribeClusterResponse } from '../../protocol/generated/describe-cluster.js';

/** Request and response types by api key. */
export interface ClientApiMap {
  0: { request: ProduceRequestInit; response: ProduceResponse };
  1: { request: FetchRequestInit; response: FetchResponse };
  2: { request: ListOffsetsRequestInit; response: ListOffsetsResponse };
  3: { request: MetadataRequestInit; response: MetadataResponse };
  8: { request: OffsetCommitRequestInit; response: OffsetCommitResponse };
  9: { request: OffsetFetchRequestInit; response: OffsetFetchResponse };
  10: { request: FindCoordinatorRequestInit; response: FindCoordinatorResponse };
  11: { request: JoinGroupRequestInit; response: JoinGroupResponse };
  12: { request: HeartbeatRequestInit; response: HeartbeatResponse };
  13: { request: LeaveGroupRequestInit; response: LeaveGroupResponse };
  14: { request: SyncGroupRequestInit; response: SyncGroupResponse };
  15: { request: DescribeGroupsRequestInit; response: DescribeGroupsResponse };
  16: { request: ListGroupsRequestInit; response: ListGroupsResponse };
  18: { request: ApiVersionsRequestInit; response: ApiVersionsResponse };
  19: { request: CreateTopicsRequestInit; response: CreateTopicsResponse };
  20: { request: DeleteTopicsRequestInit; response: DeleteTopicsResponse };
  21: { request: DeleteRecordsRequestInit; response: DeleteRecordsResponse };
  22: { request: InitProducerIdRequestInit; response: InitProducerIdResponse };
  24: { request: AddPartitionsToTxnRequestInit; response: AddPartitionsToTxnResponse };
  25: { request: AddOffsetsToTxnRequestInit; response: AddOffsetsToTxnResponse };
  26: { request: EndTxnRequestInit; response: EndTxnResponse };
  28: { request: TxnOffsetCommitRequestInit; response: TxnOffsetCommitResponse };
  32: { request: DescribeConfigsRequestInit; response: DescribeConfigsResponse };
  33: { request: AlterConfigsRequestInit; response: AlterConfigsResponse };
  37: { request: CreatePartitionsRequestInit; response: CreatePartitionsResponse };
  42: { request: DeleteGroupsRequestInit; response: DeleteGroupsResponse };
  43: { request: ElectLeadersRequestInit; response: ElectLeadersResponse };
  45: { request: AlterPartitionReassignmentsRequestInit; response: AlterPartitionReassignmentsResponse };
  46: { request: ListPartitionReassignmentsRequestInit; response: ListPartitionReassignmentsResponse };
  47: { request: OffsetDeleteRequestInit; response: OffsetDeleteResponse };
  55: { request: DescribeQuorumRequestInit; response: DescribeQuorumResponse };
  60: { request: DescribeClusterRequestInit; response: DescribeClusterResponse };
  61: { request: DescribeProducersRequestInit; response: DescribeProducersResponse };
  65: { request: DescribeTransactionsRequestInit; response: DescribeTransactionsResponse };
  66: { request: ListTransactionsRequestInit; response: ListTransactionsResponse };
}

/** An api key this client can send. */
export type ClientApiKey = keyof ClientApiMap;
export type ApiRequest<K extends ClientApiKey> = ClientApiMap[K]['request'];
export type ApiResponse<K extends ClientApiKey> = ClientApiMap[K]['response'];

/** Codecs and version window of one API. */
export interface ClientApi<K extends ClientApiKey> {
  readonly apiKey: K;
  readonly name: string;
  /** Lowest version this client sends (older ones have other semantics). */
  readonly minVersion: number;
  /** Highest version this client sends. */
  readonly maxVersion: number;
  encodeRequest(w: Writer, version: number, body: ApiRequest<K>): void;
  decodeResponse(r: Reader, version: number): ApiResponse<K>;
}

/** Every API the client sends, by api key. */
export const CLIENT_APIS: { readonly [K in ClientApiKey]: ClientApi<K> } = {
  // Batches are magic 2 (v3+); v7 carries zstd.
  0: { apiKey: 0, name: 'Produce', minVersion: 3, maxVersion: 7, encodeRequest: encodeProduceRequest, decodeResponse: decodeProduceResponse },
  // v4+ returns magic 2 batches and the last stable offset.
  1: { apiKey: 1, name: 'Fetch', minVersion: 4, maxVersion: 11, encodeRequest: encodeFetchRequest, decodeResponse: decodeFetchResponse },
  // v1+: one timestamp per partition (no maxNumOffsets).
  2: { apiKey: 2, name: 'ListOffsets', minVersion: 1, maxVersion: 3, encodeRequest: encodeListOffsetsRequest, decodeResponse: decodeListOffsetsResponse },
  // v1+: null topics = all, empty = none; controller id.
  3: { apiKey: 3, name: 'Metadata', minVersion: 1, maxVersion: 8, encodeRequest: encodeMetadataRequest, decodeResponse: decodeMetadataResponse },
  8: { apiKey: 8, name: 'OffsetCommit', minVersion: 2, maxVersion: 7, encodeRequest: encodeOffsetCommitRequest, decodeResponse: decodeOffsetCommitResponse },
  // v0 read ZooKeeper offsets.
  9: { apiKey: 9, name: 'OffsetFetch', minVersion: 1, maxVersion: 5, encodeRequest: encodeOffsetFetchRequest, decodeResponse: decodeOffsetFetchResponse },
  10: { apiKey: 10, name: 'FindCoordinator', minVersion: 0, maxVersion: 2, encodeRequest: encodeFindCoordinatorRequest, decodeResponse: decodeFindCoordinatorResponse },
  // v4+: MEMBER_ID_REQUIRED two-step join (KIP-394).
  11: { apiKey: 11, name: 'JoinGroup', minVersion: 0, maxVersion: 5, encodeRequest: encodeJoinGroupRequest, decodeResponse: decodeJoinGroupResponse },
  12: { apiKey: 12, name: 'Heartbeat', minVersion: 0, maxVersion: 3, encodeRequest: encodeHeartbeatRequest, decodeResponse: decodeHeartbeatResponse },
  // v3+: a members array (KIP-345).
  13: { apiKey: 13, name: 'LeaveGroup', minVersion: 0, maxVersion: 3, encodeRequest: encodeLeaveGroupRequest, decodeResponse: decodeLeaveGroupResponse },
  14: { apiKey: 14, name: 'SyncGroup', minVersion: 0, maxVersion: 3, encodeRequest: encodeSyncGroupRequest, decodeResponse: decodeSyncGroupResponse },
  15: { apiKey: 15, name: 'DescribeGroups', minVersion: 0, maxVersion: 4, encodeRequest: encodeDescribeGroupsRequest, decodeResponse: decodeDescribeGroupsResponse },
  16: { apiKey: 16, name: 'ListGroups', minVersion: 0, maxVersion: 2, encodeRequest: encodeListGroupsRequest, decodeResponse: decodeListGroupsResponse },
  // v3 is flexible; the response header is always v0.
  18: { apiKey: 18, name: 'ApiVersions', minVersion: 0, maxVersion: 3, encodeRequest: encodeApiVersionsRequest, decodeResponse: decodeApiVersionsResponse },
  19: { apiKey: 19, name: 'CreateTopics', minVersion: 0, maxVersion: 4, encodeRequest: encodeCreateTopicsRequest, decodeResponse: decodeCreateTopicsResponse },
  20: { apiKey: 20, name: 'DeleteTopics', minVersion: 0, maxVersion: 3, encodeRequest: encodeDeleteTopicsRequest, decodeResponse: decodeDeleteTopicsResponse },
  21: { apiKey: 21, name: 'DeleteRecords', minVersion: 0, maxVersion: 1, encodeRequest: encodeDeleteRecordsRequest, decodeResponse: decodeDeleteRecordsResponse },
  22: { apiKey: 22, name: 'InitProducerId', minVersion: 0, maxVersion: 4, encodeRequest: encodeInitProducerIdRequest, decodeResponse: decodeInitProducerIdResponse },
  // Transactions (KIP-98). AddPartitionsToTxn v0-3 (v4+ is the brokers' batched form); PRODUCER_FENCED from v2 (EndTxn, AddOffsetsToTxn).
  24: { apiKey: 24, name: 'AddPartitionsToTxn', minVersion: 0, maxVersion: 3, encodeRequest: encodeAddPartitionsToTxnRequest, decodeResponse: decodeAddPartitionsToTxnResponse },
  25: { apiKey: 25, name: 'AddOffsetsToTxn', minVersion: 0, maxVersion: 2, encodeRequest: encodeAddOffsetsToTxnRequest, decodeResponse: decodeAddOffsetsToTxnResponse },
  26: { apiKey: 26, name: 'EndTxn', minVersion: 0, maxVersion: 2, encodeRequest: encodeEndTxnRequest, decodeResponse: decodeEndTxnResponse },
  // v3: the consumer's generation and member id (KIP-447).
  28: { apiKey: 28, name: 'TxnOffsetCommit', minVersion: 0, maxVersion: 3, encodeRequest: encodeTxnOffsetCommitRequest, decodeResponse: decodeTxnOffsetCommitResponse },
  32: { apiKey: 32, name: 'DescribeConfigs', minVersion: 0, maxVersion: 2, encodeRequest: encodeDescribeConfigsRequest, decodeResponse: decodeDescribeConfigsResponse },
  33: { apiKey: 33, name: 'AlterConfigs', minVersion: 0, maxVersion: 1, encodeRequest: encodeAlterConfigsRequest, decodeResponse: decodeAlterConfigsResponse },
  37: { apiKey: 37, name: 'CreatePartitions', minVersion: 0, maxVersion: 1, encodeRequest: encodeCreatePartitionsRequest, decodeResponse: decodeCreatePartitionsResponse },
  42: { apiKey: 42, name: 'DeleteGroups', minVersion: 0, maxVersion: 1, encodeRequest: encodeDeleteGroupsRequest, decodeResponse: decodeDeleteGroupsResponse },
  // v1+: election type (KIP-460) and a top-level error.
  43: { apiKey: 43, name: 'ElectLeaders', minVersion: 1, maxVersion: 2, encodeRequest: encodeElectLeadersRequest, decodeResponse: decodeElectLeadersResponse },
  45: {
    apiKey: 45, name: 'AlterPartitionReassignments', minVersion: 0, maxVersion: 0,
    encodeRequest: encodeAlterPartitionReassignmentsRequest, decodeResponse: decodeAlterPartitionReassignmentsResponse,
  },
  46: {
    apiKey: 46, name: 'ListPartitionReassignments', minVersion: 0, maxVersion: 0,
    encodeRequest: encodeListPartitionReassignmentsRequest, decodeResponse: decodeListPartitionReassignmentsResponse,
  },
  47: { apiKey: 47, name: 'OffsetDelete', minVersion: 0, maxVersion: 0, encodeRequest: encodeOffsetDeleteRequest, decodeResponse: decodeOffsetDeleteResponse },
  // v1+: last fetch and caught-up times per replica (KIP-836).
  55: { apiKey: 55, name: 'DescribeQuorum', minVersion: 1, maxVersion: 2, encodeRequest: encodeDescribeQuorumRequest, decodeResponse: decodeDescribeQuorumResponse },
  60: { apiKey: 60, name: 'DescribeCluster', minVersion: 0, maxVersion: 1, encodeRequest: encodeDescribeClusterRequest, decodeResponse: decodeDescribeClusterResponse },
  61: { apiKey: 61, name: 'DescribeProducers', minVersion: 0, maxVersion: 0, encodeRequest: encodeDescribeProducersRequest, decodeResponse: decodeDescribeProducersResponse },
  65: { apiKey: 65, name: 'DescribeTransactions', minVersion: 0, maxVersion: 0, encodeRequest: encodeDescribeTransactionsRequest, decodeResponse: decodeDescribeTransactionsResponse },
  66: { apiKey: 66, name: 'ListTransactions', minVersion: 0, maxVersion: 1, encodeRequest: encodeListTransactionsRequest, decodeResponse: decodeListTransactionsResponse },
};

/** The client's window for `apiKey`, or undefined for an API the client never sends. */
export function clientApi<K extends ClientApiKey>(apiKey: K): ClientApi<K> {
  return CLIENT_APIS[apiKey];
}
