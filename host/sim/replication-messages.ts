/**
 * The messages of the replication simulation, carried by a {@link SimNetwork} between brokers
 * (ids 1..N) and the controller (id {@link CONTROLLER_NODE_ID}). They carry what Kafka's RPCs carry
 * (Fetch v12 with replica id, last fetched epoch and DivergingEpoch, in the ReplicaFetcher's
 * shapes from leader-end-point.ts; ListOffsets from a replica; BrokerRegistration,
 * BrokerHeartbeat, AlterPartition; the metadata a broker replays), as plain objects: the wire
 * codecs have their own tests, the simulation is about the state machines.
 */
import type { PartitionRegistration } from '../controller/metadata-image.js';
import type { AlterPartitionRequest, AlterPartitionResponseInit } from '../protocol/generated/alter-partition.js';
import type { LeaderOffset, ReplicaFetchRequest, ReplicaFetchResponse } from '../replication/leader-end-point.js';

/** The controller's node id on the simulated network (brokers are 1..N). */
export const CONTROLLER_NODE_ID = 0;

/** A replica Fetch (Fetch v12 with replica_id) from a follower's fetcher. */
export interface ReplicaFetchBody {
  readonly kind: 'fetch';
  /** Matches the answer to the fetcher's request. */
  readonly requestId: number;
  readonly request: ReplicaFetchRequest;
}

/** The leader's answer to a replica Fetch. */
export interface ReplicaFetchResponseBody {
  readonly kind: 'fetchResponse';
  readonly requestId: number;
  readonly response: ReplicaFetchResponse;
}

/** ListOffsets from a replica (replica_id set): EARLIEST (-2) or LATEST (-1, the log end offset). */
export interface ListOffsetsBody {
  readonly kind: 'listOffsets';
  readonly requestId: number;
  readonly topic: string;
  readonly partition: number;
  readonly currentLeaderEpoch: number;
  readonly timestamp: -1 | -2;
}

export interface ListOffsetsResponseBody {
  readonly kind: 'listOffsetsResponse';
  readonly requestId: number;
  readonly offset: LeaderOffset;
}

export interface RegisterBody {
  readonly kind: 'register';
  readonly incarnationId: string;
}

export interface RegisterResponseBody {
  readonly kind: 'registerResponse';
  readonly incarnationId: string;
  readonly errorCode: number;
  readonly brokerEpoch: number;
}

export interface HeartbeatBody {
  readonly kind: 'heartbeat';
  readonly brokerEpoch: number;
  readonly currentMetadataOffset: number;
}

export interface HeartbeatResponseBody {
  readonly kind: 'heartbeatResponse';
  readonly brokerEpoch: number;
  readonly errorCode: number;
  readonly isFenced: boolean;
}

/** A broker asks for the committed metadata (stands in for the metadata log fetch + publisher). */
export interface MetadataRequestBody {
  readonly kind: 'metadata';
}

export interface MetadataResponseBody {
  readonly kind: 'metadataResponse';
  /** The controller's last committed offset. */
  readonly offset: number;
  readonly topics: readonly { readonly name: string; readonly topicId: string; readonly partitions: readonly PartitionRegistration[] }[];
  /** Every registered broker's current broker epoch (KIP-903: the leaders record followers' fetches with it). */
  readonly brokers: readonly { readonly brokerId: number; readonly brokerEpoch: number }[];
}

export interface AlterPartitionBody {
  readonly kind: 'alterPartition';
  readonly requestId: number;
  /** As the controller decodes it (AlterPartition v3). */
  readonly request: AlterPartitionRequest;
}

export interface AlterPartitionResponseBody {
  readonly kind: 'alterPartitionResponse';
  readonly requestId: number;
  readonly response: AlterPartitionResponseInit;
}

export type ReplicationBody =
  | ReplicaFetchBody | ReplicaFetchResponseBody | ListOffsetsBody | ListOffsetsResponseBody
  | RegisterBody | RegisterResponseBody | HeartbeatBody | HeartbeatResponseBody
  | MetadataRequestBody | MetadataResponseBody | AlterPartitionBody | AlterPartitionResponseBody;

/** One message on the simulated network. */
export interface ReplicationEnvelope {
  readonly source: number;
  readonly destination: number;
  readonly body: ReplicationBody;
  /**
   * Requests to the controller: increasing per sender life; the controller drops one not above
   * the last it took from that sender (one TCP connection: no duplicates, no reordering).
   */
  readonly sequence?: number;
}
