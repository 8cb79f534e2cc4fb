import { describe, expect, it } from 'vitest';
import { defineApi } from '../../host/api/api-definition.js';
import { ApiRegistry } from '../../host/api/api-registry.js';
import type { BrokerServices } from '../../host/api/broker-services.js';
import { RequestDispatcher } from '../../host/api/request-dispatcher.js';
import type { ResponseBytes } from '../../host/network/network-types.js';
import { createLogger } from '../../host/observability/logger.js';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import {
  type CreatePartitionsRequest,
  type CreatePartitionsResponseInit,
  decodeCreatePartitionsRequest,
  encodeCreatePartitionsRequest,
  encodeCreatePartitionsResponse,
} from '../../host/protocol/generated/create-partitions.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import {
  decodeListGroupsRequest,
  decodeListGroupsResponse,
  encodeListGroupsRequest,
  encodeListGroupsResponse,
  type ListGroupsRequest,
  type ListGroupsResponseInit,
} from '../../host/protocol/generated/list-groups.js';
import { encodeRequestHeader } from '../../host/protocol/headers.js';
import { Reader } from '../../host/protocol/reader.js';
import { Writer } from '../../host/protocol/writer.js';
import { fakeConnection } from '../helpers/fake-connection.js';

function frame<T>(apiKey: number, apiVersion: number, encode: (w: Writer, version: number, m: T) => void, message: T): Buffer {
  const w = new Writer(1024);
  encodeRequestHeader(w, { apiKey, apiVersion, correlationId: 7, clientId: 'unit' });
  encode(w, apiVersion, message);
  return Buffer.from(w.toBuffer());
}

/** A dispatcher for CreatePartitions (no top-level error) and ListGroups (one), with handlers that count what reached them. */
function dispatcher(maxArrayElements: number | undefined) {
  const lines: Record<string, unknown>[] = [];
  const handled: string[] = [];
  const registry = new ApiRegistry();
  registry.register(defineApi<CreatePartitionsRequest, CreatePartitionsResponseInit>({
    apiKey: ApiKey.CreatePartitions, name: 'CreatePartitions', minVersion: 0, maxVersion: 1,
    decode: decodeCreatePartitionsRequest, encode: encodeCreatePartitionsResponse,
    handle: (request) => {
      handled.push(`CreatePartitions ${request.topics[0]?.assignments?.length ?? 0}`);
      return { throttleTimeMs: 0, results: [] };
    },
  }));
  registry.register(defineApi<ListGroupsRequest, ListGroupsResponseInit>({
    apiKey: ApiKey.ListGroups, name: 'ListGroups', minVersion: 0, maxVersion: 4,
    decode: decodeListGroupsRequest, encode: encodeListGroupsResponse,
    handle: (request) => {
      handled.push(`ListGroups ${request.statesFilter.length}`);
      return { throttleTimeMs: 0, errorCode: 0, groups: [] };
    },
    errorResponse: (_version, errorCode) => ({ throttleTimeMs: 0, errorCode, groups: [] }),
  }));
  const broker = (maxArrayElements === undefined ? {} : { config: { requestMaxArrayElements: maxArrayElements } }) as BrokerServices;
  const logger = createLogger({ level: 'debug', destination: { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) } });
  return { d: new RequestDispatcher({ registry, broker, logger }), lines, handled };
}

async function responseOf(result: ResponseBytes | null | Promise<ResponseBytes | null>): Promise<Buffer | null> {
  const value = await result;
  if (value === null) return null;
  return Buffer.isBuffer(value) ? value : Buffer.concat(value as Buffer[]);
}

const assignments = (n: number) => Array.from({ length: n }, () => ({ brokerIds: [1] }));
const createPartitions = (n: number) => frame(ApiKey.CreatePartitions, 1, encodeCreatePartitionsRequest,
  { topics: [{ name: 'grow', count: n + 1, assignments: assignments(n) }], timeoutMs: 1000, validateOnly: false });

describe('RequestDispatcher: request.max.array.elements (issue 15)', () => {
  it('closes the connection of a request over the limit whose API has no top-level error, before its handler, naming the config', async () => {
    const { d, lines, handled } = dispatcher(1000);
    const connection = fakeConnection();
    expect(await responseOf(d.handle(createPartitions(600), connection))).toBeNull(); // 1 + 600 + 600 elements
    expect(handled).toEqual([]);
    expect(connection.closedWith).toContain('refused by request.max.array.elements: more than 1000 array elements');
    const refused = lines.find((line) => line.event === 'request.refused');
    expect(refused?.api).toBe('CreatePartitions');
    expect(String(refused?.msg)).toContain('request.max.array.elements');
  });

  it('answers INVALID_REQUEST where the API has a top-level error, and keeps serving the connection', async () => {
    const { d, handled } = dispatcher(1000);
    const connection = fakeConnection();
    const over = frame(ApiKey.ListGroups, 4, encodeListGroupsRequest, { statesFilter: Array.from({ length: 1001 }, () => 'Stable') });
    const response = await responseOf(d.handle(over, connection));
    const r = new Reader(response!);
    expect(r.int32()).toBe(7); // correlation id (response header v1: then tagged fields)
    r.skipTaggedFields();
    expect(decodeListGroupsResponse(r, 4).errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect(connection.closed).toBe(false);
    const atLimit = frame(ApiKey.ListGroups, 4, encodeListGroupsRequest, { statesFilter: Array.from({ length: 1000 }, () => 'Stable') });
    await responseOf(d.handle(atLimit, connection));
    expect(handled).toEqual(['ListGroups 1000']);
  });

  it('hands a request at the limit to its handler whole', async () => {
    const { d, handled } = dispatcher(1001);
    const connection = fakeConnection();
    await responseOf(d.handle(createPartitions(500), connection));
    expect(handled).toEqual(['CreatePartitions 500']);
    expect(connection.closed).toBe(false);
  });

  it('is unbounded when the broker has no config (unit fakes)', async () => {
    const { d, handled } = dispatcher(undefined);
    await responseOf(d.handle(createPartitions(5000), fakeConnection()));
    expect(handled).toEqual(['CreatePartitions 5000']);
  });
});
