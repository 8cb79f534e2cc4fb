/**
 * The broker's AlterPartitionManager, loaded with the first ISR proposal: the leaders of a single
 * node (the `npm start` default) have no follower, so their ISR never changes and the broker never
 * loads the manager and its AlterPartition codec, which keeps its start-up as fast as before
 * replication. Proposals made while the module loads wait for it and are then submitted in the
 * order they were made (in one turn, so they still travel in one request).
 */
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { AlterPartitionManager, AlterPartitionManagerOptions } from '../replication/alter-partition-manager.js';
import type { AlterPartitionItem, AlterPartitionResult, AlterPartitionSink } from '../replication/alter-partition-sink.js';

/** What a stopped manager answers (AlterPartitionManager's own answer after shutdown). */
function notAttempted(): AlterPartitionResult {
  return { errorCode: ErrorCode.OPERATION_NOT_ATTEMPTED, leaderId: -1, leaderEpoch: -1, partitionEpoch: -1, isr: [] };
}

/** An {@link AlterPartitionSink} that imports and builds the AlterPartitionManager on the first proposal. */
export class LazyAlterPartitionManager implements AlterPartitionSink {
  private loading: Promise<AlterPartitionManager | null> | null = null;
  private loaded: AlterPartitionManager | null = null;
  private stopped = false;

  /**
   * @param options the manager's options, read when it is built
   * @param onLoadFailed told when the module cannot be imported (every proposal then answers
   *   OPERATION_NOT_ATTEMPTED: leaders keep their ISR)
   */
  constructor(
    private readonly options: () => AlterPartitionManagerOptions,
    private readonly onLoadFailed: (error: unknown) => void,
  ) {}

  /** AlterPartitionManager.submit once loaded; OPERATION_NOT_ATTEMPTED (55) after {@link shutdown}. Never rejects. */
  submit(item: AlterPartitionItem): Promise<AlterPartitionResult> {
    if (this.stopped) return Promise.resolve(notAttempted());
    if (this.loaded !== null) return this.loaded.submit(item);
    this.loading ??= import('../replication/alter-partition-manager.js').then(({ AlterPartitionManager }) => {
      if (this.stopped) return null;
      this.loaded = new AlterPartitionManager(this.options());
      return this.loaded;
    }, (error: unknown) => {
      this.onLoadFailed(error);
      return null;
    });
    return this.loading.then((manager) => (manager === null || this.stopped ? notAttempted() : manager.submit(item)));
  }

  /** Stops the manager (pending proposals answer OPERATION_NOT_ATTEMPTED). Idempotent. */
  shutdown(): void {
    this.stopped = true;
    this.loaded?.shutdown();
  }
}
