/**
 * Dynamic broker configs (KIP-226, issue 13): AlterConfigs / IncrementalAlterConfigs on BROKER
 * resources store ConfigRecords, take effect without a restart (the partition logs get the new
 * broker defaults under their topic overrides), survive a restart, and DescribeConfigs shows them
 * with DYNAMIC_BROKER_CONFIG / DYNAMIC_DEFAULT_BROKER_CONFIG sources and synonyms.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeAlterConfigsResponse, encodeAlterConfigsRequest } from '../../host/protocol/generated/alter-configs.js';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { decodeDescribeConfigsResponse, encodeDescribeConfigsRequest } from '../../host/protocol/generated/describe-configs.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import {
  decodeIncrementalAlterConfigsResponse,
  encodeIncrementalAlterConfigsRequest,
} from '../../host/protocol/generated/incremental-alter-configs.js';
import { startTestBroker, type TestBroker } from './in-process-broker.js';
import { RawKafkaClient } from './raw-kafka-client.js';
import { batch, createTopic, produce } from './requests.js';

const TOPIC = 2;
const BROKER = 4;
const SET = 0;
const DELETE = 1;

describe('dynamic broker configs', () => {
  let broker: TestBroker;
  let client: RawKafkaClient;

  beforeAll(async () => {
    broker = await startTestBroker({ 'log.retention.hours': '24' });
    client = await RawKafkaClient.connect(broker.broker.port);
    await createTopic(client, 'dyn', 1);
  });
  afterAll(async () => {
    client.close();
    await broker.close();
  });

  const incremental = (resourceName: string, configs: { name: string; configOperation: number; value: string | null }[]) =>
    client.request(ApiKey.IncrementalAlterConfigs, 1, encodeIncrementalAlterConfigsRequest, decodeIncrementalAlterConfigsResponse,
      { resources: [{ resourceType: BROKER, resourceName, configs }], validateOnly: false });
  const describeConfigs = (resourceType: number, resourceName: string, keys: string[] | null, version = 4) =>
    client.request(ApiKey.DescribeConfigs, version, encodeDescribeConfigsRequest, decodeDescribeConfigsResponse,
      { resources: [{ resourceType, resourceName, configurationKeys: keys }], includeSynonyms: true, includeDocumentation: true });
  const waitApplied = async (): Promise<void> => {
    // The broker applies committed metadata asynchronously; a DescribeConfigs after the response
    // already sees it (the same event loop), the logs once the publisher's slices ran.
    for (let i = 0; i < 50 && broker.broker.config.dynamicDefaultConfigs.size + broker.broker.config.dynamicBrokerConfigs.size === 0; i++) {
      await new Promise((resolve) => setImmediate(resolve));
    }
  };

  it('sets a cluster default and a per-broker value, effective without restart, shown with their sources', async () => {
    const big = batch(['x'.repeat(1_500_000)]);
    const before = await produce(client, 7, [{ topic: 'dyn', partition: 0, records: big }]);
    expect(before.responses[0]!.partitionResponses[0]!.errorCode).toBe(ErrorCode.MESSAGE_TOO_LARGE);
    const cluster = await incremental('', [{ name: 'log.retention.ms', configOperation: SET, value: '3600000' }]);
    expect(cluster.responses[0]!.errorCode).toBe(ErrorCode.NONE);
    const own = await incremental('1', [
      { name: 'message.max.bytes', configOperation: SET, value: '2000000' },
      { name: 'sasl.kerberos.min.time.before.relogin', configOperation: SET, value: '30000' },
    ]);
    expect(own.responses[0]!.errorCode).toBe(ErrorCode.NONE);
    await waitApplied();
    expect(broker.broker.config.logRetentionMs).toBe(3_600_000);
    expect(broker.broker.config.messageMaxBytes).toBe(2_000_000);
    // The partition's log took the new broker default (max.message.bytes <- message.max.bytes).
    let after = await produce(client, 7, [{ topic: 'dyn', partition: 0, records: big }]);
    for (let i = 0; i < 50 && after.responses[0]!.partitionResponses[0]!.errorCode !== ErrorCode.NONE; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      after = await produce(client, 7, [{ topic: 'dyn', partition: 0, records: big }]);
    }
    expect(after.responses[0]!.partitionResponses[0]!.errorCode).toBe(ErrorCode.NONE);

    const topic = await describeConfigs(TOPIC, 'dyn', ['retention.ms', 'max.message.bytes']);
    const [maxMessage, retention] = topic.results[0]!.configs;
    expect(retention).toMatchObject({ name: 'retention.ms', value: '3600000', configSource: 3 });
    expect(retention!.synonyms).toEqual([
      { name: 'log.retention.ms', value: '3600000', source: 3 },
      { name: 'log.retention.hours', value: '24', source: 4 },
      { name: 'log.retention.hours', value: '168', source: 5 },
    ]);
    expect(maxMessage).toMatchObject({ name: 'max.message.bytes', value: '2000000', configSource: 2 });

    const brokerConfigs = await describeConfigs(BROKER, '1', ['log.retention.ms', 'message.max.bytes', 'node.id']);
    expect(brokerConfigs.results[0]!.configs.map((c) => [c.name, c.value, c.configSource, c.readOnly])).toEqual([
      ['node.id', '1', 5, true],
      ['message.max.bytes', '2000000', 2, false],
      ['log.retention.ms', '3600000', 3, false],
    ]);
    const clusterDefault = await describeConfigs(BROKER, '', null);
    expect(clusterDefault.results[0]!.configs.map((c) => [c.name, c.value, c.configSource])).toEqual([['log.retention.ms', '3600000', 3]]);
  });

  it('answers a no-effect Kafka config on a BROKER resource with NO_ERROR (legacy AlterConfigs)', async () => {
    const response = await client.request(ApiKey.AlterConfigs, 1, encodeAlterConfigsRequest, decodeAlterConfigsResponse, {
      resources: [{ resourceType: BROKER, resourceName: '1', configs: [
        { name: 'sasl.kerberos.min.time.before.relogin', value: '60000' }, { name: 'message.max.bytes', value: '2000000' },
      ] }],
      validateOnly: false,
    });
    expect(response.responses[0]!.errorCode).toBe(ErrorCode.NONE);
  });

  it('refuses another broker\'s id, a static config and a typo, as Kafka does (typo: with a did-you-mean)', async () => {
    const other = await incremental('7', [{ name: 'log.retention.ms', configOperation: SET, value: '1' }]);
    expect(other.responses[0]).toMatchObject({ errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Unexpected broker id, expected 1, but received 7' });
    const fixed = await incremental('', [{ name: 'log.dirs', configOperation: SET, value: '/elsewhere' }]);
    expect(fixed.responses[0]).toMatchObject({ errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Cannot update these configs dynamically: log.dirs' });
    const typo = await incremental('', [{ name: 'log.retention.msec', configOperation: SET, value: '1' }]);
    expect(typo.responses[0]!.errorCode).toBe(ErrorCode.INVALID_CONFIG);
    expect(typo.responses[0]!.errorMessage).toContain('Did you mean log.retention.ms');
  });

  it('keeps the dynamic configs across a restart and returns to the static value when deleted', async () => {
    await broker.restart();
    client.close();
    client = await RawKafkaClient.connect(broker.broker.port);
    expect(broker.broker.config.logRetentionMs).toBe(3_600_000);
    const deleted = await incremental('', [{ name: 'log.retention.ms', configOperation: DELETE, value: null }]);
    expect(deleted.responses[0]!.errorCode).toBe(ErrorCode.NONE);
    for (let i = 0; i < 50 && broker.broker.config.logRetentionMs !== 86_400_000; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(broker.broker.config.logRetentionMs).toBe(86_400_000);
  });
});
