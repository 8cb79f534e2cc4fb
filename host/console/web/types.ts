/** The shapes the console API answers (host/console/*.ts builds them). */

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

export interface QuorumReplica {
  replicaId: number;
  logEndOffset: number;
  lag: number;
}

export interface ThroughputSample {
  timeMs: number;
  messagesInPerSec: number;
  bytesInPerSec: number;
  bytesOutPerSec: number | null;
  messagesOutPerSec: number | null;
}

export interface TopicSummary {
  name: string;
  internal: boolean;
  partitions: number;
  replicationFactor: number;
  underReplicatedPartitions: number;
  offlinePartitions: number;
  messages: number;
  sizeBytes: number | null;
}

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

export interface BrowsedRecord {
  offset: number;
  timestamp: number;
  timestampType: string;
  key: string | null;
  value: string | null;
  headers: { key: string; value: string | null }[];
  sizeBytes: number;
}

export interface Browse {
  topic: string;
  partition: number;
  logStartOffset: number;
  highWatermark: number;
  startOffset: number;
  endOffset: number;
  records: BrowsedRecord[];
}

export interface GroupSummary {
  groupId: string;
  state: string;
  protocolType: string;
  members: number;
  lag: number;
  lagSeconds: number | null;
  status: string | null;
}

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
