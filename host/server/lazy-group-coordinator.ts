/**
 * The broker's group coordinator, imported when first needed: the GroupCoordinator and its
 * classic-group protocol, offset store and records are about 20 modules (~150 KB) that a single
 * node without `__consumer_offsets` does not need before it is ready (issue 10: the quick start's
 * ready time does not get worse). The broker loads it
 * - at start-up, before it takes up its partitions, when `__consumer_offsets` already exists
 *   (a restart with groups: loaded before ready, as ever);
 * - in the background right after start-up otherwise;
 * - with the first request that needs it (group APIs wait for it; `ensureOffsetsTopic` loads it
 *   before it creates the topic, so the coordinator is there before its partitions are elected);
 * - when the metadata makes this broker leader of a `__consumer_offsets` partition first.
 * Concurrent callers share one load.
 */
import type { GroupCoordinator } from '../coordinator/group-coordinator.js';
import type { GroupCoordinatorSetup, GroupCoordinatorSetupOptions } from './group-coordinator-setup.js';

/** The group coordinator, loaded on demand; see the file header. */
export class LazyGroupCoordinator {
  private setup: GroupCoordinatorSetup | null = null;
  private loading: Promise<GroupCoordinatorSetup> | null = null;
  private state: 'new' | 'started' | 'closed' = 'new';

  /**
   * @param options what the coordinator is built from
   * @param onStarted hears the coordinator once it is started (the broker hands it to its metadata publisher)
   */
  constructor(
    private readonly options: GroupCoordinatorSetupOptions,
    private readonly onStarted: (coordinator: GroupCoordinator) => void,
  ) {}

  /** The coordinator once loaded, else null. */
  get coordinator(): GroupCoordinator | null {
    return this.setup?.groupCoordinator ?? null;
  }

  /**
   * Imports and builds the coordinator once; it is started at once when {@link startup} already
   * ran (and never after {@link shutdown}: an unstarted coordinator answers NOT_COORDINATOR, 16).
   * @throws Error when the module cannot be imported
   */
  async load(): Promise<GroupCoordinator> {
    return (await this.loadSetup()).groupCoordinator;
  }

  /** {@link load} without waiting; a failure is logged (error), and group requests fail with it. */
  loadInBackground(): void {
    this.load().catch((error: unknown) => this.options.rootLogger.error({ err: error }, 'the group coordinator could not be loaded'));
  }

  /** Creates `__consumer_offsets` unless it exists, the coordinator loaded first; resolves with a Kafka error code. */
  async ensureOffsetsTopic(): Promise<number> {
    return (await this.loadSetup()).ensureOffsetsTopic();
  }

  /** The broker takes up its partitions: starts the coordinator if loaded (else when it loads). */
  startup(): void {
    if (this.state !== 'new') return;
    this.state = 'started';
    if (this.setup !== null) this.start(this.setup.groupCoordinator);
  }

  /** Stops a started coordinator; a load still under way builds one that is never started. */
  shutdown(): void {
    const started = this.state === 'started';
    this.state = 'closed';
    if (started) this.setup?.groupCoordinator.shutdown();
  }

  private loadSetup(): Promise<GroupCoordinatorSetup> {
    this.loading ??= import('./group-coordinator-setup.js').then(({ createGroupCoordinator }) => {
      const setup = createGroupCoordinator(this.options);
      this.setup = setup;
      if (this.state === 'started') this.start(setup.groupCoordinator);
      return setup;
    });
    return this.loading;
  }

  private start(coordinator: GroupCoordinator): void {
    coordinator.startup();
    this.onStarted(coordinator);
  }
}
