/**
 * The broker's replica fetchers (Kafka's ReplicaFetcherManager as BrokerServer builds it): a
 * {@link ReplicaFetcherManager} whose fetchers reach each source broker's inter-broker listener
 * (`inter.broker.listener.name`) at the endpoint of its registration in the MetadataCache, over
 * one {@link NodeChannels} per fetcher id (a fetcher's long-polling Fetch never queues another
 * fetcher's request on the same connection, as each Kafka fetcher thread has its own connection).
 */
import type { BrokerConfig } from '../config/broker-config.js';
import type { Environment } from '../io/environment.js';
import { NodeChannels, type NodeEndpoint } from '../network/node-channels.js';
import type { Logger } from '../observability/logger.js';
import { RemoteLeaderEndPoint } from '../replication/remote-leader-end-point.js';
import { ReplicaFetcherManager } from '../replication/replica-fetcher-manager.js';
import type { MetadataCache } from './metadata-cache.js';

/** The manager and what closes its connections. */
export interface ReplicaFetching {
  readonly manager: ReplicaFetcherManager;
  /** Stops every fetcher and closes their connections. */
  shutdown(): void;
}

/** Builds the fetcher manager of one broker (fetchers start when partitions are added). */
export function createReplicaFetching(config: BrokerConfig, environment: Environment, cache: MetadataCache, logger: Logger): ReplicaFetching {
  const settings = config.replicaFetcher;
  const channelsByFetcherId = new Map<number, NodeChannels>();
  const channels = (fetcherId: number): NodeChannels => {
    let set = channelsByFetcherId.get(fetcherId);
    if (set === undefined) {
      set = new NodeChannels({
        clientId: `broker-${config.nodeId}-fetcher-${fetcherId}`,
        time: environment.time,
        random: environment.random,
        network: environment.network,
        requestTimeoutMs: settings.replicaSocketTimeoutMs,
      });
      channelsByFetcherId.set(fetcherId, set);
    }
    return set;
  };
  const endpoint = (brokerId: number): NodeEndpoint | undefined => {
    const registration = cache.broker(brokerId);
    const found = registration?.endpoints.find((candidate) => candidate.name === config.interBrokerListenerName);
    return found === undefined ? undefined : { host: found.host, port: found.port };
  };
  const manager = new ReplicaFetcherManager({
    brokerId: config.nodeId,
    settings,
    time: environment.time,
    leaderEndPoint: (leaderId, fetcherId) => new RemoteLeaderEndPoint({
      brokerId: leaderId,
      replicaId: config.nodeId,
      channels: channels(fetcherId),
      endpoint,
      requestTimeoutMs: settings.replicaSocketTimeoutMs,
    }),
    logger,
  });
  return {
    manager,
    shutdown(): void {
      manager.shutdown();
      for (const set of channelsByFetcherId.values()) set.close();
      channelsByFetcherId.clear();
    },
  };
}
