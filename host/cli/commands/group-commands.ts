/**
 * `tributary group list|describe|delete|seek`.
 */
import type { GroupDescription, PartitionLag } from '../../clients/admin.js';
import { KafkaError } from '../../clients/errors.js';
import type { ClientCommandHandlers, ClientOptions, GroupDescribeOptions, GroupSeekOptions } from '../client-commands.js';
import { CliError, formatJson, formatTable, printResult, type CliIo } from '../output.js';
import { withAdmin } from './client-session.js';
import { fetchGroupLag, lagAddresses } from './consumer-lag-http.js';
import type { GroupLagReport } from '../../metrics/consumer-lag-monitor.js';

type GroupHandlers = Pick<ClientCommandHandlers, 'groupList' | 'groupDescribe' | 'groupDelete' | 'groupSeek'>;

function assignmentText(assignment: Record<string, number[]>): string {
  return Object.entries(assignment).map(([topic, partitions]) => `${topic}:${partitions.join(',')}`).join(' ');
}

/** The member that owns a partition, or null. */
function ownerOf(group: GroupDescription, topic: string, partition: number): string | null {
  return group.members.find((m) => m.assignment[topic]?.includes(partition))?.memberId ?? null;
}

async function groupList(io: CliIo, options: ClientOptions): Promise<void> {
  const groups = await withAdmin(options, 'list groups', async (admin) => {
    const listed = await admin.listGroups();
    const described = listed.length === 0 ? [] : await admin.describeGroups(listed.map((g) => g.groupId));
    return listed.map((g, i) => ({ group: g.groupId, state: described[i]?.state ?? '-', protocolType: g.protocolType, members: described[i]?.members.length ?? 0 }));
  });
  printResult(io, {
    rows: groups,
    columns: [
      { header: 'group', value: 'group' }, { header: 'state', value: 'state' },
      { header: 'protocol-type', value: 'protocolType' }, { header: 'members', value: 'members' },
    ],
  }, options);
}

/** The broker's view of one partition (lag in seconds, status), or nulls without a report. */
function brokerLag(report: GroupLagReport | undefined, topic: string, partition: number): { lagSeconds: number | null; status: string | null } {
  const entry = report?.partitions.find((p) => p.topic === topic && p.partition === partition);
  return { lagSeconds: entry?.lagSeconds ?? null, status: entry?.status ?? null };
}

/** Seconds for a table cell: one decimal, null stays empty. */
function secondsText(seconds: number | null | undefined): string | null {
  return seconds === null || seconds === undefined ? null : seconds.toFixed(1);
}

async function groupDescribe(io: CliIo, groups: string[], options: GroupDescribeOptions): Promise<void> {
  const described = await withAdmin(options, `describe ${groups.map((g) => `"${g}"`).join(', ')}`, async (admin) => {
    const descriptions = await admin.describeGroups(groups);
    const out: { description: GroupDescription; lag: PartitionLag[] }[] = [];
    for (const description of descriptions) out.push({ description, lag: await admin.fetchGroupLag(description.groupId) });
    // Lag in seconds and the status are computed by the coordinator and served on its HTTP listener.
    return { out, addresses: await lagAddresses(admin, options.http, groups) };
  }).then(({ out, addresses }) => fetchGroupLag(addresses).then((lookup) => ({ results: out, ...lookup })));
  const { results, reports, problem } = described;
  if (problem !== null) io.stderr.write(`note: no lag in seconds or status: ${problem}; pass --http HOST:PORT (the coordinator's http.listeners)\n`);
  if (options.json) {
    io.stdout.write(formatJson(results.map(({ description: d, lag }) => ({
      group: d.groupId,
      state: d.state,
      protocolType: d.protocolType,
      protocol: d.protocol,
      status: reports.get(d.groupId)?.status ?? null,
      members: d.members.map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId, clientId: m.clientId, host: m.clientHost, assignment: m.assignment })),
      offsets: lag.map((l) => ({ ...l, ...brokerLag(reports.get(d.groupId), l.topic, l.partition), memberId: ownerOf(d, l.topic, l.partition) })),
      totalLag: lag.reduce((sum, l) => sum + l.lag, 0),
      maxLagSeconds: reports.get(d.groupId)?.maxLagSeconds ?? null,
    }))));
    return;
  }
  const sections = results.map(({ description: d, lag }) =>
    `GROUP ${d.groupId}\n` +
    formatTable([{
      state: d.state, protocol: d.protocol || '-', members: d.members.length, totalLag: lag.reduce((s, l) => s + l.lag, 0),
      status: reports.get(d.groupId)?.status ?? null, maxLagSeconds: secondsText(reports.get(d.groupId)?.maxLagSeconds),
    }], [
      { header: 'state', value: 'state' }, { header: 'assignor', value: 'protocol' }, { header: 'members', value: 'members' }, { header: 'total-lag', value: 'totalLag' },
      { header: 'max-lag-seconds', value: 'maxLagSeconds' }, { header: 'status', value: 'status' },
    ]) +
    (d.members.length === 0 ? '' : `\nMEMBERS\n${formatTable(d.members, [
      { header: 'member-id', value: 'memberId' }, { header: 'client-id', value: 'clientId' }, { header: 'host', value: 'clientHost' },
      { header: 'assignment', value: (m) => assignmentText(m.assignment) },
    ])}`) +
    `\nOFFSETS\n${formatTable(lag, [
      { header: 'topic', value: 'topic' }, { header: 'partition', value: 'partition' },
      { header: 'current-offset', value: (l) => (l.committedOffset >= 0 ? l.committedOffset : null) },
      { header: 'log-end-offset', value: 'logEndOffset' }, { header: 'lag', value: 'lag' },
      { header: 'lag-seconds', value: (l) => secondsText(brokerLag(reports.get(d.groupId), l.topic, l.partition).lagSeconds) },
      { header: 'status', value: (l) => brokerLag(reports.get(d.groupId), l.topic, l.partition).status },
      { header: 'member-id', value: (l) => ownerOf(d, l.topic, l.partition) },
    ])}`);
  io.stdout.write(sections.join('\n'));
}

async function groupDelete(io: CliIo, groups: string[], options: ClientOptions): Promise<void> {
  const results = await withAdmin(options, 'delete groups', async (admin) => {
    const outcome: { group: string; status: string; failed: boolean }[] = [];
    for (const group of groups) {
      try {
        await admin.deleteGroups([group]);
        outcome.push({ group, status: 'DELETED', failed: false });
      } catch (error) {
        if (!(error instanceof KafkaError)) throw error;
        outcome.push({ group, status: error.errorName, failed: true });
      }
    }
    return outcome;
  });
  printResult(io, {
    rows: results,
    columns: [{ header: 'group', value: 'group' }, { header: 'status', value: 'status' }],
    json: results.map(({ group, status }) => ({ group, status })),
  }, options);
  const failed = results.filter((r) => r.failed);
  if (failed.length > 0) {
    const nonEmpty = failed.some((f) => f.status === 'NON_EMPTY_GROUP');
    throw new CliError(
      `could not delete ${failed.map((f) => `"${f.group}" (${f.status})`).join(', ')}`,
      nonEmpty ? 'stop the group\'s consumers first (tributary group describe GROUP lists them)' : 'check the group ids with tributary group list',
    );
  }
}

async function groupSeek(io: CliIo, group: string, options: GroupSeekOptions): Promise<void> {
  const to = options.to;
  const spec = to.kind === 'earliest' || to.kind === 'latest' ? to.kind
    : to.kind === 'offset' ? { offset: to.offset } : { timestamp: to.timestampMs };
  const offsets = await withAdmin(options, `seek group "${group}"`, async (admin) => {
    const topics = options.topic.length > 0 ? options.topic : undefined;
    if (topics === undefined && (await admin.fetchOffsets({ groupId: group })).length === 0) {
      throw new CliError(`group "${group}" has no committed offsets to move`, 'name the topics to set with --topic TOPIC');
    }
    return admin.resetOffsets({ groupId: group, ...(topics === undefined ? {} : { topics }), to: spec });
  });
  printResult(io, {
    rows: offsets,
    columns: [{ header: 'topic', value: 'topic' }, { header: 'partition', value: 'partition' }, { header: 'new-offset', value: 'offset' }],
    json: { group, offsets },
  }, options);
}

export function groupHandlers(io: CliIo): GroupHandlers {
  return {
    groupList: (options: ClientOptions) => groupList(io, options),
    groupDescribe: (groups: string[], options: GroupDescribeOptions) => groupDescribe(io, groups, options),
    groupDelete: (groups: string[], options: ClientOptions) => groupDelete(io, groups, options),
    groupSeek: (group: string, options: GroupSeekOptions) => groupSeek(io, group, options),
  };
}
