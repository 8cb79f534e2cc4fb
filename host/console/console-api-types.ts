/**
 * The shapes the console's JSON API answers (host/console/*.ts builds them, typed with these) and
 * the page reads (host/console/web/, built by esbuild with its own tsconfig): the one definition
 * both compile against, so a field the server drops or renames fails `npm run typecheck`. Plain
 * interfaces, no imports: the web build imports it as types only.
 */

/** GET overview: the cluster, this broker, the metadata quorum and the counts the first page shows. */
export interface Overview {
  clusterId: string | null;
  controllerId: number;
  nodeId: number;
  writeEnabled: boolean;
  brokers: { nodeId: number; host: string; port: number; rack: string | null }[];
  quorum: {
    leaderId: number;
    leaderEpoch: number;
    highWatermark: number;
    voters: QuorumReplica[];
    observers: QuorumReplica[];
  } | null;
  topics: number;
  partitions: number;
  underReplicatedPartitions: number;
  offlinePartitions: number;
  groups: number;
}

/** A voter or observer of the metadata quorum (DescribeQuorum): its log end offset and how far it is behind the high watermark, in offsets. */
export interface QuorumReplica {
  replicaId: number;
  logEndOffset: number;
  lag: number;
}

/** One interval's rates, per second; `timeMs` is the end of the interval (ms since the epoch). */
export interface ThroughputSample {
  readonly timeMs: number;
  readonly messagesInPerSec: number;
  readonly bytesInPerSec: number;
  readonly bytesOutPerSec: number | null;
  readonly messagesOutPerSec: number | null;
}

/** GET throughput?since=: the samples after `since`. */
export interface Throughput {
  intervalMs: number;
  samples: ThroughputSample[];
}

/** One row of GET topics. */
export interface TopicSummary {
  name: string;
  internal: boolean;
  partitions: number;
  replicationFactor: number;
  underReplicatedPartitions: number;
  offlinePartitions: number;
  /** Sum over partitions of high watermark - log start offset. */
  messages: number;
  /** Sum of the local replicas' sizes, null when none is local. */
  sizeBytes: number | null;
}

/**
 * GET topics: a page of topics sorted by name (JavaScript string order), at most `limit` of them
 * and at most console.topics.max.page.partitions partitions (a page of one topic may have more).
 */
export interface TopicsPage {
  /** Topics the filter keeps, in all pages. */
  total: number;
  offset: number;
  /** The most topics a page has (the request's `limit`, else console.topics.page.size). */
  limit: number;
  /** The offset of the next page, null after the last one (a page may end before `limit` topics). */
  nextOffset: number | null;
  topics: TopicSummary[];
}

/**
 * GET topics/:name: the partitions as Metadata answers them, with the log start offset and high
 * watermark their leaders answer (ListOffsets; null when not answered) and the local replica's
 * size in bytes (null where none is local); the topic's configs as DescribeConfigs answers them.
 */
export interface TopicDetail {
  name: string;
  internal: boolean;
  partitions: {
    partition: number;
    leader: number;
    leaderEpoch: number;
    replicas: number[];
    isr: number[];
    offlineReplicas: number[];
    logStartOffset: number | null;
    highWatermark: number | null;
    sizeBytes: number | null;
  }[];
  configs: { name: string; value: string | null; source: string; isDefault: boolean; readOnly: boolean; sensitive: boolean }[];
}

/** A record as the API sends it. */
export interface BrowsedRecord {
  offset: number;
  timestamp: number;
  timestampType: 'CreateTime' | 'LogAppendTime';
  /** base64, null for a null key/value. */
  key: string | null;
  value: string | null;
  headers: { key: string; value: string | null }[];
  sizeBytes: number;
}

/** GET topics/:name/messages: the records of one partition in [`startOffset`, `endOffset`), newest first. */
export interface Browse {
  topic: string;
  partition: number;
  logStartOffset: number;
  highWatermark: number;
  startOffset: number;
  endOffset: number;
  records: BrowsedRecord[];
}

/** One row of GET groups: lag in offsets, lag in seconds and the Burrow-style status where known (null otherwise). */
export interface GroupSummary {
  groupId: string;
  state: string;
  protocolType: string;
  protocol: string;
  members: number;
  lag: number;
  lagSeconds: number | null;
  status: string | null;
}

/** GET groups: a page of groups by id. */
export interface GroupsPage {
  total: number;
  offset: number;
  groups: GroupSummary[];
}

/** GET groups/:id: members with their assignments, and per committed partition its offsets and lag. */
export interface GroupDetail {
  groupId: string;
  state: string;
  protocolType: string;
  protocol: string;
  status: string | null;
  members: { memberId: string; groupInstanceId: string | null; clientId: string; clientHost: string; assignment: { topic: string; partitions: number[] }[] }[];
  offsets: {
    topic: string;
    partition: number;
    committedOffset: number;
    logStartOffset: number;
    logEndOffset: number;
    lag: number;
    lagSeconds: number | null;
    status: string | null;
    memberId: string | null;
  }[];
  lag: number;
  lagSeconds: number | null;
}
