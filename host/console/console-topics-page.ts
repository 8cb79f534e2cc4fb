/**
 * The console's topic list, `GET /console/api/topics?offset=&limit=&internal=&search=`, read from
 * the broker's own state instead of through Kafka requests (issue 15: at 50,000 partitions the
 * all-topics Metadata the console's Admin client decoded for every page, polled every 3 s, held
 * the broker's event loop for 1-2 s):
 *
 * - names, partition counts, replicas, ISR and leaders from the broker's MetadataCache (its
 *   sorted topic array, shared and replaced on every change, so nothing is copied or sorted here);
 * - log start offsets, high watermarks and sizes of the partitions this broker leads from their
 *   logs; only partitions led elsewhere cost a ListOffsets (earliest and latest) to their leaders.
 *
 * A page holds at most `limit` topics (console.topics.page.size when the request gives none, at
 * most console.topics.max.page.size) and at most console.topics.max.page.partitions partitions,
 * except a page of one topic that alone has more; the answer's `nextOffset` is where the next page
 * starts (null after the last one). The work of a request runs in slices of at most
 * console.topics.max.page.partitions partitions or topic names per event-loop turn (Time.defer in
 * between), so one topic of 50,000 partitions or a search over 50,000 names does not hold the
 * loop either. The indexes of the topics a filter keeps are memoized per metadata snapshot (the
 * array the cache hands out) and filter, so polling an unchanged cluster scans no names.
 *
 * The overview's counts (`totals`) are read the same way, in the same slices, once per snapshot.
 *
 * No page cache: a page costs at most console.topics.max.page.partitions reads of fields in
 * memory (well under a millisecond at the default), about what building a cached copy's key and
 * checking its age would save, and a cached page would show offsets up to its age old.
 */
import type { TopicSummary, TopicsPage } from './console-api-types.js';
import { pageByPartitions } from '../network/partition-pages.js';
import { intParam } from './console-responses.js';

/** A partition as the broker's metadata has it (MetadataCache's PartitionState). */
export interface ConsolePartitionState {
  readonly partition: number;
  /** Broker id of the leader, -1 when none. */
  readonly leaderId: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
}

/** A topic as the broker's metadata has it (MetadataCache's TopicState), partitions in index order. */
export interface ConsoleTopicState {
  readonly name: string;
  readonly isInternal: boolean;
  readonly partitions: readonly ConsolePartitionState[];
}

/** This broker's replica of a partition (ReplicaManager's Partition). */
export interface LocalReplica {
  /** True while this broker leads the partition (its high watermark is the one ListOffsets answers). */
  readonly isLeader: boolean;
  /** Offsets, and the log's size in bytes. */
  readonly log: { readonly size: number; readonly logStartOffset: number; readonly highWatermark: number };
}

/** Log start offset (`low`) and high watermark (`high`) of one partition. */
export interface PartitionBounds {
  readonly partition: number;
  readonly low: number;
  readonly high: number;
}

/** Where a topics page is read from: the broker's state (console-mount.ts wires it). */
export interface TopicsPageSource {
  /**
   * Every topic in name order (JavaScript string order): the MetadataCache's shared array, never
   * modified, the same object while nothing changed.
   */
  topics(): readonly ConsoleTopicState[];
  /** This broker's replica of a partition, undefined when it holds none. */
  localReplica(topic: string, partition: number): LocalReplica | undefined;
  /**
   * Log start offsets and high watermarks of partitions this broker does not lead, from their
   * leaders (ListOffsets earliest and latest). Partitions not answered may be left out.
   * @throws on a failed request (the page then counts no messages for them)
   */
  remoteBounds(topic: string, partitions: number[]): Promise<PartitionBounds[]>;
  /** Runs `task` at the end of this event-loop turn (Time.defer): between two slices of work. */
  defer(task: () => void): void;
}

/** console.topics.page.size, console.topics.max.page.size and console.topics.max.page.partitions. */
export interface TopicsPageLimits {
  /** Topics in a page when the request gives no `limit`. */
  readonly pageSize: number;
  /** The largest `limit` accepted (a larger one answers 400 INVALID_REQUEST). */
  readonly maxPageSize: number;
  /** Partitions in a page (a page of one topic may have more) and per event-loop turn of its work. */
  readonly maxPagePartitions: number;
}

/** The overview's counts over the topics Admin.describeTopics() lists (internal ones left out). */
export interface TopicTotals {
  readonly topics: number;
  readonly partitions: number;
  /** Partitions whose ISR is smaller than their replica set. */
  readonly underReplicatedPartitions: number;
  /** Partitions without a leader. */
  readonly offlinePartitions: number;
}

/** The topics a filter keeps in one metadata snapshot: indexes into the snapshot's array. */
interface Matches {
  readonly snapshot: readonly ConsoleTopicState[];
  readonly filter: string;
  readonly indexes: readonly number[];
}

/**
 * Pages of the topic list (see the file header); one per console, holding the last filter's
 * matches.
 */
export class TopicsPager {
  private memo: Matches | null = null;
  private totalsMemo: { readonly snapshot: readonly ConsoleTopicState[]; readonly totals: Promise<TopicTotals> } | null = null;

  constructor(private readonly source: TopicsPageSource, private readonly limits: TopicsPageLimits) {}

  /**
   * A page of topics in name order (JavaScript string order) from `offset` (default 0) among
   * those kept: internal ones only with `internal=true`, and with `search` those whose name
   * contains it, case ignored. At most `limit` topics and console.topics.max.page.partitions
   * partitions (but at least one topic when any is left); `nextOffset` is the next page's offset,
   * null after the last page.
   * @throws ConsoleRequestError 400 INVALID_REQUEST for an offset or limit out of range
   */
  async page(query: URLSearchParams): Promise<TopicsPage> {
    const { pageSize, maxPageSize, maxPagePartitions } = this.limits;
    const offset = intParam(query, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
    const limit = intParam(query, 'limit', Math.min(pageSize, maxPageSize), 1, maxPageSize);
    const includeInternal = query.get('internal') === 'true';
    const search = (query.get('search') ?? '').toLowerCase();
    const snapshot = this.source.topics();
    const indexes = await this.matches(snapshot, includeInternal, search);
    const { page, nextOffset } = pageByPartitions(indexes, offset, limit, maxPagePartitions, (index) => snapshot[index]!.partitions.length);
    return { total: indexes.length, offset, limit, nextOffset, topics: await this.summaries(page.map((index) => snapshot[index]!)) };
  }

  /**
   * Topics (internal ones left out), partitions, under-replicated and offline partitions, from the
   * broker's metadata in slices of console.topics.max.page.partitions partitions per event-loop
   * turn; computed once per metadata snapshot.
   */
  totals(): Promise<TopicTotals> {
    const snapshot = this.source.topics();
    if (this.totalsMemo?.snapshot !== snapshot) this.totalsMemo = { snapshot, totals: this.countTotals(snapshot) };
    return this.totalsMemo.totals;
  }

  private async countTotals(snapshot: readonly ConsoleTopicState[]): Promise<TopicTotals> {
    let topics = 0;
    let partitions = 0;
    let underReplicatedPartitions = 0;
    let offlinePartitions = 0;
    let inTurn = 0;
    for (const topic of snapshot) {
      if (topic.isInternal) continue;
      topics++;
      for (const partition of topic.partitions) {
        if (inTurn === this.limits.maxPagePartitions) {
          await this.nextTurn();
          inTurn = 0;
        }
        inTurn++;
        partitions++;
        if (partition.isr.length < partition.replicas.length) underReplicatedPartitions++;
        if (partition.leaderId < 0) offlinePartitions++;
      }
    }
    return { topics, partitions, underReplicatedPartitions, offlinePartitions };
  }

  /** The indexes into `snapshot` of the topics kept, memoized for the last snapshot and filter. */
  private async matches(snapshot: readonly ConsoleTopicState[], includeInternal: boolean, search: string): Promise<readonly number[]> {
    const filter = `${includeInternal}\u0000${search}`;
    const memo = this.memo;
    if (memo !== null && memo.snapshot === snapshot && memo.filter === filter) return memo.indexes;
    const indexes: number[] = [];
    const perTurn = this.limits.maxPagePartitions;
    for (let start = 0; start < snapshot.length; start += perTurn) {
      if (start > 0) await this.nextTurn();
      const end = Math.min(snapshot.length, start + perTurn);
      for (let i = start; i < end; i++) {
        const topic = snapshot[i]!;
        if (!includeInternal && topic.isInternal) continue;
        if (search !== '' && !topic.name.toLowerCase().includes(search)) continue;
        indexes.push(i);
      }
    }
    this.memo = { snapshot, filter, indexes };
    return indexes;
  }

  /** The rows of `page`: local partitions read here, in slices; the others' offsets asked of their leaders. */
  private async summaries(page: readonly ConsoleTopicState[]): Promise<TopicSummary[]> {
    const rows: TopicSummary[] = [];
    const remote: Promise<void>[] = [];
    let inTurn = 0;
    for (const topic of page) {
      const row = {
        name: topic.name,
        internal: topic.isInternal,
        partitions: topic.partitions.length,
        replicationFactor: topic.partitions[0]?.replicas.length ?? 0,
        underReplicatedPartitions: 0,
        offlinePartitions: 0,
        messages: 0,
        sizeBytes: null as number | null,
      };
      const ledElsewhere: number[] = [];
      for (const partition of topic.partitions) {
        if (inTurn === this.limits.maxPagePartitions) {
          await this.nextTurn();
          inTurn = 0;
        }
        inTurn++;
        if (partition.isr.length < partition.replicas.length) row.underReplicatedPartitions++;
        if (partition.leaderId < 0) row.offlinePartitions++;
        const local = this.source.localReplica(topic.name, partition.partition);
        if (local !== undefined) row.sizeBytes = (row.sizeBytes ?? 0) + local.log.size;
        if (local?.isLeader === true) row.messages += Math.max(0, local.log.highWatermark - local.log.logStartOffset);
        else if (partition.leaderId >= 0) ledElsewhere.push(partition.partition);
      }
      if (ledElsewhere.length > 0) {
        remote.push(this.source.remoteBounds(topic.name, ledElsewhere).then((bounds) => {
          for (const b of bounds) row.messages += Math.max(0, b.high - b.low);
        }, () => undefined));
      }
      rows.push(row);
    }
    await Promise.all(remote);
    return rows;
  }

  private nextTurn(): Promise<void> {
    return new Promise((resolve) => this.source.defer(resolve));
  }
}
