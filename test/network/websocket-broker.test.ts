import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type RunningBroker } from '../../host/broker.js';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { decodeApiVersionsResponse, encodeApiVersionsRequest } from '../../host/protocol/generated/api-versions.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';
import { decodeFetchResponse, encodeFetchRequest } from '../../host/protocol/generated/fetch.js';
import { decodeMetadataResponse, encodeMetadataRequest } from '../../host/protocol/generated/metadata.js';
import { decodeProduceResponse, encodeProduceRequest } from '../../host/protocol/generated/produce.js';
import { decodeResponseHeader, encodeRequestHeader } from '../../host/protocol/headers.js';
import { Reader } from '../../host/protocol/reader.js';
import { Writer } from '../../host/protocol/writer.js';
import { buildRecordBatch } from '../../host/record/batch-builder.js';
import { readRecords } from '../../host/record/records.js';
import { httpGet, TestWebSocket } from './websocket-test-client.js';

// The gateway as startBroker runs it (http.listeners): /kafka request frames built with our
// generated codecs reach the broker's dispatcher, /json drives a consumer group, /health and
// /ready answer.

let logDir: string;
let broker: RunningBroker;
let port: number;

beforeAll(async () => {
  logDir = mkdtempSync(join(tmpdir(), 'tributary-ws-kafka-'));
  broker = await startBroker({
    logDirs: logDir,
    overrides: {
      'http.listeners': '127.0.0.1:0',
      'num.partitions': 1,
      'offsets.topic.num.partitions': 1,
      'group.initial.rebalance.delay.ms': 0,
    },
  });
  port = broker.httpListeners[0]!.port;
});

afterAll(async () => {
  await broker?.stop();
  rmSync(logDir, { recursive: true, force: true });
});

function frame(apiKey: number, apiVersion: number, correlationId: number, encodeBody: (w: Writer) => void): Buffer {
  const w = new Writer(128);
  encodeRequestHeader(w, { apiKey, apiVersion, correlationId, clientId: 'ws-test' });
  encodeBody(w);
  return w.toBuffer();
}

async function call<T>(
  socket: TestWebSocket,
  apiKey: number,
  apiVersion: number,
  correlationId: number,
  encodeBody: (w: Writer) => void,
  decodeBody: (r: Reader, version: number) => T,
): Promise<T> {
  socket.sendBinary(frame(apiKey, apiVersion, correlationId, encodeBody));
  const message = await socket.next();
  const reader = new Reader(message.data);
  expect(decodeResponseHeader(reader, apiKey, apiVersion).correlationId).toBe(correlationId);
  const body = decodeBody(reader, apiVersion);
  expect(reader.error).toBeNull();
  return body;
}

describe('the broker\'s WebSocket gateway', () => {
  it('answers /health and /ready once the broker started', async () => {
    expect((await httpGet(port, '/health')).status).toBe(200);
    const ready = await httpGet(port, '/ready');
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body)).toEqual({ status: 'READY' });
  });


  it('answers ApiVersions, Metadata, Produce and Fetch, and stays silent for acks=0', async () => {
    const socket = await TestWebSocket.open(port, '/kafka');
    try {
      const versions = await call(socket, ApiKey.ApiVersions, 3, 1,
        (w) => encodeApiVersionsRequest(w, 3, { clientSoftwareName: 'ws-test', clientSoftwareVersion: '1' }), decodeApiVersionsResponse);
      expect(versions.errorCode).toBe(ErrorCode.NONE);
      expect(versions.apiKeys.some((k) => k.apiKey === ApiKey.Produce)).toBe(true);

      let metadata = await call(socket, ApiKey.Metadata, 8, 2,
        (w) => encodeMetadataRequest(w, 8, { topics: [{ name: 'ws-orders' }], allowAutoTopicCreation: true }), decodeMetadataResponse);
      for (let attempt = 3; metadata.topics[0]?.errorCode !== ErrorCode.NONE && attempt < 50; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        metadata = await call(socket, ApiKey.Metadata, 8, attempt,
          (w) => encodeMetadataRequest(w, 8, { topics: [{ name: 'ws-orders' }], allowAutoTopicCreation: true }), decodeMetadataResponse);
      }
      expect(metadata.topics[0]).toMatchObject({ name: 'ws-orders', errorCode: ErrorCode.NONE });

      const batch = buildRecordBatch({ records: [{ key: Buffer.from('k1'), value: Buffer.from('v1') }, { key: null, value: Buffer.from('v2') }] });
      const produced = await call(socket, ApiKey.Produce, 7, 100,
        (w) => encodeProduceRequest(w, 7, { acks: -1, timeoutMs: 5000, topicData: [{ name: 'ws-orders', partitionData: [{ index: 0, records: batch }] }] }),
        decodeProduceResponse);
      expect(produced.responses[0]!.partitionResponses[0]).toMatchObject({ index: 0, errorCode: ErrorCode.NONE, baseOffset: 0 });

      // acks=0: the broker answers nothing, and the gateway sends nothing; the next request is answered.
      const silent = buildRecordBatch({ records: [{ value: Buffer.from('v3') }] });
      socket.sendBinary(frame(ApiKey.Produce, 7, 101,
        (w) => encodeProduceRequest(w, 7, { acks: 0, timeoutMs: 5000, topicData: [{ name: 'ws-orders', partitionData: [{ index: 0, records: silent }] }] })));
      const fetched = await call(socket, ApiKey.Fetch, 11, 102,
        (w) => encodeFetchRequest(w, 11, {
          maxWaitMs: 100, minBytes: 1, maxBytes: 1 << 20,
          topics: [{ topic: 'ws-orders', partitions: [{ partition: 0, fetchOffset: 0, partitionMaxBytes: 1 << 20 }] }],
        }),
        decodeFetchResponse);
      const partition = fetched.responses[0]!.partitions[0]!;
      expect(partition.errorCode).toBe(ErrorCode.NONE);
      expect(partition.highWatermark).toBe(3);
      const values: string[] = [];
      let records = partition.records!;
      while (records.length > 0) {
        const size = 12 + Buffer.from(records.buffer, records.byteOffset, records.byteLength).readInt32BE(8);
        for (const record of readRecords(records.subarray(0, size))) values.push(Buffer.from(record.value!).toString());
        records = records.subarray(size);
      }
      expect(values).toEqual(['v1', 'v2', 'v3']);
    } finally {
      socket.destroy();
    }
  });

  it('closes the socket with 1008 and the broker reason for a frame with an unknown api key', async () => {
    const socket = await TestWebSocket.open(port, '/kafka');
    socket.sendBinary(frame(1234, 0, 1, () => {}));
    const close = await socket.closed;
    expect(close).toEqual({ code: 1008, reason: 'api key 1234 is not supported' });
  });

  it('closes only the socket that sends a garbage frame, naming the problem', async () => {
    const bystander = await TestWebSocket.open(port, '/kafka');
    const garbage = await TestWebSocket.open(port, '/kafka');
    try {
      garbage.sendBinary(Buffer.from([0xde, 0xad, 0xbe]));
      expect(await garbage.closed).toEqual({ code: 1008, reason: 'request header truncated (3 bytes)' });
      const versions = await call(bystander, ApiKey.ApiVersions, 0, 5, () => {}, decodeApiVersionsResponse);
      expect(versions.errorCode).toBe(ErrorCode.NONE);
    } finally {
      bystander.destroy();
      garbage.destroy();
    }
  });

  it('produces and pushes records to a group subscriber over /json', async () => {
    const producer = await TestWebSocket.open(port, '/json');
    const consumer = await TestWebSocket.open(port, '/json');
    try {
      producer.sendJson({ id: 1, op: 'produce', topic: 'ws-json', records: [{ key: 'a', value: 'first' }, { key: 'b', value: 'second' }] });
      expect(await producer.nextJson()).toMatchObject({ id: 1, op: 'produced', results: [{ partition: 0, offset: 0 }, { partition: 0, offset: 1 }] });
      consumer.sendJson({ id: 1, op: 'subscribe', topics: ['ws-json'], group: 'ws-json-group', fromBeginning: true, credits: 10 });
      expect(await consumer.nextJsonMatching((m) => m.id === 1)).toMatchObject({ op: 'subscribed' });
      const pushed = await consumer.nextJsonMatching((m) => m.op === 'records');
      const values = (pushed.records as { value: string }[]).map((r) => r.value);
      if (values.length === 1) values.push(...((await consumer.nextJsonMatching((m) => m.op === 'records')).records as { value: string }[]).map((r) => r.value));
      expect(values).toEqual(['first', 'second']);
      consumer.sendJson({ id: 2, op: 'commit' });
      expect(await consumer.nextJsonMatching((m) => m.id === 2)).toEqual({ id: 2, op: 'committed', offsets: [{ topic: 'ws-json', partition: 0, offset: 2 }] });
    } finally {
      producer.destroy();
      consumer.destroy();
    }
  });
});
