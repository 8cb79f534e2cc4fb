/**
 * The broker's replica fetchers, loaded when first needed: a single node (the `npm start`
 * default) never follows another broker, so it never loads the fetcher, its Fetch codec and the
 * inter-broker channels, which keeps its start-up as fast as before replication. The first
 * partition this broker follows imports replica-fetching.ts; the calls made while it loads are
 * queued and replayed in order, so the publisher sees one synchronous manager either way.
 */
import type { BrokerConfig } from '../config/broker-config.js';
import type { Environment } from '../io/environment.js';
import type { Logger } from '../observability/logger.js';
import type { FollowerFetchTarget } from '../replication/replica-fetcher-manager.js';
import type { MetadataCache } from './metadata-cache.js';
import type { ReplicaFetching } from './replica-fetching.js';

type PartitionRef = { topic: string; partition: number };
type Queued = { add: readonly FollowerFetchTarget[] } | { remove: readonly PartitionRef[] };

/** What the BrokerMetadataPublisher asks of the fetchers (ReplicaFetcherManager's calls). */
export interface ReplicaFetchers {
  addFetcherForPartitions(targets: readonly FollowerFetchTarget[]): void;
  removeFetcherForPartitions(partitions: readonly PartitionRef[]): void;
}

/** {@link ReplicaFetchers} that import and build the real manager on the first partition to follow. */
export class LazyReplicaFetching implements ReplicaFetchers {
  private loaded: ReplicaFetching | null = null;
  private queue: Queued[] | null = null;
  private stopped = false;

  constructor(
    private readonly config: BrokerConfig,
    private readonly environment: Environment,
    private readonly cache: MetadataCache,
    private readonly logger: Logger,
  ) {}

  addFetcherForPartitions(targets: readonly FollowerFetchTarget[]): void {
    if (this.stopped || targets.length === 0) return;
    if (this.loaded !== null) {
      this.loaded.manager.addFetcherForPartitions(targets);
      return;
    }
    this.enqueue({ add: targets });
  }

  removeFetcherForPartitions(partitions: readonly PartitionRef[]): void {
    if (this.stopped || partitions.length === 0) return;
    if (this.loaded !== null) this.loaded.manager.removeFetcherForPartitions(partitions);
    // Before the first add nothing is fetched, so there is nothing to remove.
    else if (this.queue !== null) this.queue.push({ remove: partitions });
  }

  /** Stops every fetcher and closes their connections; later calls do nothing. */
  shutdown(): void {
    this.stopped = true;
    this.queue = null;
    this.loaded?.shutdown();
  }

  private enqueue(operation: Queued): void {
    if (this.queue !== null) {
      this.queue.push(operation);
      return;
    }
    this.queue = [operation];
    import('./replica-fetching.js').then(({ createReplicaFetching }) => {
      if (this.stopped) return;
      const loaded = createReplicaFetching(this.config, this.environment, this.cache, this.logger);
      this.loaded = loaded;
      const queued = this.queue ?? [];
      this.queue = null;
      for (const queuedOperation of queued) {
        if ('add' in queuedOperation) loaded.manager.addFetcherForPartitions(queuedOperation.add);
        else loaded.manager.removeFetcherForPartitions(queuedOperation.remove);
      }
    }, (error: unknown) => {
      this.logger.error({ err: error }, 'the replica fetchers could not be loaded; followers will not fetch');
    });
  }
}
