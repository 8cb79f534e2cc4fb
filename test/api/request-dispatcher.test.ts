import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { defineApi } from '../../host/api/api-definition.js';
import { ApiRegistry } from '../../host/api/api-registry.js';
import { createApiVersionsApi } from '../../host/api/api-versions-api.js';
import type { BrokerServices } from '../../host/api/broker-services.js';
import { RequestDispatcher } from '../../host/api/request-dispatcher.js';
import type { ResponseBytes } from '../../host/network/network-types.js';
import { createLogger } from '../../host/observability/logger.js';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import {
  decodeHeartbeatRequest,
  decodeHeartbeatResponse,
  encodeHeartbeatRequest,
  encodeHeartbeatResponse,
  type HeartbeatRequest,
  type HeartbeatResponseInit,
} from '../../host/protocol/generated/heartbeat.js';
import { decodeListGroupsRequest, encodeListGroupsResponse, type ListGroupsResponseInit } from '../../host/protocol/generated/list-groups.js';
import { encodeRequestHeader } from '../../host/protocol/headers.js';
import { Reader } from '../../host/protocol/reader.js';
import { Writer } from '../../host/protocol/writer.js';
import { fakeConnection } from '../helpers/fake-connection.js';

function heartbeatFrame(version: number, correlationId: number, body?: Buffer): Buffer {
  const w = new Writer();
  encodeRequestHeader(w, { apiKey: ApiKey.Heartbeat, apiVersion: version, correlationId, clientId: 'unit' });
  if (body) w.raw(body);
  else encodeHeartbeatRequest(w, version, { groupId: 'g', generationId: 1, memberId: 'm' });
  return Buffer.from(w.toBuffer());
}

function dispatcher(handle: (request: HeartbeatRequest) => HeartbeatResponseInit | null | Promise<HeartbeatResponseInit | null>) {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      callback();
    },
  });
  const registry = new ApiRegistry();
  registry.register(defineApi<HeartbeatRequest, HeartbeatResponseInit>({
    apiKey: ApiKey.Heartbeat, name: 'Heartbeat', minVersion: 0, maxVersion: 3,
    decode: decodeHeartbeatRequest, encode: encodeHeartbeatResponse,
    handle: (request) => handle(request),
    errorResponse: (_version, errorCode) => ({ throttleTimeMs: 0, errorCode }),
  }));
  registry.register(defineApi<unknown, ListGroupsResponseInit>({
    apiKey: ApiKey.ListGroups, name: 'ListGroups', minVersion: 0, maxVersion: 2,
    decode: decodeListGroupsRequest, encode: encodeListGroupsResponse,
    handle: () => {
      throw new Error('boom');
    },
  }));
  registry.register(createApiVersionsApi(registry));
  const d = new RequestDispatcher({ registry, broker: {} as BrokerServices, logger: createLogger({ level: 'debug', destination }) });
  return { d, lines };
}

async function responseOf(result: ResponseBytes | null | Promise<ResponseBytes | null>): Promise<Buffer | null> {
  const value = await result;
  if (value === null) return null;
  return Buffer.isBuffer(value) ? value : Buffer.concat(value as Buffer[]);
}

describe('RequestDispatcher', () => {
  it('decodes the request, calls the handler and frames the response with the correlation id', async () => {
    const { d } = dispatcher((request) => ({ throttleTimeMs: 0, errorCode: request.memberId === 'm' ? ErrorCode.NONE : ErrorCode.UNKNOWN_MEMBER_ID }));
    const response = await responseOf(d.handle(heartbeatFrame(3, 42), fakeConnection()));
    const r = new Reader(response!);
    expect(r.int32()).toBe(42);
    expect(decodeHeartbeatResponse(r, 3)).toEqual({ throttleTimeMs: 0, errorCode: ErrorCode.NONE });
    expect(r.remaining).toBe(0);
  });

  it('handles nothing for a connection that is already closed', async () => {
    let calls = 0;
    const { d } = dispatcher(() => {
      calls++;
      return { throttleTimeMs: 0, errorCode: 0 };
    });
    const connection = fakeConnection();
    connection.close('gone');
    expect(await responseOf(d.handle(heartbeatFrame(3, 1), connection))).toBeNull();
    expect(calls).toBe(0);
  });

  it('encodes nothing for a connection that closed while its handler ran', async () => {
    let release!: () => void;
    const { d } = dispatcher(() => new Promise((resolve) => {
      release = () => resolve({ throttleTimeMs: 0, errorCode: 0 });
    }));
    const connection = fakeConnection();
    const result = d.handle(heartbeatFrame(3, 1), connection);
    connection.close('gone');
    release();
    expect(await responseOf(result)).toBeNull();
  });

  it('sends nothing when the handler answers null (Produce acks=0)', async () => {
    const { d } = dispatcher(() => null);
    expect(await responseOf(d.handle(heartbeatFrame(0, 1), fakeConnection()))).toBeNull();
  });

  it('answers an undecodable body with the API\'s INVALID_REQUEST response and logs the refusal', async () => {
    const { d, lines } = dispatcher(() => ({ errorCode: 0 }));
    const connection = fakeConnection();
    const response = await responseOf(d.handle(heartbeatFrame(1, 5, Buffer.from([0, 9, 0x61])), connection));
    const r = new Reader(response!);
    expect(r.int32()).toBe(5);
    expect(decodeHeartbeatResponse(r, 1).errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect(connection.closedWith).toBeNull();
    expect(lines.find((l) => l.event === 'request.refused')).toMatchObject({ peer: '127.0.0.1:5555', api: 'Heartbeat', errorCode: 42 });
  });

  it('answers a handler bug with UNKNOWN_SERVER_ERROR where the API has a top-level error', async () => {
    const { d, lines } = dispatcher(() => Promise.reject(new Error('bug')));
    const response = await responseOf(d.handle(heartbeatFrame(2, 6), fakeConnection()));
    const r = new Reader(response!);
    expect(r.int32()).toBe(6);
    expect(decodeHeartbeatResponse(r, 2).errorCode).toBe(ErrorCode.UNKNOWN_SERVER_ERROR);
    expect(lines.some((l) => l.event === 'request.failed' && l.level === 'error')).toBe(true);
  });

  it('closes the connection on a handler bug when the API has no error response', async () => {
    const { d } = dispatcher(() => null);
    const connection = fakeConnection();
    const w = new Writer();
    encodeRequestHeader(w, { apiKey: ApiKey.ListGroups, apiVersion: 0, correlationId: 7, clientId: null });
    expect(await responseOf(d.handle(Buffer.from(w.toBuffer()), connection))).toBeNull();
    expect(connection.closedWith).not.toBeNull();
  });

  it('closes the connection for an unknown api key, an unsupported version and a short header', async () => {
    const { d, lines } = dispatcher(() => null);
    for (const frame of [
      (() => { const w = new Writer(); encodeRequestHeader(w, { apiKey: 77, apiVersion: 0, correlationId: 1, clientId: 'x' }); return Buffer.from(w.toBuffer()); })(),
      heartbeatFrame(3, 2).fill(0x7f, 2, 3),
      Buffer.from([0, 12, 0]),
    ]) {
      const connection = fakeConnection();
      expect(await responseOf(d.handle(frame, connection))).toBeNull();
      expect(connection.closedWith).not.toBeNull();
    }
    expect(lines.filter((l) => l.event === 'request.refused')).toHaveLength(3);
  });
});
