/**
 * The consumer-lag reads of partitions led by other brokers (remote-partition-lag.ts), imported
 * with the first sample that asks for one: a single node leads every partition it has, so it never
 * loads them (with their inter-broker channels and the Fetch/ListOffsets codecs, about 8 modules)
 * before it is ready (issue 10: the quick start's ready time does not get worse).
 *
 * Until loaded, {@link LazyRemotePartitionLag.partition} answers null (unknown, as a
 * RemotePartitionLag does before the leader's first answer) and remembers what was asked; the end
 * of that sample loads the module, hands it the same questions and starts its refresh round, so
 * the leaders are asked in the same sample as before.
 */
import type { LagPartitionSource } from '../metrics/consumer-lag-monitor.js';
import type { RemotePartitionLag } from './remote-partition-lag.js';

/** A loaded RemotePartitionLag with its channels (`close()` closes them). */
export interface OwnedRemotePartitionLag {
  readonly lag: RemotePartitionLag;
  close(): void;
}

/** The remote lag reads, loaded on first need; see the file header. */
export class LazyRemotePartitionLag {
  private loaded: OwnedRemotePartitionLag | null = null;
  private loading: Promise<OwnedRemotePartitionLag | null> | null = null;
  private asked: { topic: string; partition: number }[] = [];
  private closed = false;

  /**
   * @param load imports and builds the reads (called once)
   * @param onError hears a failed load (then remote partitions stay unknown)
   */
  constructor(
    private readonly load: () => Promise<OwnedRemotePartitionLag>,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** The leader's view as last answered (RemotePartitionLag.partition); null while unknown or not loaded. */
  partition(topic: string, partition: number): LagPartitionSource | null {
    if (this.loaded !== null) return this.loaded.lag.partition(topic, partition);
    if (!this.closed) this.asked.push({ topic, partition });
    return null;
  }

  /**
   * The end of a sample (RemotePartitionLag.sampled), loading the reads first when this sample
   * asked for a remote partition. Never rejects.
   */
  async sampled(): Promise<void> {
    if (this.loaded !== null) return this.loaded.lag.sampled();
    if (this.asked.length === 0 || this.closed) return;
    const asked = this.asked;
    this.asked = [];
    this.loading ??= this.load().then((owned) => {
      if (this.closed) {
        owned.close();
        return null;
      }
      this.loaded = owned;
      return owned;
    }, (error: unknown) => {
      this.onError(error);
      return null;
    });
    const owned = await this.loading;
    if (owned === null || this.closed) return;
    for (const { topic, partition } of asked) owned.lag.partition(topic, partition);
    return owned.lag.sampled();
  }

  /** Closes the channels (now or once a load under way ends); nothing is loaded after. */
  close(): void {
    this.closed = true;
    this.asked = [];
    this.loaded?.close();
  }
}
