/**
 * The console as the broker mounts it on its HTTP listeners: its Kafka clients, the 1 s
 * throughput sampler and the page's files, behind one {@link HttpApplication} at `/console`
 * (with the Host check against DNS rebinding). Loaded only when `http.listeners` is set.
 *
 * Throughput comes from the broker's counters when it has them (`throughput`); until then from
 * the partitions this broker leads: messages in = the sum of their log end offsets, bytes in =
 * the sum of their log sizes (both only ever compared between two samples), no bytes out.
 */
import type { BrokerAddress } from '../clients/transport/transport.js';
import type { BrokerConfig } from '../config/broker-config.js';
import type { Environment } from '../io/environment.js';
import type { HttpApplicationMount } from '../network/http-applications.js';
import type { RequestHandler } from '../network/network-types.js';
import { defaultConsoleAssetsDir, loadConsoleAssets } from './console-assets.js';
import { CONSOLE_PREFIX, ConsoleApplication } from './console-application.js';
import { ConsoleClients } from './console-clients.js';
import type { GroupLagSource } from './console-groups.js';
import { ThroughputSampler, type ThroughputTotals } from './throughput-sampler.js';

/** What the fallback throughput reads of a partition. */
export interface SampledPartition {
  readonly topic: string;
  readonly partition: number;
  readonly isLeader: boolean;
  readonly logEndOffset: number;
  readonly log: { readonly size: number };
}

export interface ConsoleMountOptions {
  readonly config: Pick<BrokerConfig, 'nodeId' | 'consoleWriteEnable'>;
  readonly environment: Pick<Environment, 'time' | 'disk'>;
  readonly handler: RequestHandler;
  /** The client listener whose endpoints Metadata gives the console. */
  readonly listenerName: string;
  /** This broker's advertised endpoints (known once it registered). */
  readonly ownEndpoints: () => readonly BrokerAddress[];
  /** The partitions this broker holds (ReplicaManager). */
  readonly partitions: {
    allPartitions(): readonly SampledPartition[];
    getPartition(topic: string, partition: number): SampledPartition | undefined;
  };
  /** The broker's cumulative counters, when it keeps them. */
  readonly throughput?: () => ThroughputTotals;
  readonly groupLag?: () => GroupLagSource | null;
  /** Where the page's files are; default dist/console of this package. */
  readonly assetsDir?: string;
}

/** Builds the console's mount and starts its sampler (stopped by the application's close()). */
export function createConsoleMount(options: ConsoleMountOptions): HttpApplicationMount {
  const { environment, partitions } = options;
  const clients = new ConsoleClients({ handler: options.handler, listenerName: options.listenerName, ownEndpoints: options.ownEndpoints });
  const sampler = new ThroughputSampler({ time: environment.time, totals: options.throughput ?? (() => leaderLogTotals(partitions.allPartitions())) });
  sampler.start();
  const application = new ConsoleApplication({
    clients,
    sampler,
    writeEnabled: options.config.consoleWriteEnable,
    nodeId: options.config.nodeId,
    localLogSize: (topic, partition) => partitions.getPartition(topic, partition)?.log.size ?? null,
    assets: loadConsoleAssets(environment.disk, options.assetsDir ?? defaultConsoleAssetsDir(environment.disk)),
    ...(options.groupLag === undefined ? {} : { groupLag: options.groupLag }),
  });
  return {
    prefix: CONSOLE_PREFIX,
    checkHost: true,
    application: {
      handle: (request) => application.handle(request),
      close: async () => {
        sampler.stop();
        await clients.close();
      },
    },
  };
}

function leaderLogTotals(partitions: readonly SampledPartition[]): ThroughputTotals {
  let messagesIn = 0;
  let bytesIn = 0;
  for (const partition of partitions) {
    if (!partition.isLeader || partition.topic.startsWith('__')) continue;
    messagesIn += partition.logEndOffset;
    bytesIn += partition.log.size;
  }
  return { messagesIn, bytesIn, bytesOut: null, messagesOut: null };
}
