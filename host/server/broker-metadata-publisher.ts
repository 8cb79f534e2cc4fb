/**
 * Kafka's BrokerMetadataPublisher, in small: it hears the committed metadata changes (a
 * {@link MetadataListener} on the controller's metadata listener today; on the replicated
 * metadata log's replay once brokers and controllers are separate), writes them into the broker's
 * {@link MetadataCache}, and applies the topic changes to this broker's storage and partitions:
 *
 *   topic created / partitions added / moved / configs changed (Kafka's applyDelta)
 *       → for every partition whose replicas include this broker: its log created where missing
 *         (one batch for the topic), its log config updated, then
 *           leaderId === nodeId → becomeLeader (ISR, partition epoch), its fetcher stopped
 *           another leader      → becomeFollower, fetched from that leader (ReplicaFetcherManager)
 *           leaderId -1         → becomeFollower with no leader: nothing fetched until one is elected
 *       → partitions whose replicas no longer include this broker (reassigned away): fetching
 *         stopped, Partition removed, its log deleted (Kafka's stopReplicas with deletion)
 *       → `__consumer_offsets`: the group coordinator loads the groups of the partitions this
 *         broker leads (onElection) and unloads those it stopped leading (onResignation);
 *         partitions added to a topic: the coordinator re-checks the groups subscribed to it
 *   topic deleted → fetching stopped, partitions removed, logs deleted (one checkpoint write), groups told
 *   broker registered / fenced / unregistered → the cache's broker list
 *
 * Large changes are applied in slices of `metadata.apply.max.partitions.per.turn` (default 8)
 * partitions that yield to the event loop between them (sliced-work-queue.ts), in the order the
 * changes were published: a topic of 5,000 partitions does not hold the event loop for the seconds
 * its directories take (each new partition makes a directory and three files, 1-4 ms on a busy
 * disk); the cache (what Metadata answers) has the whole change at once, the partitions become
 * produceable slice by slice (NOT_LEADER_OR_FOLLOWER, retriable, until theirs has run), and the
 * group coordinator hears of added or deleted partitions after the last slice. The broker's own
 * CreateTopics / CreatePartitions answers wait for {@link BrokerMetadataPublisher.whenApplied}
 * (controller-cluster-metadata.ts), so a client told "created" by this broker can use every
 * partition this broker leads at once. Each slice is timed by the event-loop watchdog
 * (`cause: "metadata.apply"` on a stall line).
 *
 * Order: {@link start} loads the cache from the first image without touching storage; the
 * broker then sets aside stray logs and calls {@link applyAllTopics}; changes published in
 * between (the broker's own registration electing it leader) are applied as they come, as before.
 */
import type { TopicState } from '../api/cluster-metadata.js';
import { type BrokerConfig, withDynamicBrokerConfigs } from '../config/broker-config.js';
import { toLogConfig } from '../config/topic-config.js';
import type { GroupCoordinator } from '../coordinator/group-coordinator.js';
import { OFFSETS_TOPIC_NAME } from '../coordinator/offsets-topic.js';
import type { TransactionCoordinator } from '../coordinator/transaction-coordinator.js';
import { TRANSACTION_STATE_TOPIC_NAME } from '../coordinator/transaction-topic.js';
import type { BrokerRegistration, ConfigResource, MetadataImage, TopicImage } from '../controller/metadata-image.js';
import type { MetadataListener, PartitionsChange } from '../controller/metadata-listener.js';
import { ConfigResourceType } from '../controller/metadata-records.js';
import type { Disk } from '../io/disk.js';
import type { LogManager } from '../log/log-manager.js';
import { ProducerStateManager } from '../log/producer-state-manager.js';
import type { UnifiedLog } from '../log/unified-log.js';
import type { MetadataApplyTiming, MetadataApplyWork } from '../observability/event-loop-watchdog.js';
import type { Logger } from '../observability/logger.js';
import type { PartitionState } from '../api/cluster-metadata.js';
import type { FollowerFetchTarget } from '../replication/replica-fetcher-manager.js';
import type { ReplicaFetchers } from './lazy-replica-fetching.js';
import type { ReplicaManager } from '../replication/replica-manager.js';
import type { MetadataCache } from './metadata-cache.js';
import { SlicedWorkQueue, type WorkSlice } from './sliced-work-queue.js';

/** What one change did to a topic (Kafka's TopicDelta, reduced to what the broker applies). */
export interface TopicDelta {
  readonly name: string;
  /** Null when the topic was created. */
  readonly before: TopicState | null;
  /** Null when the topic was deleted. */
  readonly after: TopicState | null;
}

export interface BrokerMetadataPublisherOptions {
  readonly config: BrokerConfig;
  readonly cache: MetadataCache;
  readonly logManager: LogManager;
  readonly replicaManager: ReplicaManager<UnifiedLog>;
  /**
   * Follows the leadership of `__consumer_offsets` partitions; absent: handed over later by
   * {@link BrokerMetadataPublisher.attachGroupCoordinator} (the broker loads it on demand).
   */
  readonly groupCoordinator?: GroupCoordinator;
  /**
   * Hears that this broker leads a `__consumer_offsets` partition while no group coordinator is
   * attached (the broker loads one, which then takes the current leaderships).
   */
  readonly onGroupCoordinatorNeeded?: () => void;
  /** Follows the leadership of `__transaction_state` partitions; absent: no transaction coordinator. */
  readonly transactionCoordinator?: TransactionCoordinator;
  /** Follower partitions are fetched from their leaders through it. */
  readonly replicaFetcherManager: ReplicaFetchers;
  /** Where the Partitions' producer-state snapshots are read and written. */
  readonly producerStateDisk: Disk;
  readonly logger: Logger;
  /**
   * Runs a task in a later event-loop turn (the environment's `time.defer`): large changes are
   * applied in slices between which other work runs. Absent: every change is applied at once.
   */
  readonly defer?: (task: () => void) => void;
  /** Times every slice (the event-loop watchdog): one that stalls the loop is logged as `metadata.apply`. */
  readonly timing?: MetadataApplyTiming;
  /**
   * Hears this broker's configuration whenever its dynamic broker configs (KIP-226: ConfigRecords
   * of the BROKER resources "" and this node's id) change, and once at {@link start}.
   */
  readonly onBrokerConfigChanged?: (config: BrokerConfig) => void;
}

/** Applies published metadata to the broker's cache, logs and partitions. */
export class BrokerMetadataPublisher implements MetadataListener {
  /** The static configuration (server.properties / --override). */
  private readonly staticConfig: BrokerConfig;
  /** The configuration in effect: the static one with the dynamic broker configs over it. */
  private config: BrokerConfig;
  private readonly onBrokerConfigChanged: (config: BrokerConfig) => void;
  private readonly cache: MetadataCache;
  private readonly logManager: LogManager;
  private readonly replicaManager: ReplicaManager<UnifiedLog>;
  private groupCoordinator: GroupCoordinator | null;
  private readonly onGroupCoordinatorNeeded: () => void;
  /** Set by {@link applyAllTopics}: from then on a coordinator handed over takes the current leaderships. */
  private allTopicsApplied = false;
  private transactionCoordinator: TransactionCoordinator | null;
  private readonly fetchers: ReplicaFetchers;
  private readonly producerStateDisk: Disk;
  private readonly logger: Logger;
  private readonly work: SlicedWorkQueue;
  private readonly timing: MetadataApplyTiming | null;

  constructor(options: BrokerMetadataPublisherOptions) {
    this.staticConfig = options.config;
    this.config = options.config;
    this.onBrokerConfigChanged = options.onBrokerConfigChanged ?? (() => {});
    this.cache = options.cache;
    this.logManager = options.logManager;
    this.replicaManager = options.replicaManager;
    this.groupCoordinator = options.groupCoordinator ?? null;
    this.onGroupCoordinatorNeeded = options.onGroupCoordinatorNeeded ?? (() => {});
    this.transactionCoordinator = options.transactionCoordinator ?? null;
    this.fetchers = options.replicaFetcherManager;
    this.producerStateDisk = options.producerStateDisk;
    this.logger = options.logger;
    this.timing = options.timing ?? null;
    this.work = new SlicedWorkQueue(options.defer, (error) => {
      this.logger.error({ event: 'metadata.apply_failed', err: error }, 'applying a metadata change to local storage failed');
    });
  }

  /**
   * Resolves once every change published so far is applied to storage (all its slices ran);
   * changes published later do not delay it (a FIFO barrier: at most as many event-loop turns as
   * slices were waiting).
   */
  whenApplied(): Promise<void> {
    return this.work.whenRunThrough();
  }

  /** Slices of published changes not applied to storage yet. */
  get pendingSlices(): number {
    return this.work.pendingSlices;
  }

  /** Loads the cache from the first image (storage untouched: see {@link applyAllTopics}). */
  start(image: MetadataImage, controllerId: number): void {
    this.cache.loadImage(image, controllerId);
    this.applyDynamicBrokerConfigs(image);
  }

  /**
   * The dynamic broker configs of `image` over the static configuration (Kafka's
   * DynamicBrokerConfig): the configuration in effect, told to the broker. Returns true when it
   * changed.
   */
  private applyDynamicBrokerConfigs(image: MetadataImage): boolean {
    const clusterDefault = image.brokerConfigs('');
    const perBroker = image.brokerConfigs(String(this.staticConfig.nodeId));
    if (sameEntries(clusterDefault, this.config.dynamicDefaultConfigs) && sameEntries(perBroker, this.config.dynamicBrokerConfigs)) return false;
    this.config = withDynamicBrokerConfigs(this.staticConfig, clusterDefault, perBroker);
    this.onBrokerConfigChanged(this.config);
    this.logger.info({ event: 'config.dynamic_changed', clusterDefault: Object.fromEntries(clusterDefault), broker: Object.fromEntries(perBroker) },
      'dynamic broker configs changed');
    return true;
  }

  /**
   * Applies every topic in the cache to local storage and partitions (start-up), in one turn with
   * the log manager's fsyncs, renames and deletes deferred to one commit (LogManager.withDeferredSync:
   * two syncfs per log directory, or the same fsyncs in a crash-safe order). Opening a Partition
   * repairs its `leader-epoch-checkpoint` (PartitionLeaderEpochs.repair), and after a DeleteRecords
   * up to the high watermark every one of them is rewritten (its epoch started at the log end,
   * which is now also the log start): 10,000 partitions made 20,000 fsyncs here, one after the
   * other (issue 15: restarts of 18-141 s). Nothing is appended or fetched before this returns,
   * so every rewrite is durable before the partition takes a write, as before; a crash before the
   * commit leaves the old checkpoints, which the next open repairs again.
   */
  applyAllTopics(): void {
    this.allTopicsApplied = true;
    this.logManager.withDeferredSync(() => {
      for (const topic of this.cache.topics()) this.applyTopic(topic);
    });
  }

  // ---- MetadataListener: the controller's committed changes ----

  onTopicCreated(topic: TopicImage, image: MetadataImage): void {
    const after = this.cache.putTopic(topic, image.topicConfigs(topic.name));
    this.publishTopicDelta({ name: topic.name, before: null, after });
  }

  onTopicDeleted(topic: TopicImage): void {
    const before = this.cache.removeTopic(topic.name);
    if (before !== undefined) this.publishTopicDelta({ name: topic.name, before, after: null });
  }

  onPartitionsChanged(topic: TopicImage, change: PartitionsChange, image: MetadataImage): void {
    const after = this.cache.putTopic(topic, image.topicConfigs(topic.name));
    const before: TopicState = { ...after, partitions: after.partitions.slice(0, change.previousPartitionCount) };
    this.publishTopicDelta({ name: topic.name, before, after });
  }

  onConfigChanged(resource: ConfigResource, configs: ReadonlyMap<string, string>, image: MetadataImage): void {
    if (resource.type === ConfigResourceType.BROKER) {
      // Effective without restart (KIP-226): every hosted log gets its config again, with the
      // new broker defaults under the topics' own overrides.
      if (this.applyDynamicBrokerConfigs(image)) {
        for (const topic of this.cache.topics()) this.publishTopicDelta({ name: topic.name, before: topic, after: topic });
      }
      return;
    }
    if (resource.type !== ConfigResourceType.TOPIC) return;
    const topic = image.topic(resource.name);
    if (topic === undefined) return;
    const after = this.cache.putTopic(topic, configs);
    this.publishTopicDelta({ name: topic.name, before: after, after });
  }

  onBrokerChanged(brokerId: number, registration: BrokerRegistration | undefined): void {
    this.cache.putBroker(brokerId, registration);
  }

  // ---- applying to storage ----

  /** Applies one topic change (the cache has it already), in slices (see the file header). */
  publishTopicDelta(delta: TopicDelta): void {
    const { name, before, after } = delta;
    if (after !== null) {
      this.enqueueSliced(before === null ? 'create' : 'update', name, after.partitions, (partitions) => {
        // New partitions' directories are made on the thread pool first (NodeDisk), so the
        // timed, synchronous apply does no directory syscall for them.
        const hosted = partitions.filter((partition) => partition.replicas.includes(this.config.nodeId));
        return this.logManager.prepareLogDirectories(hosted.map((partition) => ({ topic: name, partition: partition.partition })));
      }, (partitions) => this.applyTopic({ ...after, partitions }), () => {
        if (before === null) {
          this.logger.info({ event: 'topic.created', topic: name, partitions: after.partitions.length }, `topic ${name} created`);
        } else if (after.partitions.length > before.partitions.length) {
          this.logger.info({ event: 'topic.partitions_added', topic: name, partitions: after.partitions.length },
            `topic ${name} now has ${after.partitions.length} partitions`);
          this.groupCoordinator?.onTopicPartitionsChanged([name]);
        }
      });
      return;
    }
    if (before !== null) {
      this.enqueueSliced('delete', name, before.partitions, null, (partitions) => {
        this.fetchers.removeFetcherForPartitions(partitions.map((partition) => ({ topic: name, partition: partition.partition })));
        for (const partition of partitions) this.replicaManager.removePartition(name, partition.partition);
        // Renamed away on the thread pool (NodeDisk): the queue waits for it before the next slice
        // (a topic recreated under the same name must not find these directories); one checkpoint
        // write per slice, not one per partition.
        const keys = partitions.map((partition) => ({ topic: name, partition: partition.partition }));
        return this.logManager.deleteLogsInBackground(keys) ?? this.logManager.deleteLogs(keys);
      }, () => {
        this.groupCoordinator?.onTopicsDeleted([name]);
        this.logger.info({ event: 'topic.deleted', topic: name }, `topic ${name} deleted`);
      });
    }
  }

  /**
   * Queues `apply` over `partitions` in runs of metadata.apply.max.partitions.per.turn, `last`
   * at the end of the last run, each run timed as one `op` slice of `topic`. `prepare` (optional)
   * starts a run's work off the event loop; the run's synchronous `apply` waits for it. `apply`
   * may itself end in such work (a promise): the queue waits for it before the next run.
   */
  private enqueueSliced(op: MetadataApplyWork['op'], topic: string, partitions: readonly PartitionState[],
    prepare: ((partitions: PartitionState[]) => Promise<void> | null) | null,
    apply: (partitions: PartitionState[]) => void | Promise<void>, last: () => void): void {
    const runs = chunks(partitions, this.config.metadataApplyMaxPartitionsPerTurn);
    const slices = withLast(runs.map((run) => () => apply(run)), last)
      .map((slice, i) => this.timed({ op, topic, partitions: runs[i]?.length ?? 0 }, slice));
    this.work.enqueue(slices.map((slice, i) => {
      if (prepare === null || runs[i] === undefined) return slice;
      // The directories of the next PREPARE_AHEAD_RUNS runs are made in one trip to the thread
      // pool (in parallel there): most runs then find theirs made and apply in the next turn.
      return () => {
        const ready = prepare(runs.slice(i, i + PREPARE_AHEAD_RUNS).flat());
        return ready === null ? slice() : ready.then(async () => {
          if (!this.logManager.isShutDown) await slice();
        });
      };
    }));
  }

  /**
   * `run` as a slice the watchdog times (a stall names `work`): its synchronous part, not the
   * thread-pool work its promise waits for; `run` itself when nothing times.
   */
  private timed(work: MetadataApplyWork, run: WorkSlice): WorkSlice {
    const timing = this.timing;
    if (timing === null) return run;
    return () => {
      if (!timing.enabled) return run();
      const startMs = timing.nowMs();
      try {
        return run();
      } finally {
        timing.noteMetadataApply(() => work, timing.nowMs() - startMs);
      }
    };
  }

  /**
   * Kafka's applyDelta for one topic (the file header): leader or follower Partitions for the
   * partitions this broker hosts, fetchers started and stopped, partitions it stopped hosting
   * removed, and for `__consumer_offsets` the group coordinator's elections.
   */
  private applyTopic(topic: TopicState): void {
    const nodeId = this.config.nodeId;
    const logConfig = toLogConfig(topic.configs, this.config);
    const hosted = topic.partitions.filter((partition) => partition.replicas.includes(nodeId));
    // Missing logs are created in one batch with no fsync: each becomes durable at its first flush
    // (the metadata log is the source of truth: applyAllTopics recreates one a power loss took).
    this.logManager.getOrCreateLogs(hosted.map((partition) => ({ topic: topic.name, partition: partition.partition, config: logConfig })), 'first-flush');
    const notFetched: { topic: string; partition: number }[] = [];
    const fetched: FollowerFetchTarget[] = [];
    for (const state of hosted) {
      const followed = this.applyPartition(topic.name, topic.topicId, state, logConfig);
      if (followed === null) notFetched.push({ topic: topic.name, partition: state.partition });
      else fetched.push(followed);
    }
    const movedAway: { topic: string; partition: number }[] = [];
    for (const state of topic.partitions) {
      if (state.replicas.includes(nodeId) || this.replicaManager.getPartition(topic.name, state.partition) === undefined) continue;
      // Reassigned away (Kafka's stopReplicas with deletion): stop serving it and delete its log.
      movedAway.push({ topic: topic.name, partition: state.partition });
      this.replicaManager.removePartition(topic.name, state.partition);
    }
    this.fetchers.removeFetcherForPartitions([...notFetched, ...movedAway]);
    this.fetchers.addFetcherForPartitions(fetched);
    if (movedAway.length > 0) {
      this.logManager.deleteLogs(movedAway);
      this.logger.info({ event: 'replica.deleted', topic: topic.name, partitions: movedAway.map((p) => p.partition) },
        `reassigned away from ${topic.name} partitions ${movedAway.map((p) => p.partition).join(', ')}: replicas deleted`);
    }
    if (topic.name === OFFSETS_TOPIC_NAME) this.applyCoordinatorElections(topic);
    if (topic.name === TRANSACTION_STATE_TOPIC_NAME) this.applyTransactionCoordinatorElections(topic);
  }

  /**
   * Becomes leader or follower of one hosted partition; returns what to fetch (a follower with a
   * live leader and this epoch applied), else null.
   */
  private applyPartition(topic: string, topicId: string, state: PartitionState, logConfig: ReturnType<typeof toLogConfig>): FollowerFetchTarget | null {
    const log = this.logManager.getOrCreateLog(topic, state.partition, logConfig);
    log.updateConfig(logConfig);
    const existing = this.replicaManager.getPartition(topic, state.partition);
    const common = {
      topic,
      // A leader proposes ISR changes by topic id (AlterPartition); without it none are sent.
      topicId,
      partition: state.partition,
      log,
      leaderEpoch: state.leaderEpoch,
      partitionEpoch: state.partitionEpoch,
      replicas: state.replicas,
      isr: state.isr,
      // UnifiedLog keeps no producer state itself: the Partition owns it (recovered from the
      // partition directory's snapshots and the log tail), which makes idempotent retries
      // answer with their original offsets, also across restarts and leader changes.
      ...(existing?.log === log ? {} : {
        producerState: new ProducerStateManager({
          dir: log.dir,
          disk: this.producerStateDisk,
          producerIdExpirationMs: this.config.producerIdExpirationMs,
        }),
      }),
    };
    if (state.leaderId === this.config.nodeId) {
      this.replicaManager.becomeLeader(common);
      return null;
    }
    const partition = this.replicaManager.becomeFollower({ ...common, leaderId: state.leaderId });
    // No leader (-1, offline), or a stale state the partition refused: nothing to fetch from.
    if (state.leaderId < 0 || partition.leaderId !== state.leaderId || partition.leaderEpoch !== state.leaderEpoch) return null;
    return { replica: partition, leaderId: state.leaderId, leaderEpoch: state.leaderEpoch };
  }

  /** The group coordinator follows the leadership of `__consumer_offsets` partitions (Kafka's onElection / onResignation). */
  private applyCoordinatorElections(topic: TopicState): void {
    const coordinator = this.groupCoordinator;
    if (coordinator === null) {
      if (topic.partitions.some((state) => state.leaderId === this.config.nodeId)) this.onGroupCoordinatorNeeded();
      return;
    }
    let elected = 0;
    let resigned = 0;
    for (const state of topic.partitions) {
      if (state.leaderId === this.config.nodeId) {
        if (coordinator.onElection(state.partition)) elected++;
      } else if (coordinator.onResignation(state.partition)) {
        resigned++;
      }
    }
    if (elected + resigned > 0) {
      this.logger.info({ event: 'coordinator.elections', loaded: elected, unloaded: resigned },
        `group coordinator: loaded ${elected} and unloaded ${resigned} __consumer_offsets partitions`);
    }
  }

  /**
   * Hands over the group coordinator, which the broker loads on demand (lazy-group-coordinator.ts).
   * Before {@link applyAllTopics} it only takes it (that applies the leaderships); after, the
   * current leaderships of `__consumer_offsets` reach it as a slice queued behind the changes
   * published so far (so their partitions exist first); later changes reach it as deltas.
   */
  attachGroupCoordinator(coordinator: GroupCoordinator): void {
    this.groupCoordinator = coordinator;
    if (!this.allTopicsApplied) return;
    const partitions = this.cache.topic(OFFSETS_TOPIC_NAME)?.partitions.length ?? 0;
    this.work.enqueue([this.timed({ op: 'elect', topic: OFFSETS_TOPIC_NAME, partitions }, () => {
      const topic = this.cache.topic(OFFSETS_TOPIC_NAME);
      if (topic !== undefined) this.applyCoordinatorElections(topic);
    })]);
  }

  /**
   * The transaction coordinator follows the leadership of `__transaction_state` partitions, the
   * leader epoch being its coordinator epoch (a new leadership of the same broker reloads).
   */
  /**
   * Hands over the transaction coordinator, which the broker loads after it is ready (a single node
   * that never sees a `transactional.id` need not pay for it at start-up), and applies the current
   * leaderships of `__transaction_state` to it at once; later changes reach it as deltas.
   */
  attachTransactionCoordinator(coordinator: TransactionCoordinator): void {
    this.transactionCoordinator = coordinator;
    const topic = this.cache.topic(TRANSACTION_STATE_TOPIC_NAME);
    if (topic !== undefined) this.applyTransactionCoordinatorElections(topic);
  }

  private applyTransactionCoordinatorElections(topic: TopicState): void {
    const coordinator = this.transactionCoordinator;
    if (coordinator === null) return;
    let elected = 0;
    let resigned = 0;
    for (const state of topic.partitions) {
      if (state.leaderId === this.config.nodeId) {
        if (coordinator.onElection(state.partition, state.leaderEpoch)) elected++;
      } else if (coordinator.onResignation(state.partition)) {
        resigned++;
      }
    }
    if (elected + resigned > 0) {
      this.logger.info({ event: 'transaction_coordinator.elections', loaded: elected, unloaded: resigned },
        `transaction coordinator: loaded ${elected} and unloaded ${resigned} ${TRANSACTION_STATE_TOPIC_NAME} partitions`);
    }
  }

}

/** `items` in runs of `size` (metadata.apply.max.partitions.per.turn). */
function chunks<T>(items: readonly T[], size: number): T[][] {
  const runs: T[][] = [];
  for (let i = 0; i < items.length; i += size) runs.push(items.slice(i, i + size));
  return runs;
}

/** `slices` with `last` run at the end of the last one (a change of one slice stays one slice). */
/** Runs of metadata.apply.max.partitions.per.turn whose directories one thread-pool trip makes ahead. */
const PREPARE_AHEAD_RUNS = 8;

function withLast(slices: WorkSlice[], last: () => void): WorkSlice[] {
  const final = slices.pop();
  slices.push(final === undefined ? last : () => {
    const pending = final();
    if (pending === undefined) return last();
    // After the slice's thread-pool work (a deletion's renames), as after its synchronous part.
    return Promise.resolve(pending).then(last);
  });
  return slices;
}

function sameEntries(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [key, value] of a) if (b.get(key) !== value) return false;
  return true;
}
