/**
 * Why the broker ended fuzz connections, counted from its JSON log lines (log.level=warn, so every
 * line below is printed):
 * - `connection.closed` (warn): the broker closed a connection it had accepted; `reason` is the
 *   sentence it logged (a bad size prefix, a request it refused without an error to answer with, a
 *   partial frame past socket.partial.request.timeout.ms, a truncated frame at the peer's end...);
 * - `connection.refused` (warn): a connection closed as soon as it was accepted; `reason` names the
 *   limit (`max.connections`, `max.connections.per.ip`);
 * - `request.refused` (warn): a request refused with an error or by closing its connection.
 * Reasons are grouped with their numbers replaced by `N` (sizes, versions, api keys), so
 * "api key 1234 is not supported" and "api key 77 is not supported" count together.
 *
 * `recent()` answers the counts since its previous call, so the campaign's progress lines show
 * when the mix of reasons changes (a limit that starts refusing every connection shows there).
 */

/** Counts by event then by grouped reason. */
export type ClosureCounts = Record<string, Record<string, number>>;

/** The events tallied, by their `event` field. */
export const TALLIED_EVENTS: readonly string[] = ['connection.closed', 'connection.refused', 'request.refused'];

const MAX_REASON_CHARS = 120;

/** A reason with its numbers replaced by N, at most 120 characters. */
export function groupReason(reason: string): string {
  const grouped = reason.replace(/-?\d+/g, 'N');
  return grouped.length <= MAX_REASON_CHARS ? grouped : `${grouped.slice(0, MAX_REASON_CHARS - 1)}…`;
}

export class ClosureTally {
  readonly total: ClosureCounts = {};
  private sinceLast: ClosureCounts = {};

  /** Counts `line` when it is one of TALLIED_EVENTS; other lines (and non-JSON ones) are ignored. */
  onLine(line: string): void {
    if (!TALLIED_EVENTS.some((event) => line.includes(`"${event}"`))) return;
    let parsed: { event?: unknown; reason?: unknown };
    try {
      parsed = JSON.parse(line) as { event?: unknown; reason?: unknown };
    } catch {
      return;
    }
    if (typeof parsed.event !== 'string' || !TALLIED_EVENTS.includes(parsed.event)) return;
    const reason = groupReason(typeof parsed.reason === 'string' ? parsed.reason : 'no reason');
    for (const counts of [this.total, this.sinceLast]) {
      const byReason = (counts[parsed.event] ??= {});
      byReason[reason] = (byReason[reason] ?? 0) + 1;
    }
  }

  /** The counts since the previous call (and resets them). */
  recent(): ClosureCounts {
    const recent = this.sinceLast;
    this.sinceLast = {};
    return recent;
  }
}

/** How many lines of `event` in `counts`. */
export function eventCount(counts: ClosureCounts, event: string): number {
  return Object.values(counts[event] ?? {}).reduce((sum, n) => sum + n, 0);
}

/** `event`'s `top` most frequent reasons, "reason ×n" joined by "; ". */
export function topReasons(counts: ClosureCounts, event: string, top: number): string {
  return Object.entries(counts[event] ?? {})
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([reason, n]) => `${reason} ×${n}`)
    .join('; ');
}
