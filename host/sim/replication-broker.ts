/**
 * SimBroker: one broker of the replication simulation, built from the real storage and
 * replication classes: a {@link LogManager} over its own {@link FaultDisk} (kept across lives:
 * what was flushed survives a power loss, the page cache survives a process crash), a
 * {@link ReplicaManager} with its Partitions and purgatories on the simulation's clock, and a
 * group flusher on that clock (logs with flush.messages=1 fsync before an ack).
 *
 * Each life: register with the controller (fenced) until accepted, then heartbeat, fetch the
 * committed metadata and apply it as the BrokerMetadataPublisher does (becomeLeader /
 * becomeFollower for the partitions whose leader or partition epoch moved), follow the leaders
 * with the real ReplicaFetcherManager / ReplicaFetcher over {@link SimLeaderEndPoint}s, answer
 * other brokers' replica Fetches as a leader (replication-fetch.ts), and, as each
 * partition's leader, let the Partition propose ISR shrinks and expansions through the real
 * AlterPartitionManager ({@link SimControllerTransport}). Messages and
 * timers of an earlier life are ignored.
 */
import { FaultDisk } from '../io/fault-disk.js';
import type { ManualTime } from '../io/time.js';
import type { SeededRandom } from '../io/random.js';
import { groupFlusherOn } from '../log/group-flush.js';
import { defaultLogConfig, type LogConfig } from '../log/log-config.js';
import { LogManager } from '../log/log-manager.js';
import { ProducerStateManager } from '../log/producer-state-manager.js';
import type { UnifiedLog } from '../log/unified-log.js';
import type { PartitionRegistration } from '../controller/metadata-image.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { ReplicaManager } from '../replication/replica-manager.js';
import type { ProducePartitionResult } from '../replication/replication-types.js';
import { LeaderEpochFileCache } from '../log/leader-epoch-file-cache.js';
import type { Partition } from '../replication/partition.js';
import { ReplicaFetcherManager } from '../replication/replica-fetcher-manager.js';
import { invalidateBatchIndex } from './replication-batch-index.js';
import { FetcherReplica, answerReplicaFetch, answerReplicaListOffsets, isEmptyAnswer } from './replication-fetch.js';
import { AlterPartitionManager } from '../replication/alter-partition-manager.js';
import type { AlterPartitionSink } from '../replication/alter-partition-sink.js';
import { LifeTime } from './life-time.js';
import { SimControllerTransport } from './sim-controller-transport.js';
import { CONTROLLER_NODE_ID, type MetadataResponseBody, type ReplicaFetchBody, type ReplicationBody, type ReplicationEnvelope } from './replication-messages.js';
import { PendingRequests, SimLeaderEndPoint } from './sim-leader-end-point.js';
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
  readonly replicaFetchWaitMaxMs: number;
  readonly replicaFetchBackoffMs: number;
  readonly numReplicaFetchers: number;
  /** A replica request not answered within this (plus the fetch wait) is given up (replica.socket.timeout.ms). */
  readonly replicaSocketTimeoutMs: number;
}

/** What one life holds; thrown away by a crash. */
interface Life {
  readonly number: number;
  readonly incarnationId: string;
  readonly logManager: LogManager;
  readonly replicaManager: ReplicaManager<UnifiedLog>;
  readonly alterPartitions: AlterPartitionManager;
  readonly time: LifeTime;
  readonly fetchers: ReplicaFetcherManager;
  readonly pending: PendingRequests;
  brokerEpoch: number;
  metadataOffset: number;
  topicIds: Map<string, string>;
  /** Other brokers' registration epochs from the last metadata (KIP-903). */
  brokerEpochs: Map<number, number>;
  nextSequence: number;
  lastHeartbeatMs: number;
  lastMetadataMs: number;
  lastRegisterMs: number;
  lastCheckpointMs: number;
  lastIsrCheckMs: number;
}

export class SimBroker {
  readonly disk: FaultDisk;
  life: Life | undefined;
  lives = 0;
  /** Power losses so far (what was written before the last one may be gone unless fsynced). */
  powerLosses = 0;
  /** The simulation step of the last power loss, -1 for none (set by the simulation). */
  lastPowerLossStep = -1;
  /** What happened here across lives (truncations, ISR proposals, leaderships), for the campaign figures. */
  readonly events: Record<string, number> = {};
  /** Called with what a component reports as a bug (the replica fetcher stopping on an exception). */
  onBug: (what: string) => void = () => {};
  /** The fetcher replica of each follower Partition (one per Partition, so re-adds are recognised). */
  private readonly fetcherReplicas = new WeakMap<Partition, FetcherReplica>();

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
    // Everything of this life runs on its own view of the clock: nothing of it runs after a crash.
    const time = new LifeTime(this.time, () => this.life !== undefined && this.lives === number);
    const logManager = LogManager.open({
      logDirs: [LOG_DIR], disk: this.disk, clock: time, random: this.random,
      groupFlusher: groupFlusherOn(time),
      defaults: this.settings.logConfig,
    });
    const disk = this.disk;
    const pending = new PendingRequests();
    const alterPartitions = new AlterPartitionManager({
      time, brokerId: this.id, brokerEpoch: () => (this.life === life ? life.brokerEpoch : -1),
      remote: {
        transport: new SimControllerTransport(time, pending, (requestId, request) => this.sendToController(life, { kind: 'alterPartition', requestId, request }), 500),
        activeControllerId: () => CONTROLLER_NODE_ID,
      },
      requestTimeoutMs: 500,
    });
    const replicaManager: ReplicaManager<UnifiedLog> = new ReplicaManager<UnifiedLog>({
      localBrokerId: this.id, scheduler: time, openLeaderEpochCache: (log) => LeaderEpochFileCache.open(disk, log.dir),
      alterPartitionSink: this.countingSink(alterPartitions, (): ReplicaManager<UnifiedLog> => replicaManager), replicaLagTimeMaxMs: this.settings.replicaLagTimeMaxMs,
      brokerEpochOf: (brokerId) => life.brokerEpochs.get(brokerId) ?? -1,
      // request.max.partitions.per.turn at its smallest: every Fetch or Produce of two partitions or
      // more is worked through in slices, and appends meanwhile wait in the FIFO (issue 15).
      requestSlicing: { maxPartitionsPerTurn: 1, defer: (task) => time.defer(task) },
    });
    const life: Life = {
      number, incarnationId: hex32(this.random), logManager, replicaManager, pending,
      fetchers: this.fetcherManager(pending, time), alterPartitions, time,
      brokerEpoch, metadataOffset: -1, topicIds: new Map(), brokerEpochs: new Map(), nextSequence: 0,
      lastHeartbeatMs: -Infinity, lastMetadataMs: -Infinity, lastRegisterMs: -Infinity, lastCheckpointMs: this.time.monotonicMs(), lastIsrCheckMs: this.time.monotonicMs(),
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
    this.powerLosses++;
    this.stopLife();
    this.disk.powerLoss('torn');
  }

  /** The sink the partitions propose through, counting shrinks and expansions for the figures. */
  private countingSink(sink: AlterPartitionSink, replicaManager: () => ReplicaManager<UnifiedLog>): AlterPartitionSink {
    return {
      submit: (item) => {
        const current = replicaManager().getPartition(item.topic, item.partition)?.isr.length ?? 0;
        const kind = item.newIsr.length > current ? 'isrExpand' : 'isrShrink';
        this.events[kind] = (this.events[kind] ?? 0) + 1;
        return sink.submit(item).then((result) => {
          // KIP-903: the controller refused a member whose registration changed since its fetches.
          if (result.errorCode === ErrorCode.INELIGIBLE_REPLICA) this.events.ineligibleReplica = (this.events.ineligibleReplica ?? 0) + 1;
          return result;
        });
      },
    };
  }

  private fetcherManager(pending: PendingRequests, time: LifeTime): ReplicaFetcherManager {
    const s = this.settings;
    const events = this.events;
    const count = (kind: string) => { events[kind] = (events[kind] ?? 0) + 1; };
    return new ReplicaFetcherManager({
      brokerId: this.id,
      settings: {
        numReplicaFetchers: s.numReplicaFetchers, replicaFetchWaitMaxMs: s.replicaFetchWaitMaxMs, replicaFetchMinBytes: 1,
        replicaFetchMaxBytes: s.replicaFetchMaxBytes, replicaFetchResponseMaxBytes: 10 * 1024 * 1024, replicaFetchBackoffMs: s.replicaFetchBackoffMs,
      },
      time,
      leaderEndPoint: (leaderId) => new SimLeaderEndPoint(leaderId, this.id, time, this.network, pending, s.replicaSocketTimeoutMs),
      logger: {
        info: (_fields: object, message: string) => { if (message.includes('truncating') || message.includes('afresh')) count('truncation'); },
        warn: () => {},
        error: (fields: object, message: string) => {
          count('fetcherError');
          if (message.includes('fetcher failed')) this.onBug(`broker ${this.id}: ${message}: ${String((fields as { err?: unknown }).err)}`);
        },
      },
    });
  }

  private stopLife(): void {
    const life = this.life;
    if (life === undefined) return;
    life.fetchers.shutdown();
    life.alterPartitions.shutdown();
    // The process is gone: its memory (index arena regions, file handles) with it; nothing is written.
    for (const log of life.logManager.allLogs()) {
      invalidateBatchIndex(log);
      log.closeWithoutFlush();
    }
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
    if (nowMs - life.lastIsrCheckMs >= s.replicaLagTimeMaxMs / 2) {
      // Kafka's isr-expiration task, every replica.lag.time.max.ms / 2.
      life.lastIsrCheckMs = nowMs;
      life.replicaManager.maybeShrinkIsr();
    }
    if (nowMs - life.lastCheckpointMs >= 500) {
      life.lastCheckpointMs = nowMs;
      life.logManager.checkpointAll();
    }
  }

  private sendToController(life: Life, body: ReplicationBody): void {
    this.network.send({ source: this.id, destination: CONTROLLER_NODE_ID, body, sequence: life.number * 1e9 + life.nextSequence++ });
  }

  private receive(life: Life, envelope: ReplicationEnvelope): void {
    const body = envelope.body;
    switch (body.kind) {
      case 'fetch':
        if (life.brokerEpoch >= 0) this.answerFetch(life, envelope.source, body, this.time.monotonicMs() + body.request.maxWaitMs);
        return;
      case 'listOffsets': {
        if (life.brokerEpoch < 0) return;
        const offset = answerReplicaListOffsets(life.replicaManager, body.topic, body.partition, body.currentLeaderEpoch, body.timestamp);
        this.network.send({ source: this.id, destination: envelope.source, body: { kind: 'listOffsetsResponse', requestId: body.requestId, offset } });
        return;
      }
      case 'fetchResponse':
      case 'listOffsetsResponse':
        life.pending.settle(body.requestId, body);
        return;
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
        life.pending.settle(body.requestId, body);
        return;
      default:
        return;
    }
  }

  /** Answers a replica Fetch now, or (nothing to send yet) polls every 2 ms until `deadlineMs` (replica.fetch.wait.max.ms). */
  private answerFetch(life: Life, replicaId: number, body: ReplicaFetchBody, deadlineMs: number): void {
    const nowMs = this.time.monotonicMs();
    const response = answerReplicaFetch(life.replicaManager, replicaId, body.request, nowMs);
    if (isEmptyAnswer(response) && nowMs < deadlineMs) {
      this.time.setTimeout(() => { if (this.life === life) this.answerFetch(life, replicaId, body, deadlineMs); }, 2);
      return;
    }
    this.network.send({ source: this.id, destination: replicaId, body: { kind: 'fetchResponse', requestId: body.requestId, response } });
  }

  /** The BrokerMetadataPublisher's part: leader or follower for every changed partition this broker holds. */
  private applyMetadata(life: Life, metadata: MetadataResponseBody): void {
    life.metadataOffset = metadata.offset;
    life.brokerEpochs = new Map(metadata.brokers.map((b) => [b.brokerId, b.brokerEpoch]));
    for (const topic of metadata.topics) {
      life.topicIds.set(topic.name, topic.topicId);
      for (const registration of topic.partitions) this.applyPartition(life, topic.name, registration);
    }
  }

  private applyPartition(life: Life, topic: string, registration: PartitionRegistration): void {
    const replicaManager = life.replicaManager;
    const index = registration.partitionId;
    if (!registration.replicas.includes(this.id)) {
      // Reassigned away (the publisher's rule): stop fetching, drop the Partition, delete the log.
      if (replicaManager.getPartition(topic, index) === undefined) return;
      life.fetchers.removeFetcherForPartitions([{ topic, partition: index }]);
      replicaManager.removePartition(topic, index);
      life.logManager.deleteLogs([{ topic, partition: index }]);
      this.events.replicaDeleted = (this.events.replicaDeleted ?? 0) + 1;
      return;
    }
    const existing = replicaManager.getPartition(topic, index);
    if (existing !== undefined && existing.leaderEpoch === registration.leaderEpoch && existing.partitionEpoch === registration.partitionEpoch) return;
    // As the broker's publisher: no fsync at creation, the controller's metadata recreates a lost log.
    const log = life.logManager.getOrCreateLog(topic, index, this.settings.logConfig, 'first-flush');
    const state = {
      topic, partition: index, log, leaderEpoch: registration.leaderEpoch, partitionEpoch: registration.partitionEpoch,
      replicas: registration.replicas, isr: registration.isr, topicId: life.topicIds.get(topic) ?? '',
      // As the broker's publisher: a new Partition recovers its producer state from the snapshots
      // and the log tail on this disk, so idempotent retries are recognised across lives.
      ...(existing?.log === log ? {} : { producerState: new ProducerStateManager({ dir: log.dir, disk: this.disk }) }),
    };
    if (registration.leader === this.id && existing?.isLeader !== true) this.events.becameLeader = (this.events.becameLeader ?? 0) + 1;
    if (registration.leader === this.id) {
      replicaManager.becomeLeader(state);
      life.fetchers.removeFetcherForPartitions([{ topic, partition: index }]);
    } else {
      const partition = replicaManager.becomeFollower({ ...state, leaderId: registration.leader });
      if (registration.leader < 0 || partition.leaderEpoch !== registration.leaderEpoch) {
        life.fetchers.removeFetcherForPartitions([{ topic, partition: index }]);
      } else {
        life.fetchers.addFetcherForPartitions([{ replica: this.fetcherReplicaOf(partition), leaderId: registration.leader, leaderEpoch: registration.leaderEpoch }]);
      }
    }
  }

  private fetcherReplicaOf(partition: Partition): FetcherReplica {
    let replica = this.fetcherReplicas.get(partition);
    if (replica === undefined) {
      replica = new FetcherReplica(partition);
      this.fetcherReplicas.set(partition, replica);
    }
    return replica;
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
