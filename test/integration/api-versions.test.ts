import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  decodeApiVersionsResponse,
  encodeApiVersionsRequest,
  type ApiVersionsRequestInit,
} from '../../host/protocol/generated/api-versions.js';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { startTestBroker, type TestBroker } from './in-process-broker.js';
import { RawKafkaClient } from './raw-kafka-client.js';

/** CLIENTS.md "Level A", plus OffsetForLeaderEpoch (23), ElectLeaders (43), IncrementalAlterConfigs (44), DescribeQuorum (55), DescribeCluster (60) and DescribeTopicPartitions (75) and the reassignment APIs (45, 46) for clusters (issues 10, 11), and the transaction APIs (24-28, 65, 66; issue 12): exactly what the broker advertises, by api key. */
export const LEVEL_A: readonly [number, number, number][] = [
  [0, 0, 8], [1, 0, 12], [2, 0, 3], [3, 0, 8], [8, 0, 7], [9, 0, 5], [10, 0, 2], [11, 0, 5], [12, 0, 3],
  [13, 0, 3], [14, 0, 3], [15, 0, 4], [16, 0, 5], [18, 0, 4], [19, 0, 4], [20, 0, 3], [21, 0, 1],
  [22, 0, 4], [23, 0, 4], [24, 0, 3], [25, 0, 2], [26, 0, 2], [27, 0, 1], [28, 0, 3], [32, 0, 4], [33, 0, 1], [37, 0, 1], [42, 0, 1], [43, 0, 2], [44, 0, 1], [45, 0, 0], [46, 0, 0], [47, 0, 0], [55, 0, 2], [60, 0, 1], [61, 0, 0], [65, 0, 0], [66, 0, 1], [75, 0, 0],
];

/** The v0 body: error_code, int32 count, then int16 key/min/max per entry. */
function v0Body(errorCode: number): Buffer {
  const body = Buffer.alloc(2 + 4 + LEVEL_A.length * 6);
  body.writeInt16BE(errorCode, 0);
  body.writeInt32BE(LEVEL_A.length, 2);
  LEVEL_A.forEach(([key, min, max], i) => {
    body.writeInt16BE(key, 6 + i * 6);
    body.writeInt16BE(min, 8 + i * 6);
    body.writeInt16BE(max, 10 + i * 6);
  });
  return body;
}

function correlation(id: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(id);
  return b;
}

/** A hand-made request frame: size, api key, version, correlation id, client id, then `rest`. */
function rawRequest(apiKey: number, version: number, correlationId: number, rest: Buffer = Buffer.alloc(0), flexible = false): Buffer {
  const clientId = Buffer.from('golden');
  const header = Buffer.alloc(8 + 2);
  header.writeInt16BE(apiKey, 0);
  header.writeInt16BE(version, 2);
  header.writeInt32BE(correlationId, 4);
  header.writeInt16BE(clientId.length, 8);
  const body = Buffer.concat([header, clientId, flexible ? Buffer.from([0]) : Buffer.alloc(0), rest]);
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length);
  return Buffer.concat([size, body]);
}

describe('ApiVersions', () => {
  let broker: TestBroker;
  beforeAll(async () => {
    broker = await startTestBroker();
  });
  afterAll(async () => {
    await broker.close();
  });

  it('advertises exactly the Level A ranges, built from the handler registry', async () => {
    const client = await RawKafkaClient.connect(broker.broker.port);
    try {
      const response = await client.request(ApiKey.ApiVersions, 0, encodeApiVersionsRequest, decodeApiVersionsResponse, {});
      expect(response.errorCode).toBe(ErrorCode.NONE);
      expect(response.apiKeys.map((k) => [k.apiKey, k.minVersion, k.maxVersion])).toEqual(LEVEL_A);
    } finally {
      client.close();
    }
  });

  it('answers v0 with the golden bytes: v0 header, error 0 and the ranges', async () => {
    const client = await RawKafkaClient.connect(broker.broker.port);
    try {
      client.writeRaw(rawRequest(ApiKey.ApiVersions, 0, 7));
      expect(await client.nextFrame()).toEqual(Buffer.concat([correlation(7), v0Body(0)]));
    } finally {
      client.close();
    }
  });

  it('answers flexible v3 with a v0 response header (no tag byte) and a compact body', async () => {
    const client = await RawKafkaClient.connect(broker.broker.port);
    try {
      const request = Buffer.concat([Buffer.from([11]), Buffer.from('librdkafka'), Buffer.from([6]), Buffer.from('2.0.2'), Buffer.from([0])]);
      client.writeRaw(rawRequest(ApiKey.ApiVersions, 3, 9, request, true));
      const entries = LEVEL_A.map(([key, min, max]) => {
        const e = Buffer.alloc(7);
        e.writeInt16BE(key, 0);
        e.writeInt16BE(min, 2);
        e.writeInt16BE(max, 4);
        e[6] = 0;
        return e;
      });
      const expected = Buffer.concat([
        correlation(9),
        Buffer.from([0, 0]), // error_code
        Buffer.from([LEVEL_A.length + 1]), // compact array length
        ...entries,
        Buffer.from([0, 0, 0, 0]), // throttle_time_ms
        Buffer.from([0]), // tagged fields
      ]);
      expect(await client.nextFrame()).toEqual(expected);
    } finally {
      client.close();
    }
  });

  it('answers a version above 4 with UNSUPPORTED_VERSION in the v0 body, without reading the body', async () => {
    const client = await RawKafkaClient.connect(broker.broker.port);
    try {
      client.writeRaw(rawRequest(ApiKey.ApiVersions, 9, 11, Buffer.from([0xde, 0xad, 0xbe, 0xef]), true));
      expect(await client.nextFrame()).toEqual(Buffer.concat([correlation(11), v0Body(ErrorCode.UNSUPPORTED_VERSION)]));
      // The connection stays usable: the client retries at a lower version.
      const response = await client.request(ApiKey.ApiVersions, 2, encodeApiVersionsRequest, decodeApiVersionsResponse, {});
      expect(response.errorCode).toBe(ErrorCode.NONE);
    } finally {
      client.close();
    }
  });

  it('answers every advertised version 0-4 with the ranges', async () => {
    const client = await RawKafkaClient.connect(broker.broker.port);
    try {
      for (let version = 0; version <= 4; version++) {
        const request: ApiVersionsRequestInit = { clientSoftwareName: 'tributary-test', clientSoftwareVersion: '1.0' };
        const response = await client.request(ApiKey.ApiVersions, version, encodeApiVersionsRequest, decodeApiVersionsResponse, request);
        expect(response.errorCode).toBe(ErrorCode.NONE);
        expect(response.apiKeys).toHaveLength(LEVEL_A.length);
      }
    } finally {
      client.close();
    }
  });

  it('answers v3 with an illegal client software name with INVALID_REQUEST and the ranges', async () => {
    const client = await RawKafkaClient.connect(broker.broker.port);
    try {
      const response = await client.request(ApiKey.ApiVersions, 3, encodeApiVersionsRequest, decodeApiVersionsResponse,
        { clientSoftwareName: 'bad name!', clientSoftwareVersion: '1' });
      expect(response.errorCode).toBe(ErrorCode.INVALID_REQUEST);
      expect(response.apiKeys).toHaveLength(LEVEL_A.length);
    } finally {
      client.close();
    }
  });

  it('answers a v3 request whose body does not decode with INVALID_REQUEST in the v0 body', async () => {
    const client = await RawKafkaClient.connect(broker.broker.port);
    try {
      // compact string length 200 with 2 bytes behind it
      client.writeRaw(rawRequest(ApiKey.ApiVersions, 3, 13, Buffer.from([200, 1, 0x41]), true));
      expect(await client.nextFrame()).toEqual(Buffer.concat([correlation(13), v0Body(ErrorCode.INVALID_REQUEST)]));
    } finally {
      client.close();
    }
  });

  it('answers kafka-python\'s pipelined ApiVersions v0 and Metadata v0 in order', async () => {
    const client = await RawKafkaClient.connect(broker.broker.port);
    try {
      client.writeRaw(Buffer.concat([
        rawRequest(ApiKey.ApiVersions, 0, 21),
        rawRequest(ApiKey.Metadata, 0, 22, Buffer.from([0, 0, 0, 0])),
      ]));
      const first = await client.nextFrame();
      const second = await client.nextFrame();
      expect(first.readInt32BE(0)).toBe(21);
      expect(second.readInt32BE(0)).toBe(22);
    } finally {
      client.close();
    }
  });
});
