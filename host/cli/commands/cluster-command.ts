/**
 * `tributary cluster info`: cluster id, controller and brokers.
 */
import type { ClientOptions } from '../client-commands.js';
import { printResult, type CliIo } from '../output.js';
import { withAdmin } from './client-session.js';

export function clusterInfoHandler(io: CliIo): (options: ClientOptions) => Promise<void> {
  return async (options) => {
    const cluster = await withAdmin(options, 'describe the cluster', (admin) => admin.describeCluster());
    const rows = cluster.brokers.map((b) => ({ ...b, controller: b.nodeId === cluster.controllerId }));
    if (!options.json) io.stdout.write(`CLUSTER ${cluster.clusterId ?? '-'}\n`);
    printResult(io, {
      rows,
      columns: [
        { header: 'id', value: 'nodeId' }, { header: 'host', value: 'host' }, { header: 'port', value: 'port' },
        { header: 'rack', value: 'rack' }, { header: 'controller', value: (b) => (b.controller ? 'yes' : 'no') },
      ],
      json: cluster,
    }, options);
  };
}
