/**
 * Issue 9's done criterion, before the controller quorum exists: two BrokerServers in one process
 * under one ManualTime and one SeededRandom, each with its own log.dirs and its own cache, sharing
 * the process's WebAssembly core. A produce on one over TCP is fetched back from it; the other
 * knows nothing of it; and the same seed gives the same cluster ids, topic ids, incarnation ids
 * and group member ids on every run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { libraryBrokerConfig } from '../../host/broker.js';
import { NodeDisk } from '../../host/io/disk.js';
import { manualEnvironment } from '../../host/io/manual-environment.js';
import { createLogger } from '../../host/observability/logger.js';
import { BrokerServer } from '../../host/server/broker-server.js';
import { getCore } from '../../host/wasm/core.js';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { decodeFindCoordinatorResponse, encodeFindCoordinatorRequest } from '../../host/protocol/generated/find-coordinator.js';
import { decodeJoinGroupResponse, encodeJoinGroupRequest } from '../../host/protocol/generated/join-group.js';
import { RawKafkaClient } from '../integration/raw-kafka-client.js';
import { batch, createTopic, decodeRecords, fetch, fetchRequest, metadata, produce, values } from '../integration/requests.js';

const dirs: string[] = [];
const clients: RawKafkaClient[] = [];
afterEach(() => {
  for (const client of clients.splice(0)) client.socket.destroy();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function brokerServer(nodeId: number, environment: ReturnType<typeof manualEnvironment>): BrokerServer {
  const dir = mkdtempSync(join(tmpdir(), `tributary-two-brokers-${nodeId}-`));
  dirs.push(dir);
  const config = libraryBrokerConfig({ logDirs: [dir], overrides: { 'node.id': nodeId, 'offsets.topic.num.partitions': 1 } });
  return new BrokerServer(config, environment, { core: getCore(), logger: createLogger({ level: 'silent' }) });
}

async function connect(server: BrokerServer): Promise<RawKafkaClient> {
  const client = await RawKafkaClient.connect(server.listeners[0]!.port);
  clients.push(client);
  return client;
}

/** Everything a client or the broker's own metadata shows that the seed decides. */
interface Observed {
  clusterIds: string[];
  topicIds: (string | undefined)[];
  incarnationIds: (string | undefined)[];
  offsetsTopicId: string | undefined;
  memberId: string;
  produced: { errorCode: number; baseOffset: number }[];
  fetched: string[];
  logAppendTimes: number[];
  metadataOfOther: { brokers: number[]; topics: string[] };
}

/** Starts two brokers on one seeded environment, produces to the first, fetches back, stops both. */
async function runScenario(seed: number): Promise<Observed> {
  const environment = manualEnvironment({ seed, disk: new NodeDisk() });
  const first = brokerServer(1, environment);
  const second = brokerServer(2, environment);
  await first.startup();
  await second.startup();
  try {
    expect(first.resources.core).toBe(second.resources.core);
    expect(first.resources.readBuffers).not.toBe(second.resources.readBuffers);

    const client = await connect(first);
    expect(await createTopic(client, 'orders', 1, [{ name: 'message.timestamp.type', value: 'LogAppendTime' }])).toBe(0);
    const produced = [];
    for (const records of [['a', 'b'], ['c']]) {
      const response = await produce(client, 7, [{ topic: 'orders', partition: 0, records: batch(records, { baseTimestamp: 1 }) }]);
      const partition = response.responses[0]!.partitionResponses[0]!;
      produced.push({ errorCode: partition.errorCode, baseOffset: Number(partition.baseOffset) });
    }
    environment.time.advance(1_000);
    const fetchedResponse = await fetch(client, 11, fetchRequest([{ topic: 'orders', partition: 0, fetchOffset: 0 }]));
    const fetchedPartition = fetchedResponse.responses[0]!.partitions[0]!;
    expect(fetchedPartition.errorCode).toBe(0);

    // A group member id takes its random part from the seeded source too (JoinGroup v4+ assigns
    // one and asks the member to rejoin with it, KIP-394).
    const coordinator = await client.request(ApiKey.FindCoordinator, 2, encodeFindCoordinatorRequest, decodeFindCoordinatorResponse,
      { key: 'billing', keyType: 0 });
    expect(coordinator.errorCode).toBe(ErrorCode.NONE);
    const joined = await client.request(ApiKey.JoinGroup, 5, encodeJoinGroupRequest, decodeJoinGroupResponse, {
      groupId: 'billing', sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: '', groupInstanceId: null,
      protocolType: 'consumer', protocols: [{ name: 'range', metadata: Buffer.alloc(0) }],
    });
    expect(joined.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);

    // The other broker is independent: its own cluster, its own cache, nothing of 'orders'.
    const other = await metadata(await connect(second), 8, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    expect(second.metadataCache.topic('orders')).toBeUndefined();
    expect(first.metadataCache.topic('orders')!.partitions[0]!.leaderId).toBe(1);

    return {
      clusterIds: [first.clusterId, second.clusterId],
      topicIds: [first.metadataCache.topic('orders')?.topicId, second.metadataCache.topic('orders')?.topicId],
      incarnationIds: [first.metadataCache.broker(1)?.incarnationId, second.metadataCache.broker(2)?.incarnationId],
      offsetsTopicId: first.metadataCache.topic('__consumer_offsets')?.topicId,
      memberId: joined.memberId,
      produced,
      fetched: values(fetchedPartition.records),
      logAppendTimes: decodeRecords(fetchedPartition.records).headers.map((header) => header.maxTimestamp),
      metadataOfOther: { brokers: other.brokers.map((broker) => broker.nodeId), topics: other.topics.map((topic) => topic.name) },
    };
  } finally {
    await first.shutdown();
    await second.shutdown();
  }
}

describe('two BrokerServers in one process', () => {
  it('run independently under one manual clock and seed, and the same seed gives the same run', async () => {
    const run = await runScenario(42);
    expect(run.produced).toEqual([{ errorCode: 0, baseOffset: 0 }, { errorCode: 0, baseOffset: 2 }]);
    expect(run.fetched).toEqual(['a', 'b', 'c']);
    // LogAppendTime stamps come from the environment's clock (manualEnvironment starts at 1_700_000_000_000).
    expect(run.logAppendTimes).toEqual([1_700_000_000_000, 1_700_000_000_000]);
    expect(run.clusterIds[0]).not.toBe(run.clusterIds[1]);
    expect(run.topicIds[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(run.topicIds[1]).toBeUndefined();
    expect(run.metadataOfOther).toEqual({ brokers: [2], topics: [] });
    expect(run.memberId).toMatch(/^raw-test-[0-9a-f-]{36}$/);

    expect(await runScenario(42)).toEqual(run);
    const otherSeed = await runScenario(43);
    expect(otherSeed.clusterIds).not.toEqual(run.clusterIds);
    expect(otherSeed.topicIds[0]).not.toBe(run.topicIds[0]);
    expect(otherSeed.memberId).not.toBe(run.memberId);
  });
});
