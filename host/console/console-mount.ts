/**
 * The console as the broker mounts it on its HTTP listeners: its Kafka clients, the 1 s
 * throughput sampler and the page's files, behind one {@link HttpApplication} at `/console`
 * (with the Host check against DNS rebinding). Loaded only when `http.listeners` is set.
 *
 * The sampler starts with the broker (the charts show the last minutes, watched or not); the
 * application, its Kafka clients (the client library, about 45 modules) and the page's files load
 * with the first request to `/console`, so the quick start (`npm start`, HTTP listener on) does
 * not pay for them at start-up.
 *
 * Throughput comes from the broker's request counters (host/metrics/broker-topic-metrics.ts, the
 * numbers /metrics exports): read once a second, whoever watches.
 */
import type { BrokerAddress } from '../clients/transport/transport.js';
import type { BrokerConfig } from '../config/broker-config.js';
import type { Environment } from '../io/environment.js';
import type { HttpApplicationMount } from '../network/http-applications.js';
import type { RequestHandler } from '../network/network-types.js';
import type { ConsoleApplication } from './console-application.js';
import type { ConsoleClients } from './console-clients.js';
import type { GroupLagSource } from './console-groups.js';
import type { ConsoleTopicState, LocalReplica } from './console-topics-page.js';
import { ThroughputSampler, type ThroughputTotals } from './throughput-sampler.js';

export interface ConsoleMountOptions {
  readonly config: Pick<BrokerConfig, 'nodeId' | 'consoleWriteEnable' | 'consoleTopicsPageSize' | 'consoleTopicsMaxPageSize' | 'consoleTopicsMaxPagePartitions'>;
  readonly environment: Pick<Environment, 'time' | 'disk'>;
  readonly handler: RequestHandler;
  /** The client listener whose endpoints Metadata gives the console. */
  readonly listenerName: string;
  /** This broker's advertised endpoints (known once it registered). */
  readonly ownEndpoints: () => readonly BrokerAddress[];
  /**
   * The broker's metadata (MetadataCache): every topic in name order (JavaScript string order), a
   * shared array replaced, never modified, on a change.
   */
  readonly metadata: { topics(): readonly ConsoleTopicState[] };
  /** The partitions this broker holds (ReplicaManager). */
  readonly partitions: { getPartition(topic: string, partition: number): LocalReplica | undefined };
  /** The broker's cumulative counters. */
  readonly throughput: () => ThroughputTotals;
  /** Lag in seconds and group status (the broker's consumer lag monitor), for the groups it knows. */
  readonly groupLag?: GroupLagSource;
  /** Where the page's files are; default dist/console of this package. */
  readonly assetsDir?: string;
}

/** Where the console is mounted (console-application.ts's CONSOLE_PREFIX, checked when it loads). */
const CONSOLE_MOUNT_PREFIX = '/console';

/**
 * Builds the console's mount and starts its sampler (stopped by the application's close()); the
 * application loads with the first request (see the file header).
 */
export function createConsoleMount(options: ConsoleMountOptions): HttpApplicationMount {
  const { environment, partitions } = options;
  const sampler = new ThroughputSampler({ time: environment.time, totals: options.throughput });
  sampler.start();
  let clients: ConsoleClients | null = null;
  let loading: Promise<ConsoleApplication> | null = null;
  const load = (): Promise<ConsoleApplication> => {
    loading ??= Promise.all([import('./console-application.js'), import('./console-clients.js'), import('./console-assets.js')])
      .then(([{ CONSOLE_PREFIX, ConsoleApplication }, { ConsoleClients }, { defaultConsoleAssetsDir, loadConsoleAssets }]) => {
        if (CONSOLE_PREFIX !== CONSOLE_MOUNT_PREFIX) throw new Error(`console mounted at ${CONSOLE_MOUNT_PREFIX}, serving ${CONSOLE_PREFIX}`);
        clients = new ConsoleClients({ handler: options.handler, listenerName: options.listenerName, ownEndpoints: options.ownEndpoints });
        return new ConsoleApplication({
          clients,
          sampler,
          writeEnabled: options.config.consoleWriteEnable,
          nodeId: options.config.nodeId,
          topicsPage: {
            pageSize: options.config.consoleTopicsPageSize,
            maxPageSize: options.config.consoleTopicsMaxPageSize,
            maxPagePartitions: options.config.consoleTopicsMaxPagePartitions,
          },
          topics: {
            topics: () => options.metadata.topics(),
            localReplica: (topic, partition) => partitions.getPartition(topic, partition),
            defer: (task) => environment.time.defer(task),
          },
          localLogSize: (topic, partition) => partitions.getPartition(topic, partition)?.log.size ?? null,
          assets: loadConsoleAssets(environment.disk, options.assetsDir ?? defaultConsoleAssetsDir(environment.disk)),
          ...(options.groupLag === undefined ? {} : { groupLag: options.groupLag }),
        });
      });
    return loading;
  };
  return {
    prefix: CONSOLE_MOUNT_PREFIX,
    checkHost: true,
    application: {
      handle: async (request) => (await load()).handle(request),
      close: async () => {
        sampler.stop();
        await loading?.catch(() => undefined);
        await clients?.close();
      },
    },
  };
}
