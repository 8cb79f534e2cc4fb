/**
 * The console's consumer group endpoints, through the Admin client (ListGroups, DescribeGroups,
 * OffsetFetch, ListOffsets, OffsetCommit):
 *
 *   GET  /console/api/groups?offset=&limit=&search=     a page of groups with state and members
 *   GET  /console/api/groups/<id>                       members and assignment, committed offsets and lag
 *   POST /console/api/groups/<id>/offsets   {topic?, to: "earliest" | "latest" | {timestamp} | {offset}}  (write)
 *
 * Lag in offsets is the high watermark minus the committed offset (Admin.fetchGroupLag, as
 * `kafka-consumer-groups --describe`). Lag in seconds and the group's status (OK, WARNING,
 * STALLED, STOPPED) come from the lag monitor of the group's coordinator
 * (host/metrics/consumer-lag-monitor.ts, sampled every consumer.lag.sample.interval.ms): this
 * broker's, or another's over HTTP (console-group-lag.ts); null when none answers and before the
 * first sample.
 * A reset is refused by the coordinator unless the group is empty (NON_EMPTY_GROUP, 68).
 */
import type { Admin, OffsetSpec } from '../clients/admin.js';
import type { GroupDetail, GroupsPage } from './console-api-types.js';
import { ConsoleRequestError, intParam } from './console-responses.js';

/** The broker's evaluation of a group's lag in time (the metrics side of the console). */
export interface GroupLagSource {
  /** Null when the group is unknown to the evaluator. */
  describe(groupId: string): Promise<GroupLagEvaluation | null>;
}

export interface GroupLagEvaluation {
  /** OK, WARNING, STALLED, STOPPED (Burrow's words). */
  readonly status: string;
  readonly partitions: readonly { topic: string; partition: number; lagSeconds: number | null; status: string }[];
}

const MAX_GROUPS_PAGE = 100;

/** A page of groups, by id, each with its state and member count (one DescribeGroups per group of the page). */
export async function listGroupsPage(admin: Admin, query: URLSearchParams, lag: GroupLagSource | null): Promise<GroupsPage> {
  const offset = intParam(query, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
  const limit = intParam(query, 'limit', 50, 1, MAX_GROUPS_PAGE);
  const search = (query.get('search') ?? '').toLowerCase();
  const listed = (await admin.listGroups()).filter((g) => search === '' || g.groupId.toLowerCase().includes(search));
  const page = listed.slice(offset, offset + limit);
  const described = page.length === 0 ? [] : await admin.describeGroups(page.map((g) => g.groupId));
  const groups = await Promise.all(described.map(async (g) => {
    const lags = await admin.fetchGroupLag(g.groupId).catch(() => []);
    const evaluation = await lag?.describe(g.groupId).catch(() => null) ?? null;
    return {
      groupId: g.groupId, state: g.state, protocolType: g.protocolType, protocol: g.protocol, members: g.members.length,
      lag: lags.reduce((sum, p) => sum + p.lag, 0),
      lagSeconds: maxLagSeconds(evaluation),
      status: evaluation?.status ?? null,
    };
  }));
  return { total: listed.length, offset, groups };
}

/** One group: state, members with their assignment, and per partition committed offset, end and lag. */
export async function describeGroup(admin: Admin, groupId: string, lag: GroupLagSource | null): Promise<GroupDetail> {
  const [description] = await admin.describeGroups([groupId]);
  if (description === undefined || (description.state === 'Dead' && description.members.length === 0 && (await admin.fetchOffsets({ groupId })).length === 0)) {
    throw new ConsoleRequestError(404, 'GROUP_ID_NOT_FOUND', `group "${groupId}" does not exist`);
  }
  const lags = await admin.fetchGroupLag(groupId);
  const evaluation = await lag?.describe(groupId) ?? null;
  // One lookup per partition (a scan of the evaluation per partition was quadratic: 17 s at 50,000 partitions).
  const evaluated = new Map((evaluation?.partitions ?? []).map((e) => [`${e.topic}/${e.partition}`, e]));
  const owner = new Map<string, string>();
  for (const member of description.members) {
    for (const [topic, partitions] of Object.entries(member.assignment)) for (const p of partitions) owner.set(`${topic}/${p}`, member.memberId);
  }
  return {
    groupId, state: description.state, protocolType: description.protocolType, protocol: description.protocol,
    status: evaluation?.status ?? null,
    members: description.members.map((m) => ({
      memberId: m.memberId, groupInstanceId: m.groupInstanceId, clientId: m.clientId, clientHost: m.clientHost,
      assignment: Object.entries(m.assignment).map(([topic, partitions]) => ({ topic, partitions: [...partitions].sort((a, b) => a - b) })),
    })),
    offsets: lags.map((p) => ({
      topic: p.topic, partition: p.partition, committedOffset: p.committedOffset, logStartOffset: p.logStartOffset,
      logEndOffset: p.logEndOffset, lag: p.lag,
      ...partitionEvaluation(evaluated.get(`${p.topic}/${p.partition}`)),
      memberId: owner.get(`${p.topic}/${p.partition}`) ?? null,
    })),
    lag: lags.reduce((sum, p) => sum + p.lag, 0),
    lagSeconds: maxLagSeconds(evaluation),
  };
}

/** Resets an empty group's offsets: `{topic?, to}` as in the file header. */
export async function resetGroupOffsets(admin: Admin, groupId: string, body: Record<string, unknown>): Promise<object> {
  const topic = body['topic'];
  if (topic !== undefined && topic !== null && topic !== '' && typeof topic !== 'string') throw new ConsoleRequestError(400, 'INVALID_REQUEST', 'topic must be a string');
  const to = parseResetTarget(body['to']);
  const offsets = await admin.resetOffsets({ groupId, to, ...(typeof topic === 'string' && topic !== '' ? { topics: [topic] } : {}) });
  return { groupId, offsets };
}

function parseResetTarget(value: unknown): OffsetSpec | { offset: number } {
  if (value === 'earliest' || value === 'latest') return value;
  if (typeof value === 'object' && value !== null) {
    const target = value as { timestamp?: unknown; offset?: unknown };
    if (typeof target.timestamp === 'number' && Number.isSafeInteger(target.timestamp) && target.timestamp >= 0) return { timestamp: target.timestamp };
    if (typeof target.offset === 'number' && Number.isSafeInteger(target.offset) && target.offset >= 0) return { offset: target.offset };
  }
  throw new ConsoleRequestError(400, 'INVALID_REQUEST', 'to must be "earliest", "latest", {"timestamp": ms} or {"offset": n}');
}

function partitionEvaluation(found: GroupLagEvaluation['partitions'][number] | undefined): { lagSeconds: number | null; status: string | null } {
  return { lagSeconds: found?.lagSeconds ?? null, status: found?.status ?? null };
}

function maxLagSeconds(evaluation: GroupLagEvaluation | null): number | null {
  if (evaluation === null) return null;
  let max: number | null = null;
  for (const p of evaluation.partitions) if (p.lagSeconds !== null) max = Math.max(max ?? 0, p.lagSeconds);
  return max;
}
