/**
 * SimBroker: one broker of the replication simulation, built from the real storage and
 * replication classes: a {@link LogManager} over its own {@link FaultDisk} (kept across lives:
 * what was flushed survives a power loss, the page cache survives a process crash), a
 * {@link ReplicaManager} with its Partitions and purgatories on the simulation's clock, and a
 * group flusher on that clock (logs with flush.messages=1 fsync before an ack).
 *
 * Each life: register with the controller (fenced) until accepted, then heartbeat, fetch the
 * committed metadata and apply it as the BrokerMetadataPublisher does (becomeLeader /
 * becomeFollower for the partitions whose leader or partition epoch moved), run one replica
 * fetch per follower partition towards its leader (replication-fetch.ts), and, as each
 * partition's leader, propose ISR shrinks and expansions (replication-isr.ts). Messages and
 * timers of an earlier life are ignored.
 */
import { FaultDisk } from '../io/fault-disk.js';
import type { ManualTime } from '../io/time.js';
import type { SeededRandom } from '../io/random.js';
import { groupFlusherOn } from '../log/group-flush.js';
import { defaultLogConfig, type LogConfig } from '../log/log-config.js';
import { LogManager } from '../log/log-manager.js';
import type { UnifiedLog } from '../log/unified-log.js';
import type { PartitionRegistration } from '../controller/metadata-image.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { ReplicaManager } from '../replication/replica-manager.js';
import type { ProducePartitionResult } from '../replication/replication-types.js';
import { invalidateBatchIndex } from './replication-batch-index.js';
import { answerReplicaFetch, applyFetchResponse, lastFetchedEpochOf } from './replication-fetch.js';
import { IsrProposer } from './replication-isr.js';
import { CONTROLLER_NODE_ID, type MetadataResponseBody, type ReplicaFetchBody, type ReplicationBody, type ReplicationEnvelope } from './replication-messages.js';
import type { SimNetwork } from './sim-network.js';

const LOG_DIR = '/data';

/** The broker settings a seed chooses. */
export interface SimBrokerSettings {
  readonly logConfig: LogConfig;
  readonly tickMs: number;
  readonly heartbeatIntervalMs: number;
  readonly metadataIntervalMs: number;
  readonly replicaLagTimeMaxMs: number;
  readonly replicaFetchMaxBytes: number;
  /** A replica fetch not answered within this is given up (Kafka: replica.socket.timeout.ms). */
  readonly fetchTimeoutMs: number;
}

interface FetchState {
  request: ReplicaFetchBody | null;
  sentAtMs: number;
  backoffUntilMs: number;
}

/** What one life holds; thrown away by a crash. */
interface Life {
  readonly number: number;
  readonly incarnationId: string;
  readonly logManager: LogManager;
  readonly replicaManager: ReplicaManager<UnifiedLog>;
  readonly isr: IsrProposer;
  readonly fetches: Map<string, FetchState>;
  brokerEpoch: number;
  metadataOffset: number;
  topicIds: Map<string, string>;
  nextSequence: number;
  nextRequestId: number;
  lastHeartbeatMs: number;
  lastMetadataMs: number;
  lastRegisterMs: number;
  lastCheckpointMs: number;
}

export class SimBroker {
  readonly disk: FaultDisk;
  life: Life | undefined;
  lives = 0;
  /** What happened here across lives (truncations, ISR proposals, leaderships), for the campaign figures. */
  readonly events: Record<string, number> = {};

  constructor(
    readonly id: number,
    private readonly time: ManualTime,
    private readonly random: SeededRandom,
    private readonly network: SimNetwork<ReplicationEnvelope>,
    private readonly settings: SimBrokerSettings,
  ) {
    this.disk = new FaultDisk(random.nextUint32());
    this.disk.mkdir(LOG_DIR);
    this.disk.syncAll();
  }

  get alive(): boolean {
    return this.life !== undefined;
  }

  /** Registered in this life (serves partitions). */
  get registered(): boolean {
    return (this.life?.brokerEpoch ?? -1) >= 0;
  }

  get replicaManager(): ReplicaManager<UnifiedLog> | undefined {
    return this.life?.replicaManager;
  }

  /** Starts a life from what the disk holds; `brokerEpoch` >= 0 when already registered (first start). */
  start(brokerEpoch = -1): void {
    const number = ++this.lives;
    const logManager = LogManager.open({
      logDirs: [LOG_DIR], disk: this.disk, clock: this.time, random: this.random,
      groupFlusher: groupFlusherOn(this.time), defaults: this.settings.logConfig,
    });
    const replicaManager = new ReplicaManager<UnifiedLog>({ localBrokerId: this.id, scheduler: this.time });
    const life: Life = {
      number, incarnationId: hex32(this.random), logManager, replicaManager, fetches: new Map(),
      isr: new IsrProposer(this.events, this.id, this.time, this.settings.replicaLagTimeMaxMs, (body) => this.sendToController(life, body)),
      brokerEpoch, metadataOffset: -1, topicIds: new Map(), nextSequence: 0, nextRequestId: 0,
      lastHeartbeatMs: -Infinity, lastMetadataMs: -Infinity, lastRegisterMs: -Infinity, lastCheckpointMs: this.time.monotonicMs(),
    };
    this.life = life;
    this.network.attach(this.id, (envelope) => { if (this.life === life) this.receive(life, envelope); });
    this.scheduleTick(life);
  }

  /** A process crash (kill -9): the page cache stays, everything in memory goes. */
  crash(): void {
    this.stopLife();
  }

  /** Power loss: as a crash, and the disk keeps only what was fsynced (or a torn prefix of more). */
  powerLoss(): void {
    this.stopLife();
    this.disk.powerLoss('torn');
  }

  private stopLife(): void {
    const life = this.life;
    if (life === undefined) return;
    for (const log of life.logManager.allLogs()) invalidateBatchIndex(log);
    this.life = undefined;
    this.network.attach(this.id, undefined);
  }

  /** A Produce of one batch to this broker (as a client with this broker as the partition's leader). */
  produce(topic: string, partition: number, records: Uint8Array, requiredAcks: number, timeoutMs: number): Promise<ProducePartitionResult> | undefined {
    const life = this.life;
    if (life === undefined || life.brokerEpoch < 0) return undefined;
    return life.replicaManager.appendRecords({ requiredAcks, timeoutMs, entries: [{ topic, partition, records }] }).then((results) => results[0]!);
  }

  private scheduleTick(life: Life): void {
    this.time.setTimeout(() => {
      if (this.life !== life) return;
      this.tick(life);
      this.scheduleTick(life);
    }, this.settings.tickMs);
  }

  private tick(life: Life): void {
    const nowMs = this.time.monotonicMs();
    const s = this.settings;
    if (life.brokerEpoch < 0) {
      if (nowMs - life.lastRegisterMs >= 200) {
        life.lastRegisterMs = nowMs;
        this.sendToController(life, { kind: 'register', incarnationId: life.incarnationId });
      }
      return;
    }
    if (nowMs - life.lastHeartbeatMs >= s.heartbeatIntervalMs) {
      life.lastHeartbeatMs = nowMs;
      this.sendToController(life, { kind: 'heartbeat', brokerEpoch: life.brokerEpoch, currentMetadataOffset: life.metadataOffset });
    }
    if (nowMs - life.lastMetadataMs >= s.metadataIntervalMs) {
      life.lastMetadataMs = nowMs;
      this.sendToController(life, { kind: 'metadata' });
    }
    for (const partition of life.replicaManager.allPartitions()) {
      if (partition.isLeader) life.isr.maybeProposeIsrChange(partition, life.brokerEpoch, life.topicIds.get(partition.topic) ?? '');
      else this.maybeFetch(life, partition.topic, partition.partition, nowMs);
    }
    if (nowMs - life.lastCheckpointMs >= 500) {
      life.lastCheckpointMs = nowMs;
      life.logManager.checkpointAll();
    }
  }

  private maybeFetch(life: Life, topic: string, index: number, nowMs: number): void {
    const partition = life.replicaManager.getPartition(topic, index)!;
    if (partition.leaderId < 0) return;
    const key = partition.key;
    let state = life.fetches.get(key);
    if (state === undefined) {
      state = { request: null, sentAtMs: 0, backoffUntilMs: 0 };
      life.fetches.set(key, state);
    }
    if (state.request !== null && nowMs - state.sentAtMs < this.settings.fetchTimeoutMs) return;
    if (nowMs < state.backoffUntilMs) return;
    const request: ReplicaFetchBody = {
      kind: 'fetch', requestId: life.nextRequestId++, topic, partition: index, fetchOffset: partition.logEndOffset,
      currentLeaderEpoch: partition.leaderEpoch, lastFetchedEpoch: lastFetchedEpochOf(partition.log),
      logStartOffset: partition.logStartOffset, maxBytes: this.settings.replicaFetchMaxBytes,
    };
    state.request = request;
    state.sentAtMs = nowMs;
    this.network.send({ source: this.id, destination: partition.leaderId, body: request });
  }

  private sendToController(life: Life, body: ReplicationBody): void {
    this.network.send({ source: this.id, destination: CONTROLLER_NODE_ID, body, sequence: life.number * 1e9 + life.nextSequence++ });
  }

  private receive(life: Life, envelope: ReplicationEnvelope): void {
    const body = envelope.body;
    switch (body.kind) {
      case 'fetch':
        if (life.brokerEpoch < 0) return;
        this.network.send({ source: this.id, destination: envelope.source, body: answerReplicaFetch(life.replicaManager, envelope.source, body, this.time.monotonicMs()) });
        return;
      case 'fetchResponse': {
        const partition = life.replicaManager.getPartition(body.topic, body.partition);
        const state = partition === undefined ? undefined : life.fetches.get(partition.key);
        if (partition === undefined || state?.request?.requestId !== body.requestId) return;
        const outcome = applyFetchResponse(partition, state.request, body);
        state.request = null;
        if (outcome === 'truncated') this.events.truncation = (this.events.truncation ?? 0) + 1;
        if (outcome === 'error') state.backoffUntilMs = this.time.monotonicMs() + 50;
        return;
      }
      case 'registerResponse':
        if (body.incarnationId === life.incarnationId && body.errorCode === ErrorCode.NONE && life.brokerEpoch < 0) life.brokerEpoch = body.brokerEpoch;
        return;
      case 'heartbeatResponse':
        // A stale epoch (fenced and unregistered meanwhile): register again.
        if (body.brokerEpoch === life.brokerEpoch && body.errorCode === ErrorCode.STALE_BROKER_EPOCH) life.brokerEpoch = -1;
        return;
      case 'metadataResponse':
        if (life.brokerEpoch >= 0 && body.offset > life.metadataOffset) this.applyMetadata(life, body);
        return;
      case 'alterPartitionResponse':
        life.isr.onResponse(life.replicaManager, body.request, body.response);
        return;
      default:
        return;
    }
  }

  /** The BrokerMetadataPublisher's part: leader or follower for every changed partition this broker holds. */
  private applyMetadata(life: Life, metadata: MetadataResponseBody): void {
    life.metadataOffset = metadata.offset;
    for (const topic of metadata.topics) {
      life.topicIds.set(topic.name, topic.topicId);
      for (const registration of topic.partitions) this.applyPartition(life, topic.name, registration);
    }
  }

  private applyPartition(life: Life, topic: string, registration: PartitionRegistration): void {
    if (!registration.replicas.includes(this.id)) return;
    const replicaManager = life.replicaManager;
    const index = registration.partitionId;
    const existing = replicaManager.getPartition(topic, index);
    if (existing !== undefined && existing.leaderEpoch === registration.leaderEpoch && existing.partitionEpoch === registration.partitionEpoch) return;
    const log = life.logManager.getOrCreateLog(topic, index, this.settings.logConfig);
    const state = { topic, partition: index, log, leaderEpoch: registration.leaderEpoch, partitionEpoch: registration.partitionEpoch, replicas: registration.replicas, isr: registration.isr };
    if (registration.leader === this.id && existing?.isLeader !== true) this.events.becameLeader = (this.events.becameLeader ?? 0) + 1;
    if (registration.leader === this.id) replicaManager.becomeLeader(state);
    else replicaManager.becomeFollower({ ...state, leaderId: registration.leader });
    life.isr.onMetadata(topic, index, registration);
    life.fetches.delete(`${topic}-${index}`);
  }
}

/** Default log settings of the simulation: small segments (rolls happen), Kafka's otherwise. */
export function simLogConfig(overrides: Partial<LogConfig>): LogConfig {
  return { ...defaultLogConfig, segmentBytes: 16 * 1024, indexIntervalBytes: 512, ...overrides };
}

function hex32(random: SeededRandom): string {
  let text = '';
  for (let i = 0; i < 4; i++) text += random.nextUint32().toString(16).padStart(8, '0');
  return text;
}
