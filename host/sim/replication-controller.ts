/**
 * SimController: the real {@link QuorumController} over an {@link InMemoryMetadataLog} (one voter,
 * commits at once: the Raft simulation covers the quorum), on the simulated network as node
 * {@link CONTROLLER_NODE_ID}. It answers broker registrations (fenced, as remote brokers register;
 * a restarted broker gets DUPLICATE_BROKER_REGISTRATION until its old session expired and it was
 * fenced, which takes it out of every ISR and moves its leaderships), heartbeats (which unfence),
 * AlterPartition from partition leaders, and metadata requests with the committed partition
 * registrations. Every `sessionCheckMs` it expires broker sessions (broker.session.timeout.ms).
 * The controller itself is never faulted here; messages to and from it are.
 */
import { InMemoryMetadataLog } from '../controller/in-memory-metadata-log.js';
import { QuorumController } from '../controller/quorum-controller.js';
import type { ManualTime } from '../io/time.js';
import type { SeededRandom } from '../io/random.js';
import { CONTROLLER_NODE_ID, type MetadataResponseBody, type ReplicationBody, type ReplicationEnvelope } from './replication-messages.js';
import type { SimNetwork } from './sim-network.js';

export interface SimControllerOptions {
  readonly brokerIds: readonly number[];
  readonly sessionTimeoutMs: number;
  readonly uncleanLeaderElectionEnable: boolean;
}

export class SimController {
  readonly controller: QuorumController;
  /** Brokers fenced by session expiry, for the campaign figures. */
  sessionExpiries = 0;
  /** The last request sequence taken per broker (see ReplicationEnvelope.sequence). */
  private readonly lastSequence = new Map<number, number>();

  constructor(
    private readonly time: ManualTime,
    random: SeededRandom,
    private readonly network: SimNetwork<ReplicationEnvelope>,
    readonly options: SimControllerOptions,
  ) {
    this.controller = new QuorumController({
      config: { nodeId: CONTROLLER_NODE_ID, numPartitions: 1, defaultReplicationFactor: options.brokerIds.length, deleteTopicEnable: true, uncleanLeaderElectionEnable: options.uncleanLeaderElectionEnable },
      log: new InMemoryMetadataLog({ localId: CONTROLLER_NODE_ID }),
      clock: time,
      random,
      brokerSessionTimeoutMs: options.sessionTimeoutMs,
    });
    network.attach(CONTROLLER_NODE_ID, (envelope) => this.receive(envelope));
  }

  /** Registers every broker unfenced and creates the topics (the cluster as first started). */
  async bootstrap(topics: readonly { name: string; partitions: number; replicationFactor: number }[]): Promise<Map<number, number>> {
    const epochs = new Map<number, number>();
    for (const brokerId of this.options.brokerIds) {
      const result = await this.controller.registerBroker({ brokerId, endpoints: [endpoint(brokerId)], fenced: false });
      if (result.errorCode !== 0) throw new Error(`registerBroker ${brokerId}: ${result.errorMessage}`);
      epochs.set(brokerId, result.brokerEpoch);
    }
    const created = await this.controller.createTopics(topics.map((t) => ({ name: t.name, numPartitions: t.partitions, replicationFactor: t.replicationFactor, assignments: [] })));
    for (const result of created) if (result.errorCode !== 0) throw new Error(`createTopics: ${result.errorMessage}`);
    this.scheduleSessionCheck();
    return epochs;
  }

  /** The committed registrations of every topic (what a broker's metadata cache would hold). */
  metadata(): MetadataResponseBody {
    const image = this.controller.image;
    return {
      kind: 'metadataResponse',
      offset: this.controller.lastCommittedOffset,
      topics: image.topics().map((topic) => ({ name: topic.name, topicId: topic.topicId, partitions: topic.partitions })),
      brokers: image.brokers().map((b) => ({ brokerId: b.brokerId, brokerEpoch: b.brokerEpoch })),
    };
  }

  private scheduleSessionCheck(): void {
    this.time.setTimeout(() => {
      void this.controller.expireBrokerSessions().then((fenced) => { this.sessionExpiries += fenced.length; });
      this.scheduleSessionCheck();
    }, 100);
  }

  private reply(destination: number, body: ReplicationBody): void {
    this.network.send({ source: CONTROLLER_NODE_ID, destination, body });
  }

  private receive(envelope: ReplicationEnvelope): void {
    const { source, body } = envelope;
    const sequence = envelope.sequence ?? 0;
    if (sequence <= (this.lastSequence.get(source) ?? -1)) return;
    this.lastSequence.set(source, sequence);
    const controller = this.controller;
    switch (body.kind) {
      case 'register':
        void controller.registerBroker({ brokerId: source, incarnationId: body.incarnationId, endpoints: [endpoint(source)], fenced: true })
          .then((result) => this.reply(source, { kind: 'registerResponse', incarnationId: body.incarnationId, errorCode: result.errorCode, brokerEpoch: result.brokerEpoch }));
        return;
      case 'heartbeat':
        void controller.brokerHeartbeat({ brokerId: source, brokerEpoch: body.brokerEpoch, currentMetadataOffset: body.currentMetadataOffset, wantFence: false, wantShutDown: false })
          .then((reply) => this.reply(source, { kind: 'heartbeatResponse', brokerEpoch: body.brokerEpoch, errorCode: reply.errorCode, isFenced: reply.isFenced }));
        return;
      case 'alterPartition':
        void controller.alterPartition(body.request, 3)
          .then((response) => this.reply(source, { kind: 'alterPartitionResponse', requestId: body.requestId, response }));
        return;
      case 'metadata':
        this.reply(source, this.metadata());
        return;
      default:
        return;
    }
  }
}

function endpoint(brokerId: number): { name: string; host: string; port: number; securityProtocol: number } {
  return { name: 'PLAINTEXT', host: 'sim', port: 9092 + brokerId, securityProtocol: 0 };
}
