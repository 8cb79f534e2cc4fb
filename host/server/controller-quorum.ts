/**
 * ControllerQuorum: this node's seat in a multi-voter KRaft quorum (Kafka's KafkaRaftManager with
 * the CONTROLLER listener of its ControllerServer), built when `controller.quorum.voters` names
 * more than one voter. The single-voter default keeps the embedded UnifiedLogMetadataLog.
 *
 * Parts, in start order:
 * - `__cluster_metadata-0` on disk as a {@link FileRaftLog} (in this node's LogManager) and the
 *   `quorum-state` file beside it ({@link FileQuorumStateStore});
 * - a {@link RaftClient} with Kafka's `controller.quorum.*` timings;
 * - {@link NodeChannels} to every other voter, at the address `controller.quorum.voters` gives;
 * - a {@link RaftDriver} running the client on this node's clock and network;
 * - one SocketServer per controller listener (`controller.listener.names`), answering ApiVersions,
 *   the Raft RPCs and whatever `extraApis` adds (broker registration and heartbeats).
 *
 * The QuorumController sits on {@link ControllerQuorum.metadataLog}; register it before
 * {@link ControllerQuorum.start} so it hears every committed batch from the start of the log.
 */
import { RequestDispatcher } from '../api/request-dispatcher.js';
import type { AnyApiDefinition } from '../api/api-definition.js';
import type { BrokerServices } from '../api/broker-services.js';
import type { BrokerConfig } from '../config/broker-config.js';
import type { Environment } from '../io/environment.js';
import type { LogManager } from '../log/log-manager.js';
import { NodeChannels } from '../network/node-channels.js';
import { SocketServer } from '../network/socket-server.js';
import { componentLogger, type Logger } from '../observability/logger.js';
import { FileQuorumStateStore } from '../raft/file-quorum-state-store.js';
import { FileRaftLog } from '../raft/file-raft-log.js';
import { RaftClient } from '../raft/raft-client.js';
import { raftConfig } from '../raft/raft-config.js';
import { RaftDriver, RaftRequestAbandoned } from '../raft/raft-driver.js';
import type { QuorumDescription } from '../api/broker-services.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { raftWire } from '../raft/raft-wire.js';
import { createRaftApiRegistry } from './controller-apis.js';
import { RaftMetadataLog } from './raft-metadata-log.js';

/** A bound controller listener. */
export interface BoundControllerListener {
  readonly name: string;
  readonly host: string;
  readonly port: number;
}

export interface ControllerQuorumOptions {
  readonly config: BrokerConfig;
  readonly clusterId: string;
  readonly logManager: LogManager;
  readonly environment: Environment;
  readonly rootLogger: Logger;
  /** Handed to the controller listener's dispatcher (its handlers do not use broker services). */
  readonly services?: BrokerServices;
}

/** This node's Raft seat; see the file header. */
export class ControllerQuorum {
  readonly raft: RaftClient;
  readonly metadataLog: RaftMetadataLog;
  readonly channels: NodeChannels;
  private readonly driver: RaftDriver;
  private readonly servers: SocketServer[] = [];
  private readonly options: ControllerQuorumOptions;
  private readonly logger: Logger;
  private readonly extraApis: AnyApiDefinition[] = [];
  /** Controller listeners as bound, in config order. */
  readonly bound: BoundControllerListener[] = [];

  constructor(options: ControllerQuorumOptions) {
    this.options = options;
    const { config, environment, logManager, clusterId } = options;
    this.logger = componentLogger(options.rootLogger, 'raft');
    const log = FileRaftLog.openInLogManager(logManager, { clock: environment.time, logConfig: { segmentBytes: config.metadataLogSegmentBytes } });
    const store = FileQuorumStateStore.open(logManager.context.disk, log.unifiedLog.dir);
    this.raft = new RaftClient({
      config: raftConfig({
        nodeId: config.nodeId,
        voters: config.controllerQuorumVoters.map((voter) => voter.id),
        clusterId,
        electionTimeoutMs: config.controllerQuorumElectionTimeoutMs,
        fetchTimeoutMs: config.controllerQuorumFetchTimeoutMs,
        electionBackoffMaxMs: config.controllerQuorumElectionBackoffMaxMs,
        appendLingerMs: config.controllerQuorumAppendLingerMs,
        requestTimeoutMs: config.controllerQuorumRequestTimeoutMs,
      }),
      log, store, time: environment.time, random: environment.random,
    });
    this.metadataLog = new RaftMetadataLog(this.raft, () => environment.time.nowMs());
    this.channels = new NodeChannels({
      clientId: `raft-client-${config.nodeId}`,
      time: environment.time,
      random: environment.random,
      network: environment.network,
      requestTimeoutMs: config.controllerQuorumRequestTimeoutMs,
    });
    for (const voter of config.controllerQuorumVoters) {
      if (voter.id !== config.nodeId) this.channels.setEndpoint(voter.id, { host: voter.host, port: voter.port });
    }
    this.driver = new RaftDriver({
      nodeId: config.nodeId,
      node: this.raft,
      transport: this.channels,
      wire: raftWire(() => environment.time.nowMs()),
      time: environment.time,
      requestTimeoutMs: config.controllerQuorumRequestTimeoutMs,
      onFatal: (error) => this.logger.error({ err: error }, 'the Raft node failed; this controller stops taking part in the quorum'),
    });
  }

  /** Adds APIs the controller listener serves besides the Raft RPCs (call before {@link start}). */
  addApis(apis: readonly AnyApiDefinition[]): void {
    this.extraApis.push(...apis);
  }

  /**
   * Binds the controller listeners and starts the Raft node.
   * @throws the listener's error (EADDRINUSE, ...) when a controller port cannot be bound
   */
  async start(): Promise<void> {
    const { config, rootLogger, environment } = this.options;
    const wire = raftWire(() => environment.time.nowMs());
    const registry = createRaftApiRegistry(wire, this.driver, this.extraApis);
    const dispatcher = new RequestDispatcher({
      registry,
      broker: this.options.services ?? ({} as BrokerServices),
      logger: componentLogger(rootLogger, 'controller-api'),
      time: environment.time,
    });
    for (const listener of config.listeners.filter((l) => config.controllerListenerNames.includes(l.name))) {
      const server = new SocketServer({
        host: listener.host === '' ? '0.0.0.0' : listener.host,
        port: listener.port,
        listenerName: listener.name,
        handler: dispatcher.handle,
        socketRequestMaxBytes: config.socketRequestMaxBytes,
        logger: componentLogger(rootLogger, 'controller-socket-server'),
      });
      this.servers.push(server);
      const address = await server.start();
      this.bound.push({ name: listener.name, host: listener.host, port: address.port });
    }
    this.warnOnOwnVoterMismatch();
    // This node's own broker (and its forwarder) reach its controller like any other.
    const own = this.bound[0];
    if (own !== undefined) this.channels.setEndpoint(config.nodeId, { host: own.host === '' ? '127.0.0.1' : own.host, port: own.port });
    this.driver.start();
    const voters = config.controllerQuorumVoters.map((v) => `${v.id}@${v.host}:${v.port}`).join(',');
    this.logger.info({ voters, listeners: this.bound }, `controller quorum member ${config.nodeId} started (voters ${voters})`);
  }

  /**
   * The other voters reach this node at its own `controller.quorum.voters` entry; when no bound
   * controller listener has that port, they probably cannot (a typo), unless something forwards
   * it (a proxy or NAT). Logged, not refused, for the second case.
   */
  private warnOnOwnVoterMismatch(): void {
    const { config } = this.options;
    const own = config.controllerQuorumVoters.find((voter) => voter.id === config.nodeId);
    if (own === undefined || this.bound.some((listener) => listener.port === own.port)) return;
    const bound = this.bound.map((l) => `${l.name}://${l.host}:${l.port}`).join(', ') || 'none';
    this.logger.warn({ voter: own, listeners: this.bound },
      `controller.quorum.voters names this node (${own.id}) at ${own.host}:${own.port}, but its controller listeners are ${bound}: other voters may not reach it`);
  }

  /**
   * DescribeQuorum as the quorum's leader answers it (this node's driver when it leads, else the
   * leader's CONTROLLER listener): NOT_LEADER_OR_FOLLOWER (6) while no leader is known, or when the
   * leader cannot be reached; REQUEST_TIMED_OUT (7) when it does not answer.
   */
  async describeQuorum(): Promise<QuorumDescription> {
    const { config, environment } = this.options;
    const { leaderId, epoch } = this.metadataLog.leaderAndEpoch();
    const failed = (errorCode: number): QuorumDescription => ({ errorCode, leaderId, leaderEpoch: epoch, highWatermark: -1, currentVoters: [], observers: [] });
    if (leaderId < 0) return failed(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    if (leaderId === config.nodeId) {
      try {
        return await this.driver.handleRequest('DescribeQuorum', {});
      } catch (error) {
        if (error instanceof RaftRequestAbandoned) return failed(ErrorCode.REQUEST_TIMED_OUT);
        throw error;
      }
    }
    const wire = raftWire(() => environment.time.nowMs()).DescribeQuorum;
    const remote = { apiKey: wire.apiKey, name: wire.api, encodeRequest: wire.encodeRequest, decodeResponse: wire.decodeResponse };
    const result = await this.channels.send(leaderId, remote, wire.version, {});
    if (result.kind === 'response') return result.body;
    return failed(result.kind === 'timeout' ? ErrorCode.REQUEST_TIMED_OUT : ErrorCode.NOT_LEADER_OR_FOLLOWER);
  }

  /** Stops the Raft node, the channels and the controller listeners. Idempotent. */
  async stop(): Promise<void> {
    this.driver.stop();
    this.channels.close();
    await Promise.all(this.servers.splice(0).map((server) => server.stop(2000)));
  }
}
