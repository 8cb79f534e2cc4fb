/**
 * ClusterControlManager (Kafka's name): broker registrations, their epochs, fencing and
 * unfencing. A state machine without I/O: each operation reads the controller's latest state
 * (the image with every appended record, committed or not) and returns the records to commit
 * with the answer; {@link ClusterControlManager.replay} applies this manager's record types.
 *
 * Broker registrations move through Kafka's states (the records written in brackets):
 *
 * ```
 * (unregistered) ──registerBroker(fenced) [RegisterBrokerRecord]──────────────► FENCED
 * (unregistered) ──registerBroker [RegisterBrokerRecord, PartitionChange*]────► UNFENCED
 * FENCED   ──unfenceBroker [BrokerRegistrationChangeRecord, PartitionChange*]─► UNFENCED
 * UNFENCED ──fenceBroker / registerBroker(fenced) [.., PartitionChange*]───────► FENCED
 * FENCED | UNFENCED ──registerBroker──► a new registration (new epoch), as above
 * FENCED | UNFENCED ──unregisterBroker [PartitionChange*, UnregisterBrokerRecord]──► (unregistered)
 * ```
 *
 * Only UNFENCED brokers lead, join new ISRs or take new replicas; the partition changes a fence or
 * unfence implies come from the ReplicationControlManager.
 *
 * BrokerHeartbeat ({@link ClusterControlManager.processBrokerHeartbeat}, KIP-631) drives the
 * lifecycle of a broker in a multi-node cluster: a broker registers FENCED, heartbeats with the
 * metadata offset it has replayed, and is unfenced once caught up (that offset reaches its
 * registration record); `wantFence` fences it; `wantShutDown` starts a controlled shutdown (it
 * leaves ISRs and leadership moves away), and once it leads nothing it is fenced and told
 * `shouldShutDown`. Session expiry (no heartbeat within `broker.session.timeout.ms`) fences through
 * {@link ClusterControlManager.fenceBroker}; the timing lives in BrokerHeartbeatManager.
 */
import { ErrorCode } from '../protocol/generated/error-codes.js';
import {
  type ApiError,
  type ControllerResult,
  METADATA_VERSION_LEVEL,
  NONE,
  RECORD_VERSION,
  answer,
  fail,
} from './controller-result.js';
import type { BrokerEndpoint, MetadataImage } from './metadata-image.js';
import { type MetadataRecord, metadataRecord } from './metadata-records.js';
import type { ReplicationControlManager } from './replication-control-manager.js';
import { type RandomSource, randomTopicId } from './topic-id.js';

/** A broker registering itself (Kafka's BrokerRegistrationRequest, reduced). */
export interface RegisterBrokerRequest {
  readonly brokerId: number;
  /** 32 hex digits identifying this process start; random when absent. */
  readonly incarnationId?: string;
  readonly endpoints: readonly BrokerEndpoint[];
  readonly rack?: string | null;
  /**
   * Register fenced (Kafka's way: a heartbeat unfences once the broker caught up) or, default for
   * the embedded case, unfenced at once: a combined node is caught up by construction.
   */
  readonly fenced?: boolean;
}

export interface RegisterBrokerResult extends ApiError {
  /** The new registration's epoch (the offset of its RegisterBrokerRecord); -1 on error. */
  readonly brokerEpoch: number;
}

/** A BrokerHeartbeat as the controller reads it (BrokerHeartbeatRequest.json). */
export interface BrokerHeartbeat {
  readonly brokerId: number;
  readonly brokerEpoch: number;
  /** The highest metadata offset the broker has replayed. */
  readonly currentMetadataOffset: number;
  readonly wantFence: boolean;
  readonly wantShutDown: boolean;
}

/** The answer to a heartbeat (BrokerHeartbeatResponse.json, without throttle time). */
export interface BrokerHeartbeatReply extends ApiError {
  readonly isCaughtUp: boolean;
  readonly isFenced: boolean;
  readonly shouldShutDown: boolean;
}

export interface ClusterControlManagerOptions {
  /** The controller's latest state (appended records included). */
  readonly latest: () => MetadataImage;
  /** The offset the next appended record gets (a registration's epoch is its record's offset). */
  readonly nextOffset: () => number;
  /** Incarnation ids when the request has none. */
  readonly random: RandomSource;
  /** Partition leadership and ISR changes on fencing and unfencing. */
  readonly replication: ReplicationControlManager;
}

export class ClusterControlManager {
  private readonly latest: () => MetadataImage;
  private readonly nextOffset: () => number;
  private readonly random: RandomSource;
  private readonly replication: ReplicationControlManager;

  constructor(options: ClusterControlManagerOptions) {
    this.latest = options.latest;
    this.nextOffset = options.nextOffset;
    this.random = options.random;
    this.replication = options.replication;
  }

  /** Applies a broker record (Register/Unregister/Fence/Unfence/BrokerRegistrationChange) to the latest state. */
  replay(record: MetadataRecord): void {
    this.latest().replay(record);
  }

  /**
   * Registers (or re-registers after a restart) a broker: a RegisterBrokerRecord whose offset
   * becomes the broker epoch. A re-registration replaces the previous one (single node: the old
   * registration belongs to a process that is gone). Registering unfenced elects the broker leader
   * of the partitions that have none and list it in their ISR; re-registering an unfenced broker
   * as fenced takes it out of ISRs and leadership as {@link fenceBroker} does.
   * Errors: INVALID_REQUEST (42) for a negative id or a malformed incarnation id.
   */
  registerBroker(request: RegisterBrokerRequest): ControllerResult<RegisterBrokerResult> {
    const failed = (r: ApiError): ControllerResult<RegisterBrokerResult> => answer({ ...r, brokerEpoch: -1 });
    if (!Number.isInteger(request.brokerId) || request.brokerId < 0) {
      return failed(fail(ErrorCode.INVALID_REQUEST, `Broker id ${request.brokerId} is not a non-negative integer.`));
    }
    const incarnationId = request.incarnationId ?? randomTopicId(this.random);
    if (!/^[0-9a-f]{32}$/.test(incarnationId)) {
      return failed(fail(ErrorCode.INVALID_REQUEST, `Incarnation id ${incarnationId} is not 32 lowercase hex digits.`));
    }
    const fenced = request.fenced ?? false;
    // The RegisterBrokerRecord is the first of the batch, so its offset is the log's end now.
    const brokerEpoch = this.nextOffset();
    const records: MetadataRecord[] = [metadataRecord('RegisterBrokerRecord', RECORD_VERSION.RegisterBrokerRecord, {
      brokerId: request.brokerId,
      isMigratingZkBroker: false,
      incarnationId,
      brokerEpoch,
      endPoints: request.endpoints.map((e) => ({ name: e.name, host: e.host, port: e.port, securityProtocol: e.securityProtocol })),
      features: [{ name: 'metadata.version', minSupportedVersion: 1, maxSupportedVersion: METADATA_VERSION_LEVEL }],
      rack: request.rack ?? null,
      fenced,
      inControlledShutdown: false,
      logDirs: [],
    })];
    const existing = this.latest().broker(request.brokerId);
    if (!fenced) records.push(...this.replication.electLeadersOnUnfence(request.brokerId));
    else if (existing !== undefined && !existing.fenced) records.push(...this.replication.removeFromIsrOnFence(request.brokerId));
    return { records, response: { ...NONE, brokerEpoch } };
  }

  /**
   * Unfences a registered broker (Kafka: a heartbeat from a caught-up broker) and elects it leader
   * where partitions have none and list it in their ISR.
   * Errors: STALE_BROKER_EPOCH (77) when `brokerEpoch` is not the current registration's.
   */
  unfenceBroker(brokerId: number, brokerEpoch: number): ControllerResult<ApiError> {
    const check = this.checkBrokerEpoch(brokerId, brokerEpoch);
    if (check !== null) return answer(check);
    if (!this.latest().broker(brokerId)!.fenced) return answer(NONE);
    return {
      records: [
        metadataRecord('BrokerRegistrationChangeRecord', RECORD_VERSION.BrokerRegistrationChangeRecord, {
          brokerId, brokerEpoch, fenced: -1, inControlledShutdown: 0, logDirs: [],
        }),
        ...this.replication.electLeadersOnUnfence(brokerId),
      ],
      response: NONE,
    };
  }

  /**
   * Fences a broker (Kafka: a missed session or a controlled shutdown): it leaves every ISR it is
   * in unless it is the last member, and gives up leadership to another ISR member (or to none).
   * Errors: STALE_BROKER_EPOCH (77).
   */
  fenceBroker(brokerId: number, brokerEpoch: number): ControllerResult<ApiError> {
    const check = this.checkBrokerEpoch(brokerId, brokerEpoch);
    if (check !== null) return answer(check);
    if (this.latest().broker(brokerId)!.fenced) return answer(NONE);
    return {
      records: [
        metadataRecord('BrokerRegistrationChangeRecord', RECORD_VERSION.BrokerRegistrationChangeRecord, {
          brokerId, brokerEpoch, fenced: 1, inControlledShutdown: 0, logDirs: [],
        }),
        ...this.replication.removeFromIsrOnFence(brokerId),
      ],
      response: NONE,
    };
  }

  /**
   * Removes a broker's registration (Kafka's UnregisterBroker), after fencing it.
   * Errors: BROKER_ID_NOT_REGISTERED (102).
   */
  unregisterBroker(brokerId: number): ControllerResult<ApiError> {
    const registration = this.latest().broker(brokerId);
    if (registration === undefined) return answer(fail(ErrorCode.BROKER_ID_NOT_REGISTERED, `Broker ${brokerId} is not registered.`));
    // Even a fenced broker may still be the last member of some ISRs: it leaves them too (Kafka).
    const records: MetadataRecord[] = this.replication.removeFromIsrOnFence(brokerId);
    records.push(metadataRecord('UnregisterBrokerRecord', 0, { brokerId, brokerEpoch: registration.brokerEpoch }));
    return { records, response: NONE };
  }

  /**
   * Processes a BrokerHeartbeat (see the file header for the lifecycle it drives); the reply
   * describes the broker's state once the returned records are applied.
   * Errors: STALE_BROKER_EPOCH (77) for an unknown broker or an old registration (the broker must
   * register again), with `isFenced` true.
   */
  processBrokerHeartbeat(heartbeat: BrokerHeartbeat): ControllerResult<BrokerHeartbeatReply> {
    const check = this.checkBrokerEpoch(heartbeat.brokerId, heartbeat.brokerEpoch);
    if (check !== null) return answer({ ...check, isCaughtUp: false, isFenced: true, shouldShutDown: false });
    const { brokerId, brokerEpoch } = heartbeat;
    const registration = this.latest().broker(brokerId)!;
    const isCaughtUp = heartbeat.currentMetadataOffset >= registration.brokerEpoch;
    const reply = (records: readonly MetadataRecord[], isFenced: boolean, shouldShutDown = false): ControllerResult<BrokerHeartbeatReply> =>
      ({ records, response: { ...NONE, isCaughtUp, isFenced, shouldShutDown } });
    if (heartbeat.wantShutDown) {
      if (registration.fenced) return reply([], true, true);
      if (!registration.inControlledShutdown) {
        const records = [
          metadataRecord('BrokerRegistrationChangeRecord', RECORD_VERSION.BrokerRegistrationChangeRecord, {
            brokerId, brokerEpoch, fenced: 0, inControlledShutdown: 1, logDirs: [],
          }),
          ...this.replication.removeFromIsrOnFence(brokerId),
        ];
        return reply(records, false);
      }
      if (this.leadsAnyPartition(brokerId)) return reply([], false);
      return reply(this.fenceBroker(brokerId, brokerEpoch).records, true, true);
    }
    if (heartbeat.wantFence) return reply(registration.fenced ? [] : this.fenceBroker(brokerId, brokerEpoch).records, true);
    if (registration.fenced && isCaughtUp) return reply(this.unfenceBroker(brokerId, brokerEpoch).records, false);
    return reply([], registration.fenced);
  }

  /** True when `brokerId` leads at least one partition in the latest state. */
  leadsAnyPartition(brokerId: number): boolean {
    return this.latest().leadsAnyPartition(brokerId);
  }

  /** STALE_BROKER_EPOCH (77) unless `brokerId` is registered with exactly `brokerEpoch`; null when it is. */
  checkBrokerEpoch(brokerId: number, brokerEpoch: number): ApiError | null {
    const registration = this.latest().broker(brokerId);
    if (registration === undefined) return fail(ErrorCode.STALE_BROKER_EPOCH, `Broker ${brokerId} is not registered.`);
    if (registration.brokerEpoch !== brokerEpoch) {
      return fail(ErrorCode.STALE_BROKER_EPOCH, `Broker ${brokerId} epoch ${brokerEpoch} is not the current epoch ${registration.brokerEpoch}.`);
    }
    return null;
  }
}
