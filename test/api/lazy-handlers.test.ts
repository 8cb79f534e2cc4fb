import { connect, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiRegistry, LAZY_API_TABLE } from '../../host/api/api-handlers.js';
import { defineApi, type AnyApiDefinition } from '../../host/api/api-definition.js';
import { ApiRegistry } from '../../host/api/api-registry.js';
import { createApiVersionsApi } from '../../host/api/api-versions-api.js';
import type { BrokerServices } from '../../host/api/broker-services.js';
import { RequestDispatcher } from '../../host/api/request-dispatcher.js';
import { SocketServer } from '../../host/network/socket-server.js';
import { createLogger } from '../../host/observability/logger.js';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { decodeApiVersionsResponse } from '../../host/protocol/generated/api-versions.js';
import {
  decodeHeartbeatRequest,
  decodeHeartbeatResponse,
  encodeHeartbeatRequest,
  encodeHeartbeatResponse,
  type HeartbeatRequest,
  type HeartbeatResponseInit,
} from '../../host/protocol/generated/heartbeat.js';
import { encodeRequestHeader } from '../../host/protocol/headers.js';
import { Reader } from '../../host/protocol/reader.js';
import { Writer } from '../../host/protocol/writer.js';

const heartbeatApi = defineApi<HeartbeatRequest, HeartbeatResponseInit>({
  apiKey: ApiKey.Heartbeat, name: 'Heartbeat', minVersion: 0, maxVersion: 3,
  decode: decodeHeartbeatRequest, encode: encodeHeartbeatResponse,
  handle: (request) => ({ throttleTimeMs: 0, errorCode: request.memberId === 'm' ? 0 : 25 }),
});

function lazyRegistry(load: () => Promise<AnyApiDefinition>) {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      callback();
    },
  });
  const registry = new ApiRegistry();
  registry.registerLazy({ apiKey: ApiKey.Heartbeat, name: 'Heartbeat', minVersion: 0, maxVersion: 3, load });
  registry.register(createApiVersionsApi(registry));
  const dispatcher = new RequestDispatcher({ registry, broker: {} as BrokerServices, logger: createLogger({ level: 'debug', destination }) });
  return { registry, dispatcher, lines };
}

function frame(apiKey: number, version: number, correlationId: number): Buffer {
  const w = new Writer();
  encodeRequestHeader(w, { apiKey, apiVersion: version, correlationId, clientId: 'lazy' });
  if (apiKey === ApiKey.Heartbeat) encodeHeartbeatRequest(w, version, { groupId: 'g', generationId: 1, memberId: 'm' });
  const body = w.toBuffer();
  const sized = Buffer.alloc(4 + body.length);
  sized.writeInt32BE(body.length, 0);
  Buffer.from(body).copy(sized, 4);
  return sized;
}

/** Reads `count` size-prefixed responses from `socket`. */
function responses(socket: Socket, count: number): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    const out: Buffer[] = [];
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`closed after ${out.length} responses`)));
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 4 && buffered.length >= 4 + buffered.readInt32BE(0)) {
        const size = buffered.readInt32BE(0);
        out.push(buffered.subarray(4, 4 + size));
        buffered = buffered.subarray(4 + size);
      }
      if (out.length >= count) resolve(out);
    });
  });
}

const servers: SocketServer[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});

async function serve(dispatcher: RequestDispatcher): Promise<Socket> {
  const server = new SocketServer({ host: '127.0.0.1', port: 0, listenerName: 'PLAINTEXT', handler: dispatcher.handle, logger: createLogger({ level: 'silent' }) });
  servers.push(server);
  const { port } = await server.start();
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  return socket;
}

describe('lazily loaded API handlers', () => {
  it('advertises exactly the loaded definitions of every table row (the table cannot drift)', async () => {
    const registry = createApiRegistry();
    const advertised = registry.apiVersions();
    for (const row of LAZY_API_TABLE) {
      expect(registry.get(row.apiKey)).toBeUndefined();
      const definition = await registry.load(row.apiKey);
      expect({ apiKey: definition.apiKey, name: definition.name, minVersion: definition.minVersion, maxVersion: definition.maxVersion })
        .toEqual({ apiKey: row.apiKey, name: row.name, minVersion: row.minVersion, maxVersion: row.maxVersion });
      expect(registry.get(row.apiKey)).toBe(definition);
    }
    expect(registry.unloaded()).toEqual([]);
    expect(registry.apiVersions()).toEqual(advertised);
  });

  it('imports only ApiVersions and Metadata up front', () => {
    const registry = createApiRegistry();
    expect(registry.apiVersions().map((r) => r.apiKey).filter((key) => registry.get(key) !== undefined).sort((a, b) => a - b))
      .toEqual([ApiKey.Metadata, ApiKey.ApiVersions]);
  });

  it('refuses a loaded handler whose definition differs from its table row', async () => {
    const registry = new ApiRegistry().registerLazy({
      apiKey: ApiKey.Heartbeat, name: 'Heartbeat', minVersion: 0, maxVersion: 2, load: () => Promise.resolve(heartbeatApi),
    });
    await expect(registry.load(ApiKey.Heartbeat)).rejects.toThrow(/differs from its table row/);
  });

  it('answers a request whose handler is still loading in order, behind earlier and ahead of later responses', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    let loads = 0;
    const { dispatcher } = lazyRegistry(async () => {
      loads++;
      await gate;
      return heartbeatApi;
    });
    const socket = await serve(dispatcher);
    const answered = responses(socket, 4);
    socket.write(Buffer.concat([frame(ApiKey.ApiVersions, 0, 1), frame(ApiKey.Heartbeat, 3, 2), frame(ApiKey.ApiVersions, 2, 3), frame(ApiKey.Heartbeat, 0, 4)]));
    // The later ApiVersions is answerable at once; give it every chance to overtake.
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    const [first, second, third, fourth] = await answered;
    expect([first, second, third, fourth].map((r) => r!.readInt32BE(0))).toEqual([1, 2, 3, 4]);
    const heartbeat = new Reader(second!);
    heartbeat.int32();
    heartbeat.skipTaggedFields();
    expect(decodeHeartbeatResponse(heartbeat, 3)).toEqual({ throttleTimeMs: 0, errorCode: 0 });
    const versions = new Reader(third!);
    versions.int32();
    expect(decodeApiVersionsResponse(versions, 2).apiKeys.map((k) => k.apiKey)).toContain(ApiKey.Heartbeat);
    expect(loads).toBe(1);
  });

  it('closes the connection and logs at error when a handler cannot be imported, without hanging', async () => {
    const { dispatcher, lines } = lazyRegistry(() => Promise.reject(new Error('module missing')));
    const socket = await serve(dispatcher);
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('error', () => undefined);
    socket.write(frame(ApiKey.Heartbeat, 1, 9));
    await closed;
    expect(lines.filter((l) => l.event === 'api.handler_load_failed')).toHaveLength(1);
    expect(lines.find((l) => l.event === 'api.handler_load_failed')).toMatchObject({ level: 'error', api: 'Heartbeat' });
    expect(await dispatcher.loadHandlers()).toBe(false);
    expect(lines.filter((l) => l.event === 'api.handler_load_failed')).toHaveLength(1);
  });

  it('loads the handlers one at a time, each after `between` resolves, when given it', async () => {
    const registry = new ApiRegistry();
    const loads: string[] = [];
    for (const [apiKey, name] of [[ApiKey.Heartbeat, 'Heartbeat'], [ApiKey.LeaveGroup, 'LeaveGroup']] as const) {
      registry.registerLazy({ apiKey, name, minVersion: 0, maxVersion: 3, load: () => {
        loads.push(`load ${name}`);
        return apiKey === ApiKey.Heartbeat ? Promise.resolve(heartbeatApi) : Promise.reject(new Error('module missing'));
      } });
    }
    registry.register(createApiVersionsApi(registry));
    const dispatcher = new RequestDispatcher({ registry, broker: {} as BrokerServices, logger: createLogger({ level: 'silent' }) });
    const loaded = dispatcher.loadHandlers(async () => {
      loads.push('between');
      await new Promise<void>((resolve) => setImmediate(resolve));
    });
    expect(await loaded).toBe(false);
    expect(loads).toEqual(['between', 'load Heartbeat', 'between', 'load LeaveGroup']);
    expect(registry.get(ApiKey.Heartbeat)).toBe(heartbeatApi);
  });

  it('loads every handler in the background with loadHandlers', async () => {
    const { registry, dispatcher } = lazyRegistry(() => Promise.resolve(heartbeatApi));
    expect(await dispatcher.loadHandlers()).toBe(true);
    expect(registry.get(ApiKey.Heartbeat)).toBe(heartbeatApi);
  });
});
