/**
 * The KRaft quorum's timing and snapshot configs (Kafka's names and meanings; Tributary's
 * defaults are shorter for the timeouts). Part of brokerConfigDefs() (broker-config.ts), kept
 * apart to keep that file within its size.
 */
import type { ConfigDef } from './config-def.js';

export const RAFT_CONFIG_DEFS: readonly ConfigDef[] = [
  { name: 'controller.quorum.election.timeout.ms', type: 'INT', defaultValue: '1000', min: 1,
    doc: 'Raft: a voter that hears no leader this long (randomised up to twice) starts an election.' },
  { name: 'controller.quorum.fetch.timeout.ms', type: 'INT', defaultValue: '2000', min: 1,
    doc: 'Raft: a follower that cannot fetch from the leader this long looks for a new one.' },
  { name: 'controller.quorum.election.backoff.max.ms', type: 'INT', defaultValue: '1000', min: 1,
    doc: 'Raft: the longest random wait before a lost election is retried.' },
  { name: 'controller.quorum.append.linger.ms', type: 'INT', defaultValue: '25', min: 0,
    doc: 'Raft: how long the leader lets metadata appends gather before it flushes them.' },
  { name: 'controller.quorum.request.timeout.ms', type: 'INT', defaultValue: '2000', min: 1,
    doc: 'Raft: a request to another voter without an answer this long is given up.' },
  { name: 'metadata.log.max.record.bytes.between.snapshots', type: 'LONG', defaultValue: '20971520', min: 1,
    doc: 'The controller writes a metadata snapshot (a .checkpoint) once this many bytes of metadata records were committed since the last one, and the log before it is deleted.' },
  { name: 'metadata.log.segment.bytes', type: 'INT', defaultValue: '1073741824', min: 1024,
    doc: 'Segment size of the metadata log (__cluster_metadata-0) of a controller quorum; snapshots delete whole segments below them.' },
];

/** The parsed values of {@link RAFT_CONFIG_DEFS} as BrokerConfig fields. */
export function raftSettings(get: (name: string) => unknown): {
  controllerQuorumElectionTimeoutMs: number; controllerQuorumFetchTimeoutMs: number; controllerQuorumElectionBackoffMaxMs: number;
  controllerQuorumAppendLingerMs: number; controllerQuorumRequestTimeoutMs: number;
  metadataLogMaxRecordBytesBetweenSnapshots: number; metadataLogSegmentBytes: number;
} {
  const value = (name: string): number => get(name) as number;
  return {
    controllerQuorumElectionTimeoutMs: value('controller.quorum.election.timeout.ms'),
    controllerQuorumFetchTimeoutMs: value('controller.quorum.fetch.timeout.ms'),
    controllerQuorumElectionBackoffMaxMs: value('controller.quorum.election.backoff.max.ms'),
    controllerQuorumAppendLingerMs: value('controller.quorum.append.linger.ms'),
    controllerQuorumRequestTimeoutMs: value('controller.quorum.request.timeout.ms'),
    metadataLogMaxRecordBytesBetweenSnapshots: value('metadata.log.max.record.bytes.between.snapshots'),
    metadataLogSegmentBytes: value('metadata.log.segment.bytes'),
  };
}
