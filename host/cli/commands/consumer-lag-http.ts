/**
 * The lag in seconds and the Burrow-style status a broker computes for the groups it coordinates
 * (host/metrics/consumer-lag-monitor.ts), read from its HTTP listener's `GET /consumer-lag?group=`
 * for `tributary group describe`. The Kafka protocol has no field for them, so the CLI asks the
 * HTTP listener (http.listeners) of each group's coordinator, which it finds from the broker
 * itself (FindCoordinator, then DescribeConfigs of that broker's `http.listeners`:
 * clients/admin-http.ts); `--http HOST:PORT` overrides that for every group.
 */
import type { Admin } from '../../clients/admin.js';
import { groupCoordinatorHttpAddress } from '../../clients/admin-http.js';
import type { GroupLagReport } from '../../metrics/consumer-lag-monitor.js';

/** How long the CLI waits for the HTTP listener, ms. */
const HTTP_TIMEOUT_MS = 5_000;

/** The reports, or why some are missing (a sentence for stderr). */
export type LagLookup = { reports: Map<string, GroupLagReport>; problem: string | null };

/** Where to ask for each group's lag: `http` for every group, else its coordinator's HTTP listener (null: none found, with why). */
export async function lagAddresses(admin: Admin, http: string | undefined, groups: readonly string[]): Promise<Map<string, string | Error>> {
  const addresses = new Map<string, string | Error>();
  for (const group of groups) {
    if (http !== undefined && http !== '') {
      addresses.set(group, http);
      continue;
    }
    try {
      const found = await groupCoordinatorHttpAddress(admin, group);
      addresses.set(group, found ?? new Error(`the coordinator of "${group}" has no http.listeners (or listens on port 0)`));
    } catch (error) {
      addresses.set(group, new Error(`the HTTP listener of the coordinator of "${group}" could not be found (${(error as Error).message})`));
    }
  }
  return addresses;
}

/** Asks each group's address for its report; never throws (failures become `problem`). */
export async function fetchGroupLag(addresses: ReadonlyMap<string, string | Error>): Promise<LagLookup> {
  const reports = new Map<string, GroupLagReport>();
  const problems: string[] = [];
  for (const [group, address] of addresses) {
    if (address instanceof Error) {
      problems.push(address.message);
      continue;
    }
    try {
      const response = await fetch(`http://${address}/consumer-lag?group=${encodeURIComponent(group)}`, { signal: AbortSignal.timeout(HTTP_TIMEOUT_MS) });
      if (!response.ok) {
        problems.push(`http://${address}/consumer-lag answered ${response.status}`);
        continue;
      }
      const body = (await response.json()) as { groups: GroupLagReport[] };
      const report = body.groups.find((g) => g.groupId === group);
      if (report === undefined) problems.push(`the broker at ${address} has no lag report for "${group}" (it is not the group's coordinator, or has not sampled it yet)`);
      else reports.set(group, report);
    } catch (error) {
      problems.push(`http://${address}/consumer-lag did not answer (${(error as Error).message})`);
    }
  }
  return { reports, problem: problems.length === 0 ? null : problems.join('; ') };
}
