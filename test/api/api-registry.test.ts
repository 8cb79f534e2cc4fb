import { describe, expect, it } from 'vitest';
import { createApiRegistry } from '../../host/api/api-handlers.js';
import { defineApi } from '../../host/api/api-definition.js';
import { ApiRegistry } from '../../host/api/api-registry.js';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { decodeHeartbeatRequest, encodeHeartbeatResponse } from '../../host/protocol/generated/heartbeat.js';

const heartbeat = (minVersion: number, maxVersion: number) => defineApi({
  apiKey: ApiKey.Heartbeat,
  name: 'Heartbeat',
  minVersion,
  maxVersion,
  decode: decodeHeartbeatRequest,
  encode: encodeHeartbeatResponse,
  handle: () => ({ errorCode: 0 }),
});

describe('ApiRegistry', () => {
  it('advertises MinVersion 0 for every API (librdkafka 2.0.2 probes old versions)', () => {
    for (const range of createApiRegistry().apiVersions()) expect(range.minVersion).toBe(0);
  });

  it('lists no SASL API, and AddPartitionsToTxn only up to v3 (v4+ is the brokers\' form, CLIENTS.md P7)', () => {
    const ranges = createApiRegistry().apiVersions();
    const keys = ranges.map((r) => r.apiKey);
    for (const absent of [ApiKey.SaslHandshake, ApiKey.SaslAuthenticate]) expect(keys).not.toContain(absent);
    expect(ranges.find((r) => r.apiKey === ApiKey.AddPartitionsToTxn)).toEqual({ apiKey: ApiKey.AddPartitionsToTxn, minVersion: 0, maxVersion: 3 });
  });

  it('lists the ranges in api key order', () => {
    const keys = createApiRegistry().apiVersions().map((r) => r.apiKey);
    expect(keys).toEqual([...keys].sort((a, b) => a - b));
  });

  it('refuses a second handler for the same api key', () => {
    const registry = new ApiRegistry().register(heartbeat(0, 3));
    expect(() => registry.register(heartbeat(0, 3))).toThrow(/registered twice/);
  });

  it('refuses a range beyond the generated codecs', () => {
    expect(() => new ApiRegistry().register(heartbeat(0, 4))).toThrow(/outside the generated codecs/);
    expect(() => new ApiRegistry().register(heartbeat(2, 1))).toThrow(/outside the generated codecs/);
  });
});
