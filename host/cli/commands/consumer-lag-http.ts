/**
 * The lag in seconds and the Burrow-style status a broker computes for the groups it coordinates
 * (host/metrics/consumer-lag-monitor.ts), read from its HTTP listener's `GET /consumer-lag?group=`
 * for `tributary group describe`. The Kafka protocol has no field for them, so the CLI asks the
 * HTTP listener (http.listeners) beside the Kafka one.
 */
import type { GroupLagReport } from '../../metrics/consumer-lag-monitor.js';

/** How long the CLI waits for the HTTP listener, ms. */
const HTTP_TIMEOUT_MS = 5_000;
/** The broker's default http.listeners port. */
const DEFAULT_HTTP_PORT = 8080;

/** The reports, or why there are none (a sentence for stderr). */
export type LagLookup = { reports: Map<string, GroupLagReport>; problem: string | null };

/** `host:port` of the HTTP listener: `--http`, else the first bootstrap server's host on port 8080. */
export function httpAddress(http: string | undefined, bootstrapServers: readonly string[]): string {
  if (http !== undefined && http !== '') return http;
  const first = bootstrapServers[0] ?? '127.0.0.1:9092';
  const host = first.startsWith('[') ? first.slice(0, first.indexOf(']') + 1) : first.split(':')[0]!;
  return `${host}:${DEFAULT_HTTP_PORT}`;
}

/** Asks `address` for each group's report; never throws (a failure becomes `problem`). */
export async function fetchGroupLag(address: string, groups: readonly string[]): Promise<LagLookup> {
  const reports = new Map<string, GroupLagReport>();
  const missing: string[] = [];
  try {
    for (const group of groups) {
      const response = await fetch(`http://${address}/consumer-lag?group=${encodeURIComponent(group)}`, { signal: AbortSignal.timeout(HTTP_TIMEOUT_MS) });
      if (!response.ok) return { reports, problem: `http://${address}/consumer-lag answered ${response.status}` };
      const body = (await response.json()) as { groups: GroupLagReport[] };
      const report = body.groups.find((g) => g.groupId === group);
      if (report === undefined) missing.push(group);
      else reports.set(group, report);
    }
  } catch (error) {
    return { reports, problem: `http://${address}/consumer-lag did not answer (${(error as Error).message})` };
  }
  if (missing.length > 0) {
    return { reports, problem: `the broker at ${address} has no lag report for ${missing.map((g) => `"${g}"`).join(', ')} (it is not the group's coordinator, or has not sampled it yet)` };
  }
  return { reports, problem: null };
}
