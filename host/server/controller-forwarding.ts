/**
 * Forwarding to the active controller (Kafka's ForwardingManager, without the Envelope): a broker
 * whose own controller is not the active one (a follower voter, or a broker-only observer) sends
 * each metadata change to the active controller's CONTROLLER listener as the matching Kafka
 * request (CreateTopics, DeleteTopics, CreatePartitions, AlterConfigs, IncrementalAlterConfigs,
 * AllocateProducerIds; ElectLeaders, AlterPartitionReassignments, ListPartitionReassignments),
 * where controller-write-apis.ts (and its siblings) answer it from the QuorumController.
 *
 * The active controller is the one the Raft quorum names now (`activeControllerId`). A request
 * answered NOT_CONTROLLER (41), or lost because that node is down, is sent again while the
 * deadline allows: during a failover the quorum names the new leader within an election timeout.
 * Without an answer by the deadline the items answer REQUEST_TIMED_OUT (7) (or NOT_CONTROLLER when
 * no controller is known), never a half-applied change: the controller commits each request as
 * one batch or not at all.
 */
import type {
  ConfigChange, ConfigChangeResult, CreateTopicSpec, MetadataResult, OngoingReassignments, ReassignmentResults, ReassignmentTarget,
} from '../api/cluster-metadata.js';
import type { ElectLeadersTopic } from '../controller/leader-election-control.js';
import type { ProducerIdBlockResult } from '../controller/quorum-controller.js';
import type { Time } from '../io/environment.js';
import type { NodeChannels } from '../network/node-channels.js';
import type { RemoteApi } from '../network/node-channel.js';
import { ApiKey } from '../protocol/generated/api-keys.js';
import { decodeAllocateProducerIdsResponse, encodeAllocateProducerIdsRequest } from '../protocol/generated/allocate-producer-ids.js';
import { decodeAlterConfigsResponse, encodeAlterConfigsRequest } from '../protocol/generated/alter-configs.js';
import {
  decodeAlterPartitionReassignmentsResponse, encodeAlterPartitionReassignmentsRequest,
} from '../protocol/generated/alter-partition-reassignments.js';
import { decodeListPartitionReassignmentsResponse, encodeListPartitionReassignmentsRequest } from '../protocol/generated/list-partition-reassignments.js';
import { decodeCreatePartitionsResponse, encodeCreatePartitionsRequest } from '../protocol/generated/create-partitions.js';
import { decodeCreateTopicsResponse, encodeCreateTopicsRequest } from '../protocol/generated/create-topics.js';
import { decodeDeleteTopicsResponse, encodeDeleteTopicsRequest } from '../protocol/generated/delete-topics.js';
import { decodeElectLeadersResponse, encodeElectLeadersRequest, type ElectLeadersResponse } from '../protocol/generated/elect-leaders.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { decodeIncrementalAlterConfigsResponse, encodeIncrementalAlterConfigsRequest } from '../protocol/generated/incremental-alter-configs.js';
import { ELECT_LEADERS_VERSION } from './controller-elect-leaders-api.js';
import { REASSIGNMENT_API_VERSION } from './controller-reassignment-apis.js';
import { FORWARDED_VERSIONS } from './controller-write-apis.js';

const api = <Req, Res>(apiKey: number, name: string, encodeRequest: RemoteApi<Req, Res>['encodeRequest'],
  decodeResponse: RemoteApi<Req, Res>['decodeResponse']): RemoteApi<Req, Res> => ({ apiKey, name, encodeRequest, decodeResponse });

const CREATE_TOPICS = api(ApiKey.CreateTopics, 'CreateTopics', encodeCreateTopicsRequest, decodeCreateTopicsResponse);
const DELETE_TOPICS = api(ApiKey.DeleteTopics, 'DeleteTopics', encodeDeleteTopicsRequest, decodeDeleteTopicsResponse);
const CREATE_PARTITIONS = api(ApiKey.CreatePartitions, 'CreatePartitions', encodeCreatePartitionsRequest, decodeCreatePartitionsResponse);
const ALTER_CONFIGS = api(ApiKey.AlterConfigs, 'AlterConfigs', encodeAlterConfigsRequest, decodeAlterConfigsResponse);
const INCREMENTAL_ALTER_CONFIGS = api(ApiKey.IncrementalAlterConfigs, 'IncrementalAlterConfigs',
  encodeIncrementalAlterConfigsRequest, decodeIncrementalAlterConfigsResponse);
const ELECT_LEADERS = api(ApiKey.ElectLeaders, 'ElectLeaders', encodeElectLeadersRequest, decodeElectLeadersResponse);
const ALTER_REASSIGNMENTS = api(ApiKey.AlterPartitionReassignments, 'AlterPartitionReassignments',
  encodeAlterPartitionReassignmentsRequest, decodeAlterPartitionReassignmentsResponse);
const LIST_REASSIGNMENTS = api(ApiKey.ListPartitionReassignments, 'ListPartitionReassignments',
  encodeListPartitionReassignmentsRequest, decodeListPartitionReassignmentsResponse);
const ALLOCATE_PRODUCER_IDS = api(ApiKey.AllocateProducerIds, 'AllocateProducerIds', encodeAllocateProducerIdsRequest, decodeAllocateProducerIdsResponse);

/** Pause between two attempts while no controller answers, ms. */
const RETRY_BACKOFF_MS = 50;

export interface ControllerForwarderOptions {
  readonly channels: NodeChannels;
  /** The node the quorum names as leader now; -1 when none is known. */
  readonly activeControllerId: () => number;
  readonly time: Time;
  /** How long one forwarded change may take, retries included, ms. */
  readonly timeoutMs: number;
}

/** Why an attempt got no usable answer. */
interface NoAnswer {
  readonly errorCode: number;
  readonly errorMessage: string;
}

/** Sends metadata changes to the active controller; see the file header. */
export class ControllerForwarder {
  constructor(private readonly options: ControllerForwarderOptions) {}

  /** CreateTopics of one topic. Errors: the controller's, or NOT_CONTROLLER / REQUEST_TIMED_OUT. */
  async createTopic(spec: CreateTopicSpec, validateOnly: boolean): Promise<MetadataResult> {
    const body = {
      topics: [{
        name: spec.name, numPartitions: spec.numPartitions, replicationFactor: spec.replicationFactor,
        assignments: (spec.assignments ?? []).map((a) => ({ partitionIndex: a.partitionIndex, brokerIds: [...a.brokerIds] })),
        configs: Object.entries(spec.configs).map(([name, value]) => ({ name, value })),
      }],
      timeoutMs: this.options.timeoutMs,
      validateOnly,
    };
    const answer = await this.send(CREATE_TOPICS, FORWARDED_VERSIONS.CreateTopics, body, (r) => r.topics[0]?.errorCode);
    if (!('topics' in answer)) return answer;
    return one(answer.topics.find((t) => t.name === spec.name));
  }

  /** DeleteTopics of one topic. */
  async deleteTopic(name: string): Promise<MetadataResult> {
    const body = { topicNames: [name], timeoutMs: this.options.timeoutMs };
    const answer = await this.send(DELETE_TOPICS, FORWARDED_VERSIONS.DeleteTopics, body, (r) => r.responses[0]?.errorCode);
    if (!('responses' in answer)) return answer;
    const result = answer.responses.find((t) => t.name === name);
    return result === undefined ? one(undefined) : { errorCode: result.errorCode, errorMessage: null };
  }

  /** CreatePartitions of one topic to `totalCount` partitions (automatic placement). */
  async createPartitions(name: string, totalCount: number, validateOnly: boolean): Promise<MetadataResult> {
    const body = { topics: [{ name, count: totalCount, assignments: null }], timeoutMs: this.options.timeoutMs, validateOnly };
    const answer = await this.send(CREATE_PARTITIONS, FORWARDED_VERSIONS.CreatePartitions, body, (r) => r.results[0]?.errorCode);
    if (!('results' in answer)) return answer;
    return one(answer.results.find((t) => t.name === name));
  }

  /** AlterConfigs (legacy) of one resource. */
  async alterConfigs(resourceType: number, resourceName: string, configs: readonly { name: string; value: string | null }[],
    validateOnly: boolean): Promise<MetadataResult> {
    const body = { resources: [{ resourceType, resourceName, configs: [...configs] }], validateOnly };
    const answer = await this.send(ALTER_CONFIGS, FORWARDED_VERSIONS.AlterConfigs, body, (r) => r.responses[0]?.errorCode);
    if (!('responses' in answer)) return answer;
    return one(answer.responses.find((r) => r.resourceType === resourceType && r.resourceName === resourceName));
  }

  /** IncrementalAlterConfigs of several resources; one result per resource, in request order. */
  async incrementalAlterConfigs(resources: readonly ConfigChange[], validateOnly: boolean): Promise<ConfigChangeResult[]> {
    const body = { resources: resources.map((r) => ({ ...r, configs: r.configs.map((c) => ({ ...c })) })), validateOnly };
    const answer = await this.send(INCREMENTAL_ALTER_CONFIGS, FORWARDED_VERSIONS.IncrementalAlterConfigs, body,
      (r) => (r.responses.every((x) => x.errorCode === ErrorCode.NOT_CONTROLLER) ? ErrorCode.NOT_CONTROLLER : ErrorCode.NONE));
    return resources.map((resource) => {
      const base = { resourceType: resource.resourceType, resourceName: resource.resourceName };
      if (!('responses' in answer)) return { ...base, ...answer };
      return { ...base, ...one(answer.responses.find((r) => r.resourceType === resource.resourceType && r.resourceName === resource.resourceName)) };
    });
  }

  /** ElectLeaders (v2): `electionType` 0 PREFERRED / 1 UNCLEAN, `topicPartitions` null for all. */
  async electLeaders(electionType: number, topicPartitions: readonly ElectLeadersTopic[] | null): Promise<ElectLeadersResponse> {
    const body = { electionType, topicPartitions: topicPartitions === null ? null : topicPartitions.map((t) => ({ topic: t.topic, partitions: [...t.partitions] })),
      timeoutMs: this.options.timeoutMs };
    const answer = await this.send(ELECT_LEADERS, ELECT_LEADERS_VERSION, body, (r) => r.errorCode);
    return 'replicaElectionResults' in answer ? answer : { throttleTimeMs: 0, errorCode: answer.errorCode, replicaElectionResults: [] };
  }

  /** AlterPartitionReassignments (v0): the controller's answer, or a top-level NOT_CONTROLLER / REQUEST_TIMED_OUT. */
  async alterPartitionReassignments(topics: readonly ReassignmentTarget[]): Promise<ReassignmentResults> {
    const body = {
      timeoutMs: this.options.timeoutMs,
      topics: topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, replicas: p.replicas === null ? null : [...p.replicas] })) })),
    };
    const answer = await this.send(ALTER_REASSIGNMENTS, REASSIGNMENT_API_VERSION, body, (r) => r.errorCode);
    if (!('responses' in answer)) return { ...answer, topics: [] };
    return { errorCode: answer.errorCode, errorMessage: answer.errorMessage, topics: answer.responses };
  }

  /** ListPartitionReassignments (v0), `topics` null for every topic. */
  async listPartitionReassignments(topics: readonly { name: string; partitionIndexes: readonly number[] }[] | null): Promise<OngoingReassignments> {
    const body = { timeoutMs: this.options.timeoutMs, topics: topics === null ? null : topics.map((t) => ({ name: t.name, partitionIndexes: [...t.partitionIndexes] })) };
    const answer = await this.send(LIST_REASSIGNMENTS, REASSIGNMENT_API_VERSION, body, (r) => r.errorCode);
    if (!('topics' in answer)) return { ...answer, topics: [] };
    return { errorCode: answer.errorCode, errorMessage: answer.errorMessage, topics: answer.topics };
  }

  /** AllocateProducerIds for this broker at its current broker epoch. */
  async allocateProducerIds(brokerId: number, brokerEpoch: number): Promise<ProducerIdBlockResult> {
    const answer = await this.send(ALLOCATE_PRODUCER_IDS, FORWARDED_VERSIONS.AllocateProducerIds, { brokerId, brokerEpoch }, (r) => r.errorCode);
    if (!('producerIdStart' in answer)) return { ...answer, producerIdStart: -1, producerIdLen: 0 };
    return { errorCode: answer.errorCode, errorMessage: null, producerIdStart: answer.producerIdStart, producerIdLen: answer.producerIdLen };
  }

  /**
   * Sends `body` to the active controller until an answer whose `errorOf` is not NOT_CONTROLLER
   * arrives or the deadline passes.
   */
  private async send<Req, Res>(remote: RemoteApi<Req, Res>, version: number, body: Req, errorOf: (response: Res) => number | undefined): Promise<Res | NoAnswer> {
    const { channels, activeControllerId, time, timeoutMs } = this.options;
    const deadline = time.monotonicMs() + timeoutMs;
    let last: NoAnswer = { errorCode: ErrorCode.NOT_CONTROLLER, errorMessage: 'no active controller is known yet' };
    for (;;) {
      const left = deadline - time.monotonicMs();
      if (left <= 0) return last;
      const controllerId = activeControllerId();
      if (controllerId >= 0) {
        const result = await channels.send(controllerId, remote, version, body, left);
        if (result.kind === 'response' && errorOf(result.body) !== ErrorCode.NOT_CONTROLLER) return result.body;
        last = result.kind === 'timeout'
          ? { errorCode: ErrorCode.REQUEST_TIMED_OUT, errorMessage: `the active controller ${controllerId} did not answer within ${timeoutMs} ms` }
          : result.kind === 'disconnected'
            ? { errorCode: ErrorCode.NOT_CONTROLLER, errorMessage: `the active controller ${controllerId} is not reachable: ${result.reason}` }
            : { errorCode: ErrorCode.NOT_CONTROLLER, errorMessage: `node ${controllerId} is no longer the active controller` };
      }
      await new Promise<void>((resolve) => time.setTimeout(resolve, Math.min(RETRY_BACKOFF_MS, Math.max(1, left))));
    }
  }
}

function one(result: { errorCode: number; errorMessage?: string | null } | undefined): MetadataResult {
  if (result === undefined) return { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: 'the controller answered without the item' };
  return { errorCode: result.errorCode, errorMessage: result.errorMessage ?? null };
}
