/**
 * The event-loop watchdog's stall line for a Metadata request counts the partitions its answer
 * covers (issue 15): all of the cluster's for an all-topics request (which names none), the named
 * topics' for the others; it used to say 0 for both.
 */
import { describe, expect, it } from 'vitest';
import { createApiRegistry } from '../../host/api/api-handlers.js';
import type { BrokerServices } from '../../host/api/broker-services.js';
import type { TopicState } from '../../host/api/cluster-metadata.js';
import { RequestDispatcher } from '../../host/api/request-dispatcher.js';
import type { EventLoopWatchdog, StallWork } from '../../host/observability/event-loop-watchdog.js';
import { createLogger } from '../../host/observability/logger.js';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { encodeMetadataRequest } from '../../host/protocol/generated/metadata.js';
import { encodeRequestHeader } from '../../host/protocol/headers.js';
import { Writer } from '../../host/protocol/writer.js';
import { fakeConnection } from '../helpers/fake-connection.js';

function topic(name: string, count: number): TopicState {
  return {
    name, topicId: '0'.repeat(32), isInternal: false, configs: new Map(),
    partitions: Array.from({ length: count }, (_, partition) => ({ partition, leaderId: 1, leaderEpoch: 0, partitionEpoch: 0, replicas: [1], isr: [1] })),
  };
}

const topics = [topic('a', 3), topic('b', 5), topic('c', 7)];

function setup() {
  const stalls: StallWork[] = [];
  // Every request is a stall: the line's fields are what is checked.
  const watchdog = { enabled: true, nowMs: () => 0, noteWork: (work: () => StallWork) => stalls.push(work()) } as unknown as EventLoopWatchdog;
  const broker = {
    config: { autoCreateTopicsEnable: false },
    metadata: { clusterId: 'c', controllerId: 1, topics: () => topics, topic: (name: string) => topics.find((t) => t.name === name) },
    brokers: () => [{ nodeId: 1, host: 'h', port: 1, rack: null }],
  } as unknown as BrokerServices;
  const dispatcher = new RequestDispatcher({ registry: createApiRegistry(), broker, logger: createLogger({ level: 'silent' }), watchdog });
  return { dispatcher, stalls };
}

function metadataFrame(version: number, names: string[] | null): Buffer {
  const w = new Writer();
  encodeRequestHeader(w, { apiKey: ApiKey.Metadata, apiVersion: version, correlationId: 1, clientId: 'stall' });
  encodeMetadataRequest(w, version, {
    topics: names === null ? null : names.map((name) => ({ name })),
    allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false,
  });
  return Buffer.from(w.toBuffer());
}

describe('Metadata in the event-loop watchdog', () => {
  it('counts every partition of the cluster for an all-topics request (null at v1+, empty at v0)', async () => {
    for (const [version, names] of [[8, null], [1, null], [0, []]] as const) {
      const { dispatcher, stalls } = setup();
      await dispatcher.handle(metadataFrame(version, names as string[] | null), fakeConnection());
      expect(stalls.length).toBeGreaterThan(0);
      for (const stall of stalls) expect(stall).toMatchObject({ api: 'Metadata', clientId: 'stall', partitions: 15 });
    }
  });

  it('counts the partitions of the topics a request names, each once, unknown ones as none', async () => {
    const { dispatcher, stalls } = setup();
    await dispatcher.handle(metadataFrame(8, ['b', 'c', 'b', 'absent']), fakeConnection());
    expect(stalls.map((stall) => stall.partitions)).toContain(12);
    expect(stalls.every((stall) => stall.partitions === 12)).toBe(true);
  });
});
