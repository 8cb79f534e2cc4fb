/**
 * `tributary cluster info`: the cluster id, the brokers (DescribeCluster: the live ones, plus the
 * quorum's members that are not live brokers), the metadata quorum (DescribeQuorum: leader,
 * epoch, high watermark, and each voter's and observer's log end offset, lag, last fetch and last
 * caught-up time), as Kafka's `kafka-metadata-quorum.sh describe --status` and `--replication`,
 * and the partitions that need attention (Kafka's kafka-topics --under-replicated-partitions /
 * --unavailable-partitions): under-replicated (fewer in-sync replicas than replicas) and offline
 * (no leader).
 *
 * DescribeCluster (up to v1) lists only unfenced brokers, so a broker that is registered but
 * fenced is seen through the quorum: an observer (a broker-only node) missing from the live
 * brokers is `fenced`; a voter missing is `fenced or controller-only` (the protocol does not say
 * which).
 */
import type { PartitionDescription } from '../../clients/admin.js';
import type { QuorumDescription, QuorumReplica } from '../../clients/admin-quorum.js';
import type { ClientOptions } from '../client-commands.js';
import { formatJson, formatTable, type CliIo } from '../output.js';
import { withAdmin } from './client-session.js';

/** One row of the brokers table. */
interface BrokerRow {
  nodeId: number;
  host: string | null;
  port: number | null;
  rack: string | null;
  status: 'unfenced' | 'fenced' | 'fenced or controller-only';
  controller: boolean;
}

/** A partition that is under-replicated or offline. */
interface PartitionHealth {
  readonly topic: string;
  readonly partition: number;
  readonly leader: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
  readonly offlineReplicas: readonly number[];
}

/** One row of the replication table. */
interface ReplicaRow extends QuorumReplica {
  status: 'Leader' | 'Follower' | 'Observer';
}

export function clusterInfoHandler(io: CliIo): (options: ClientOptions) => Promise<void> {
  return async (options) => {
    const { cluster, quorum, partitions } = await withAdmin(options, 'describe the cluster', async (admin) => {
      const names = await admin.listTopics({ includeInternal: true });
      const topics = names.length === 0 ? [] : await admin.describeTopics({ topics: names });
      return {
        cluster: await admin.describeClusterBrokers(),
        quorum: await admin.describeQuorum(),
        partitions: topics.flatMap((t) => t.partitions.map((p: PartitionDescription): PartitionHealth => ({ topic: t.name, ...p }))),
      };
    });
    const brokers = brokerRows(cluster, quorum);
    const replicas = replicaRows(quorum);
    const underReplicated = partitions.filter((p) => p.isr.length < p.replicas.length);
    const offline = partitions.filter((p) => p.leader < 0);
    if (options.json) {
      io.stdout.write(formatJson({
        clusterId: cluster.clusterId, controllerId: cluster.controllerId, brokers, quorum: { ...quorum, replicas },
        partitions: { total: partitions.length, underReplicated, offline },
      }));
      return;
    }
    const now = Date.now();
    const ago = (timestamp: number): string => (timestamp < 0 ? '-' : `${Math.max(0, now - timestamp)} ms ago`);
    io.stdout.write(`CLUSTER ${cluster.clusterId}\n\n`);
    io.stdout.write(formatTable(brokers, [
      { header: 'id', value: 'nodeId' }, { header: 'host', value: 'host' }, { header: 'port', value: 'port' },
      { header: 'rack', value: 'rack' }, { header: 'status', value: 'status' },
      { header: 'controller', value: (b) => (b.controller ? 'yes' : 'no') },
    ]));
    io.stdout.write(`\nQUORUM leader ${quorum.leaderId}, epoch ${quorum.leaderEpoch}, high watermark ${quorum.highWatermark}, ` +
      `${quorum.voters.length} voter${quorum.voters.length === 1 ? '' : 's'}, ${quorum.observers.length} observer${quorum.observers.length === 1 ? '' : 's'}\n\n`);
    io.stdout.write(formatTable(replicas, [
      { header: 'node', value: 'replicaId' }, { header: 'log end offset', value: 'logEndOffset' }, { header: 'lag', value: 'lag' },
      // The leader fetches from no one: Kafka reports its own clock there, which reads as a fetch.
      { header: 'last fetch', value: (r) => (r.status === 'Leader' ? '-' : ago(r.lastFetchTimestamp)) }, { header: 'last caught up', value: (r) => ago(r.lastCaughtUpTimestamp) },
      { header: 'status', value: 'status' },
    ]));
    io.stdout.write(`\nPARTITIONS ${partitions.length}, under-replicated ${underReplicated.length}, offline ${offline.length}\n`);
    const attention = partitions.filter((p) => p.isr.length < p.replicas.length || p.leader < 0);
    if (attention.length === 0) return;
    io.stdout.write(formatTable(attention, [
      { header: 'topic', value: 'topic' }, { header: 'partition', value: 'partition' }, { header: 'leader', value: 'leader' },
      { header: 'replicas', value: 'replicas' }, { header: 'isr', value: 'isr' },
      { header: 'offline', value: (p) => (p.offlineReplicas.length === 0 ? '-' : p.offlineReplicas) },
    ]));
  };
}

function brokerRows(
  cluster: { controllerId: number; brokers: { nodeId: number; host: string; port: number; rack: string | null }[] },
  quorum: QuorumDescription,
): BrokerRow[] {
  const rows: BrokerRow[] = cluster.brokers.map((b) => ({ ...b, status: 'unfenced', controller: b.nodeId === cluster.controllerId }));
  const live = new Set(rows.map((row) => row.nodeId));
  const missing = (replicaId: number, status: BrokerRow['status']): void => {
    if (live.has(replicaId)) return;
    live.add(replicaId);
    rows.push({ nodeId: replicaId, host: null, port: null, rack: null, status, controller: replicaId === cluster.controllerId });
  };
  for (const observer of quorum.observers) missing(observer.replicaId, 'fenced');
  for (const voter of quorum.voters) missing(voter.replicaId, 'fenced or controller-only');
  return rows.sort((a, b) => a.nodeId - b.nodeId);
}

function replicaRows(quorum: QuorumDescription): ReplicaRow[] {
  return [
    ...quorum.voters.map((r): ReplicaRow => ({ ...r, status: r.replicaId === quorum.leaderId ? 'Leader' : 'Follower' })),
    ...quorum.observers.map((r): ReplicaRow => ({ ...r, status: 'Observer' })),
  ];
}
