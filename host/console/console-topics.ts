/**
 * The console's topic endpoints, through the Admin client (Metadata, ListOffsets,
 * DescribeConfigs, CreateTopics, DeleteTopics, CreatePartitions):
 *
 *   GET    /console/api/topics?offset=&limit=&internal=&search=   a page of topics, by name
 *   GET    /console/api/topics/<name>                              partitions and configs
 *   POST   /console/api/topics            {name, partitions?, replicationFactor?, configs?}   (write)
 *   DELETE /console/api/topics/<name>                                                        (write)
 *   POST   /console/api/topics/<name>/partitions   {count}                                    (write)
 *
 * Work per request is bounded by the page: one Metadata for the names (sorted and filtered
 * without describing a partition), a second Metadata for the topics of the page only, then
 * ListOffsets for those (issue 15: at 50,000 partitions describing every partition of every
 * topic for each page held the loop for hundreds of milliseconds, and the page is polled every
 * 3 s). The page size is console.topics.page.size unless the request gives `limit`, at most
 * console.topics.max.page.size. Sizes are those of the replicas this broker holds (Kafka reports sizes
 * per log directory, DescribeLogDirs, which Tributary does not have yet): null for partitions
 * held elsewhere only.
 */
import type { Admin } from '../clients/admin.js';
import type { TopicDetail, TopicSummary, TopicsPage } from './console-api-types.js';
import { ConsoleRequestError, intParam } from './console-responses.js';

/** The size in bytes of this broker's replica of a partition, null when it holds none. */
export type LocalLogSize = (topic: string, partition: number) => number | null;

/** console.topics.page.size and console.topics.max.page.size. */
export interface TopicsPageLimits {
  /** Topics in a page when the request gives no `limit`. */
  readonly pageSize: number;
  /** The largest `limit` accepted (a larger one answers 400 INVALID_REQUEST). */
  readonly maxPageSize: number;
}

/**
 * A page of topics sorted by name (localeCompare); `search` keeps names containing it, case
 * ignored. @throws ConsoleRequestError 400 for an offset or limit out of range
 */
export async function listTopicsPage(admin: Admin, query: URLSearchParams, localLogSize: LocalLogSize, limits: TopicsPageLimits): Promise<TopicsPage> {
  const offset = intParam(query, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
  const limit = intParam(query, 'limit', Math.min(limits.pageSize, limits.maxPageSize), 1, limits.maxPageSize);
  const includeInternal = query.get('internal') === 'true';
  const search = (query.get('search') ?? '').toLowerCase();
  const names = (await admin.listTopics({ includeInternal }))
    .filter((name) => search === '' || name.toLowerCase().includes(search))
    .sort((a, b) => a.localeCompare(b));
  const pageNames = names.slice(offset, offset + limit);
  // A topic deleted since the names were read is left out of the page.
  const described = pageNames.length === 0 ? [] : await admin.describeTopics({ topics: pageNames }).catch(async () => {
    const existing = new Set(await admin.listTopics({ includeInternal }));
    const remaining = pageNames.filter((name) => existing.has(name));
    return remaining.length === 0 ? [] : admin.describeTopics({ topics: remaining });
  });
  const page = described.sort((a, b) => a.name.localeCompare(b.name));
  const topics = await Promise.all(page.map(async (topic): Promise<TopicSummary> => {
    const offsets = topic.partitions.length === 0 ? [] : await admin.fetchTopicOffsets(topic.name).catch(() => []);
    let sizeBytes: number | null = null;
    for (const partition of topic.partitions) {
      const size = localLogSize(topic.name, partition.partition);
      if (size !== null) sizeBytes = (sizeBytes ?? 0) + size;
    }
    return {
      name: topic.name,
      internal: topic.isInternal,
      partitions: topic.partitions.length,
      replicationFactor: topic.partitions[0]?.replicas.length ?? 0,
      underReplicatedPartitions: topic.partitions.filter((p) => p.isr.length < p.replicas.length).length,
      offlinePartitions: topic.partitions.filter((p) => p.leader < 0).length,
      messages: offsets.reduce((sum, p) => sum + Math.max(0, p.high - p.low), 0),
      sizeBytes,
    };
  }));
  return { total: names.length, offset, limit, topics };
}

/** One topic: partitions with leader, replicas, ISR, offsets and local size; its configs. */
export async function describeTopic(admin: Admin, name: string, localLogSize: LocalLogSize): Promise<TopicDetail> {
  const [topic] = await admin.describeTopics({ topics: [name], includeConfigs: true });
  if (topic === undefined) throw new ConsoleRequestError(404, 'UNKNOWN_TOPIC_OR_PARTITION', `topic "${name}" does not exist`);
  const offsets = topic.partitions.length === 0 ? [] : await admin.fetchTopicOffsets(name);
  const boundsOf = new Map(offsets.map((o) => [o.partition, o]));
  return {
    name: topic.name,
    internal: topic.isInternal,
    partitions: topic.partitions.map((p) => {
      const bounds = boundsOf.get(p.partition); // a Map, not a find per partition: n²/2 at 50,000 partitions
      return {
        partition: p.partition,
        leader: p.leader,
        leaderEpoch: p.leaderEpoch,
        replicas: p.replicas,
        isr: p.isr,
        offlineReplicas: p.offlineReplicas,
        logStartOffset: bounds?.low ?? null,
        highWatermark: bounds?.high ?? null,
        sizeBytes: localLogSize(name, p.partition),
      };
    }),
    configs: (topic.configs ?? []).map((c) => ({
      name: c.name, value: c.value, source: c.sourceName, isDefault: c.isDefault, readOnly: c.readOnly, sensitive: c.isSensitive,
    })),
  };
}

/** CreateTopics from `{name, partitions?, replicationFactor?, configs?}`. */
export async function createTopic(admin: Admin, body: Record<string, unknown>): Promise<object> {
  const name = body['name'];
  if (typeof name !== 'string' || name === '') throw new ConsoleRequestError(400, 'INVALID_REQUEST', 'name must be a non-empty string');
  const partitions = optionalInteger(body['partitions'], 'partitions');
  const replicationFactor = optionalInteger(body['replicationFactor'], 'replicationFactor');
  const configs = body['configs'] ?? {};
  if (typeof configs !== 'object' || configs === null || Object.values(configs).some((v) => typeof v !== 'string')) {
    throw new ConsoleRequestError(400, 'INVALID_REQUEST', 'configs must be an object of strings, e.g. {"retention.ms": "86400000"}');
  }
  await admin.createTopics({
    topics: [{ topic: name, numPartitions: partitions ?? -1, replicationFactor: replicationFactor ?? -1, configs: configs as Record<string, string> }],
  });
  return { created: name };
}

/** CreatePartitions from `{count}` (the new total). */
export async function addPartitions(admin: Admin, name: string, body: Record<string, unknown>): Promise<object> {
  const count = optionalInteger(body['count'], 'count');
  if (count === undefined) throw new ConsoleRequestError(400, 'INVALID_REQUEST', 'count (the new number of partitions) is required');
  await admin.createPartitions({ topicPartitions: [{ topic: name, count }] });
  return { topic: name, partitions: count };
}

function optionalInteger(value: unknown, name: string): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const number = typeof value === 'string' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < 1) {
    throw new ConsoleRequestError(400, 'INVALID_REQUEST', `${name} must be a positive integer`);
  }
  return number;
}
