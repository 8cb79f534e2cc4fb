/**
 * `tributary topic create|list|describe|delete|alter-config|add-partitions|elect-leaders`.
 */
import type { Admin, ConfigEntry, TopicDescription } from '../../clients/admin.js';
import { KafkaError } from '../../clients/errors.js';
import { ErrorCode, errorName } from '../../protocol/generated/error-codes.js';
import type {
  ClientCommandHandlers, ClientOptions, TopicAddPartitionsOptions, TopicAlterConfigOptions, TopicCreateOptions, TopicElectLeadersOptions,
  TopicListOptions,
} from '../client-commands.js';
import { CliError, formatJson, formatTable, printResult, type CliIo } from '../output.js';
import type { FixOverrides } from './client-errors.js';
import { withAdmin } from './client-session.js';

type TopicHandlers = Pick<ClientCommandHandlers,
  'topicCreate' | 'topicList' | 'topicDescribe' | 'topicDelete' | 'topicAlterConfig' | 'topicAddPartitions' | 'topicElectLeaders'>;

function replicationFactor(topic: TopicDescription): number {
  return topic.partitions[0]?.replicas.length ?? 0;
}

async function topicCreate(io: CliIo, topic: string, options: TopicCreateOptions): Promise<void> {
  const { existed, description } = await withAdmin(options, `create topic "${topic}"`, async (admin) => {
    let already = false;
    try {
      await admin.createTopics({ topics: [{
        topic, numPartitions: options.partitions, replicationFactor: options.replicationFactor, configs: options.config,
      }] });
    } catch (error) {
      if (!(options.ifNotExists && error instanceof KafkaError && error.errorCode === ErrorCode.TOPIC_ALREADY_EXISTS)) throw error;
      already = true;
    }
    const [described] = await admin.describeTopics({ topics: [topic] });
    return { existed: already, description: described! };
  });
  const row = { topic, status: existed ? 'EXISTS' : 'CREATED', partitions: description.partitions.length, replicationFactor: replicationFactor(description) };
  printResult(io, {
    rows: [row],
    columns: [
      { header: 'topic', value: 'topic' }, { header: 'status', value: 'status' },
      { header: 'partitions', value: 'partitions' }, { header: 'replicas', value: 'replicationFactor' },
    ],
    json: row,
  }, options);
}

async function topicList(io: CliIo, options: TopicListOptions): Promise<void> {
  const topics = await withAdmin(options, 'list topics', async (admin) => {
    const names = await admin.listTopics({ includeInternal: options.internal });
    return names.length === 0 ? [] : admin.describeTopics({ topics: names });
  });
  const rows = topics.map((t) => ({ name: t.name, partitions: t.partitions.length, replicas: replicationFactor(t), internal: t.isInternal }));
  printResult(io, {
    rows,
    columns: [
      { header: 'name', value: 'name' }, { header: 'partitions', value: 'partitions' }, { header: 'replicas', value: 'replicas' },
      ...(options.internal ? [{ header: 'internal', value: 'internal' as const }] : []),
    ],
  }, options);
}

/** How long `topic describe` waits for one leader's offsets before showing them as -1 (unknown). */
const OFFSETS_WAIT_MS = 3000;

/** Log start and high watermark of `partitions` (one leader's), or nothing when that leader does not answer within {@link OFFSETS_WAIT_MS}. */
async function offsetsWithin(admin: Admin, topic: string, partitions: number[]): Promise<{ partition: number; low: number; high: number }[]> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<null>((resolve) => { timer = setTimeout(() => resolve(null), OFFSETS_WAIT_MS); });
  const asked = Promise.all([
    admin.listOffsets({ topic, partitions, spec: 'earliest' }),
    admin.listOffsets({ topic, partitions, spec: 'latest' }),
  ]).catch(() => null);
  try {
    const answer = await Promise.race([asked, timedOut]);
    if (answer === null) return [];
    const [low, high] = answer;
    const highs = new Map(high.map((h) => [h.partition, h.offset]));
    return low.map((l) => ({ partition: l.partition, low: l.offset, high: highs.get(l.partition) ?? -1 }));
  } finally {
    clearTimeout(timer);
  }
}

async function topicDescribe(io: CliIo, topics: string[], options: ClientOptions): Promise<void> {
  const { described, moving } = await withAdmin(options, `describe ${topics.map((t) => `"${t}"`).join(', ')}`, async (admin) => {
    const descriptions = await admin.describeTopics({ topics, includeConfigs: true });
    // Partitions being reassigned (kafka-topics.sh shows their adding and removing replicas); none from a broker without the API.
    const ongoing = await admin.listPartitionReassignments({ topics: descriptions.map((d) => ({ topic: d.name, partitions: d.partitions.map((p) => p.partition) })) })
      .catch(() => []);
    const withOffsets = await Promise.all(descriptions.map(async (d) => {
      // An offline partition (no leader) has no offsets to ask for: -1 is shown instead. Offsets are
      // asked of each leader apart, within OFFSETS_WAIT_MS: a leader that just died (its death not
      // yet in the metadata) leaves its partitions' offsets at -1 instead of failing the describe.
      const byLeader = new Map<number, number[]>();
      for (const p of d.partitions) {
        if (p.leader < 0) continue;
        let partitions = byLeader.get(p.leader);
        if (partitions === undefined) byLeader.set(p.leader, partitions = []);
        partitions.push(p.partition);
      }
      const perLeader = await Promise.all([...byLeader.values()].map((partitions) => offsetsWithin(admin, d.name, partitions)));
      return { ...d, offsets: new Map(perLeader.flat().map((o) => [o.partition, o])) };
    }));
    return { described: withOffsets, moving: ongoing };
  });
  // Lookups by key, not searches per partition (a topic may have tens of thousands).
  const moves = new Map(moving.map((m) => [`${m.topic}\u0000${m.partition}`, m]));
  const reassignment = (topic: string, partition: number) => moves.get(`${topic}\u0000${partition}`);
  if (options.json) {
    io.stdout.write(formatJson(described.map((d) => ({
      name: d.name,
      isInternal: d.isInternal,
      replicationFactor: replicationFactor(d),
      partitions: d.partitions.map((p) => {
        const offsets = d.offsets.get(p.partition);
        const move = reassignment(d.name, p.partition);
        return {
          ...p, logStartOffset: offsets?.low ?? -1, highWatermark: offsets?.high ?? -1,
          addingReplicas: move?.addingReplicas ?? [], removingReplicas: move?.removingReplicas ?? [],
        };
      }),
      configs: Object.fromEntries((d.configs ?? []).map((c) => [c.name, { value: c.value, source: c.sourceName, isDefault: c.isDefault }])),
    }))));
    return;
  }
  const sections: string[] = [];
  for (const d of described) {
    const overrides = (d.configs ?? []).filter((c: ConfigEntry) => !c.isDefault);
    sections.push(
      `SUMMARY\n=======\n${formatTable([{ name: d.name, partitions: d.partitions.length, replicas: replicationFactor(d), internal: d.isInternal }], [
        { header: 'name', value: 'name' }, { header: 'partitions', value: 'partitions' }, { header: 'replicas', value: 'replicas' }, { header: 'internal', value: 'internal' },
      ])}\nCONFIGS (non-default)\n=====================\n${formatTable(overrides, [
        { header: 'key', value: 'name' }, { header: 'value', value: 'value' }, { header: 'source', value: 'sourceName' },
      ])}\nPARTITIONS\n==========\n${formatTable(d.partitions.map((p) => {
        const offsets = d.offsets.get(p.partition);
        const move = reassignment(d.name, p.partition);
        return { ...p, logStartOffset: offsets?.low ?? -1, highWatermark: offsets?.high ?? -1, adding: move?.addingReplicas ?? '-', removing: move?.removingReplicas ?? '-' };
      }), [
        { header: 'partition', value: 'partition' }, { header: 'leader', value: 'leader' }, { header: 'epoch', value: 'leaderEpoch' },
        { header: 'replicas', value: 'replicas' }, { header: 'isr', value: 'isr' }, { header: 'offline', value: (p) => (p.offlineReplicas.length === 0 ? '-' : p.offlineReplicas) },
        // Only while some partition of the topic is being reassigned, as kafka-topics.sh.
        ...(moving.some((m) => m.topic === d.name)
          ? [{ header: 'adding', value: 'adding' as const }, { header: 'removing', value: 'removing' as const }] : []),
        { header: 'log-start-offset', value: 'logStartOffset' }, { header: 'high-watermark', value: 'highWatermark' },
      ])}`,
    );
  }
  io.stdout.write(sections.join('\n'));
}

async function topicDelete(io: CliIo, topics: string[], options: ClientOptions): Promise<void> {
  const results = await withAdmin(options, 'delete topics', async (admin) => {
    const outcome: { topic: string; status: string; error: KafkaError | null }[] = [];
    for (const topic of topics) {
      try {
        await admin.deleteTopics({ topics: [topic] });
        outcome.push({ topic, status: 'DELETED', error: null });
      } catch (error) {
        if (!(error instanceof KafkaError)) throw error;
        outcome.push({ topic, status: error.errorName, error });
      }
    }
    return outcome;
  });
  printResult(io, {
    rows: results,
    columns: [{ header: 'topic', value: 'topic' }, { header: 'status', value: 'status' }],
    json: results.map(({ topic, status }) => ({ topic, status })),
  }, options);
  const failed = results.filter((r) => r.error !== null);
  if (failed.length > 0) {
    throw new CliError(
      `could not delete ${failed.map((f) => `"${f.topic}" (${f.status})`).join(', ')}`,
      'check the names with tributary topic list',
    );
  }
}

async function topicAlterConfig(io: CliIo, topic: string, options: TopicAlterConfigOptions): Promise<void> {
  if (Object.keys(options.set).length === 0 && options.delete.length === 0) {
    throw new CliError('nothing to change', 'give --set key=value and/or --delete key', 2);
  }
  const overrides = await withAdmin(options, `alter the configs of "${topic}"`, (admin) =>
    admin.alterTopicConfigs(topic, { set: options.set, delete: options.delete }));
  const rows = Object.entries(overrides).sort(([a], [b]) => a.localeCompare(b)).map(([key, value]) => ({ key, value }));
  printResult(io, {
    rows,
    columns: [{ header: 'key', value: 'key' }, { header: 'value', value: 'value' }],
    json: { topic, overrides },
  }, options);
}

/**
 * ElectLeaders for the named topics (kafka-leader-election.sh): ELECTED, or why not
 * (ELECTION_NOT_NEEDED is fine; any other error fails the command).
 */
async function topicElectLeaders(io: CliIo, topics: string[], options: TopicElectLeadersOptions): Promise<void> {
  const results = await withAdmin(options, `elect leaders of ${topics.map((t) => `"${t}"`).join(', ')}`, async (admin) => {
    const partitions = options.partition.length > 0
      ? topics.map((topic) => ({ topic, partitions: [...options.partition] }))
      : (await admin.describeTopics({ topics })).map((d) => ({ topic: d.name, partitions: d.partitions.map((p) => p.partition) }));
    return admin.electLeaders({ electionType: options.unclean ? 'unclean' : 'preferred', partitions });
  });
  const rows = results.map((r) => ({
    topic: r.topic, partition: r.partition,
    status: r.errorCode === ErrorCode.NONE ? 'ELECTED' : errorName(r.errorCode) ?? `ERROR_${r.errorCode}`,
  }));
  printResult(io, {
    rows,
    columns: [{ header: 'topic', value: 'topic' }, { header: 'partition', value: 'partition' }, { header: 'status', value: 'status' }],
    json: rows,
  }, options);
  const failed = results.filter((r) => r.errorCode !== ErrorCode.NONE && r.errorCode !== ErrorCode.ELECTION_NOT_NEEDED);
  if (failed.length > 0) {
    throw new CliError(
      `no leader elected for ${failed.map((f) => `${f.topic}-${f.partition}`).join(', ')}`,
      options.unclean ? 'a live replica is needed: start a broker that holds one' : 'the preferred replica must be alive and in the ISR first (see tributary topic describe)',
    );
  }
}

/**
 * add-partitions' own fix lines: it has no replication factor option (new partitions take the
 * topic's), so INVALID_REPLICATION_FACTOR (38) there means too few live brokers.
 */
export const ADD_PARTITIONS_FIXES: FixOverrides = {
  [ErrorCode.INVALID_REPLICATION_FACTOR]:
    'fewer brokers are available than the topic\'s replication factor: start the missing brokers (tributary cluster info lists the live ones), then retry',
};

async function topicAddPartitions(io: CliIo, topic: string, options: TopicAddPartitionsOptions): Promise<void> {
  const result = await withAdmin(options, `add partitions to "${topic}"`, async (admin) => {
    const [before] = await admin.describeTopics({ topics: [topic] });
    const count = before!.partitions.length + options.num;
    await admin.createPartitions({ topicPartitions: [{ topic, count }] });
    return { topic, previous: before!.partitions.length, partitions: count };
  }, ADD_PARTITIONS_FIXES);
  printResult(io, {
    rows: [result],
    columns: [{ header: 'topic', value: 'topic' }, { header: 'previous', value: 'previous' }, { header: 'partitions', value: 'partitions' }],
    json: result,
  }, options);
}

export function topicHandlers(io: CliIo): TopicHandlers {
  return {
    topicCreate: (topic: string, options: TopicCreateOptions) => topicCreate(io, topic, options),
    topicList: (options: TopicListOptions) => topicList(io, options),
    topicDescribe: (topics: string[], options: ClientOptions) => topicDescribe(io, topics, options),
    topicDelete: (topics: string[], options: ClientOptions) => topicDelete(io, topics, options),
    topicAlterConfig: (topic: string, options: TopicAlterConfigOptions) => topicAlterConfig(io, topic, options),
    topicAddPartitions: (topic: string, options: TopicAddPartitionsOptions) => topicAddPartitions(io, topic, options),
    topicElectLeaders: (topics: string[], options: TopicElectLeadersOptions) => topicElectLeaders(io, topics, options),
  };
}
