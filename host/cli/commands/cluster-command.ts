/**
 * `tributary cluster info`: cluster id, controller and brokers, and the partitions that need
 * attention (Kafka's kafka-topics --under-replicated-partitions / --unavailable-partitions):
 * under-replicated (fewer in-sync replicas than replicas) and offline (no leader).
 */
import type { PartitionDescription } from '../../clients/admin.js';
import type { ClientOptions } from '../client-commands.js';
import { formatTable, printResult, type CliIo } from '../output.js';
import { withAdmin } from './client-session.js';

/** A partition that is under-replicated or offline. */
interface PartitionHealth {
  readonly topic: string;
  readonly partition: number;
  readonly leader: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
  readonly offlineReplicas: readonly number[];
}

export function clusterInfoHandler(io: CliIo): (options: ClientOptions) => Promise<void> {
  return async (options) => {
    const { cluster, partitions } = await withAdmin(options, 'describe the cluster', async (admin) => {
      const described = await admin.describeCluster();
      const names = await admin.listTopics({ includeInternal: true });
      const topics = names.length === 0 ? [] : await admin.describeTopics({ topics: names });
      const all = topics.flatMap((t) => t.partitions.map((p: PartitionDescription): PartitionHealth => ({ topic: t.name, ...p })));
      return { cluster: described, partitions: all };
    });
    const underReplicated = partitions.filter((p) => p.isr.length < p.replicas.length);
    const offline = partitions.filter((p) => p.leader < 0);
    const rows = cluster.brokers.map((b) => ({ ...b, controller: b.nodeId === cluster.controllerId }));
    if (!options.json) io.stdout.write(`CLUSTER ${cluster.clusterId ?? '-'}\n`);
    printResult(io, {
      rows,
      columns: [
        { header: 'id', value: 'nodeId' }, { header: 'host', value: 'host' }, { header: 'port', value: 'port' },
        { header: 'rack', value: 'rack' }, { header: 'controller', value: (b) => (b.controller ? 'yes' : 'no') },
      ],
      json: { ...cluster, partitions: { total: partitions.length, underReplicated, offline } },
    }, options);
    if (options.json) return;
    io.stdout.write(`PARTITIONS ${partitions.length}, under-replicated ${underReplicated.length}, offline ${offline.length}\n`);
    const attention = partitions.filter((p) => p.isr.length < p.replicas.length || p.leader < 0);
    if (attention.length === 0) return;
    io.stdout.write(formatTable(attention, [
      { header: 'topic', value: 'topic' }, { header: 'partition', value: 'partition' }, { header: 'leader', value: 'leader' },
      { header: 'replicas', value: 'replicas' }, { header: 'isr', value: 'isr' },
      { header: 'offline', value: (p) => (p.offlineReplicas.length === 0 ? '-' : p.offlineReplicas) },
    ]));
  };
}
