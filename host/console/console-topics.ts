/**
 * The console's topic endpoints, through the Admin client (Metadata, ListOffsets,
 * DescribeConfigs, CreateTopics, DeleteTopics, CreatePartitions):
 *
 *   GET    /console/api/topics?offset=&limit=&internal=&search=   a page of topics (console-topics-page.ts)
 *   GET    /console/api/topics/<name>                              partitions and configs
 *   POST   /console/api/topics            {name, partitions?, replicationFactor?, configs?}   (write)
 *   DELETE /console/api/topics/<name>                                                        (write)
 *   POST   /console/api/topics/<name>/partitions   {count}                                    (write)
 *
 * The list of topics reads the broker's own metadata and logs instead (console-topics-page.ts:
 * issue 15, an all-topics Metadata per page held the loop for 1-2 s at 50,000 partitions). Sizes
 * are those of the replicas this broker holds (Kafka reports sizes per log directory,
 * DescribeLogDirs, which Tributary does not have yet): null for partitions held elsewhere only.
 */
import type { Admin } from '../clients/admin.js';
import type { TopicDetail } from './console-api-types.js';
import { ConsoleRequestError } from './console-responses.js';

/** The size in bytes of this broker's replica of a partition, null when it holds none. */
export type LocalLogSize = (topic: string, partition: number) => number | null;

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
