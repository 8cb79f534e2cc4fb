import { describe, expect, it } from 'vitest';
import { loadBrokerConfig } from '../../host/config/broker-config.js';
import { ConfigError } from '../../host/config/config-error.js';
import { DEFAULT_REPLICA_FETCHER_CONFIG } from '../../host/config/replica-fetcher-config.js';

describe('replica fetcher configs', () => {
  it('default to Kafka\'s values and the first client listener for inter-broker traffic', () => {
    const config = loadBrokerConfig({});
    expect(config.replicaFetcher).toEqual(DEFAULT_REPLICA_FETCHER_CONFIG);
    expect(config.replicaFetcher).toEqual({
      numReplicaFetchers: 1, replicaFetchWaitMaxMs: 500, replicaFetchMinBytes: 1, replicaFetchMaxBytes: 1_048_576,
      replicaFetchResponseMaxBytes: 10_485_760, replicaFetchBackoffMs: 1_000, replicaSocketTimeoutMs: 30_000,
    });
    expect(config.interBrokerListenerName).toBe(config.listeners.find((l) => !config.controllerListenerNames.includes(l.name))!.name);
  });

  it('take overrides by Kafka\'s names', () => {
    const config = loadBrokerConfig({ overrides: {
      'num.replica.fetchers': '3', 'replica.fetch.wait.max.ms': '100', 'replica.fetch.max.bytes': '4096',
      'replica.fetch.response.max.bytes': '65536', 'replica.fetch.backoff.ms': '20', 'replica.fetch.min.bytes': '10',
      'inter.broker.listener.name': 'PLAINTEXT',
    } });
    expect(config.replicaFetcher).toMatchObject({
      numReplicaFetchers: 3, replicaFetchWaitMaxMs: 100, replicaFetchMaxBytes: 4096,
      replicaFetchResponseMaxBytes: 65536, replicaFetchBackoffMs: 20, replicaFetchMinBytes: 10,
    });
    expect(config.interBrokerListenerName).toBe('PLAINTEXT');
  });

  it('refuse replica.socket.timeout.ms below replica.fetch.wait.max.ms, as Kafka', () => {
    expect(() => loadBrokerConfig({ overrides: { 'replica.socket.timeout.ms': '100', 'replica.fetch.wait.max.ms': '500' } }))
      .toThrow(ConfigError);
  });
});
