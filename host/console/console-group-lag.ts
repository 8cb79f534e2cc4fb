/**
 * Lag in seconds and status for the console of any broker of a cluster: the broker's own lag
 * monitor knows only the groups it coordinates; for another group the console asks that group's
 * coordinator, at the HTTP listener the coordinator names (FindCoordinator, then DescribeConfigs
 * `http.listeners`: clients/admin-http.ts), `GET /consumer-lag?group=`, as `tributary group
 * describe` does. Addresses are kept per coordinator node id (http.listeners is a static config)
 * and forgotten when the coordinator does not answer; an answer takes at most
 * {@link COORDINATOR_LAG_TIMEOUT_MS}, after which the page shows the lag in offsets without seconds.
 */
import type { Admin } from '../clients/admin.js';
import { brokerHttpAddress } from '../clients/admin-http.js';
import type { GroupLagEvaluation, GroupLagSource } from './console-groups.js';

/** The longest the console waits for another broker's lag report, ms. */
export const COORDINATOR_LAG_TIMEOUT_MS = 2_000;

/** `local` for the groups this broker coordinates, else the coordinator's report over HTTP. */
export function clusterGroupLag(local: GroupLagSource | null, admin: () => Admin): GroupLagSource {
  const addresses = new Map<number, string | null>();
  const remote = async (groupId: string): Promise<GroupLagEvaluation | null> => {
    const { nodeId } = await admin().cluster.coordinator(groupId);
    let address = addresses.get(nodeId);
    if (address === undefined) addresses.set(nodeId, address = await brokerHttpAddress(admin(), nodeId));
    if (address === null) return null;
    try {
      const response = await fetch(`http://${address}/consumer-lag?group=${encodeURIComponent(groupId)}`, { signal: AbortSignal.timeout(COORDINATOR_LAG_TIMEOUT_MS) });
      if (!response.ok) return null;
      const report = ((await response.json()) as { groups: (GroupLagEvaluation & { groupId: string })[] }).groups.find((g) => g.groupId === groupId);
      return report === undefined ? null : { status: report.status, partitions: report.partitions };
    } catch {
      addresses.delete(nodeId);
      return null;
    }
  };
  return {
    describe: async (groupId) => (await local?.describe(groupId)) ?? await remote(groupId).catch(() => null),
  };
}
