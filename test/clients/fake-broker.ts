/**
 * A scriptable fake Kafka broker for unit tests of the client transport and cluster code: a real
 * SocketServer on 127.0.0.1:0 whose handler decodes request headers and bodies with the generated
 * codecs and answers with whatever the test's handler for that api key returns.
 */
import { decodeApiVersionsRequest, encodeApiVersionsResponse } from '../../host/protocol/generated/api-versions.js';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { decodeFindCoordinatorRequest, encodeFindCoordinatorResponse } from '../../host/protocol/generated/find-coordinator.js';
import { decodeMetadataRequest, encodeMetadataResponse } from '../../host/protocol/generated/metadata.js';
import { decodeProduceRequest, encodeProduceResponse } from '../../host/protocol/generated/produce.js';
import { decodeInitProducerIdRequest, encodeInitProducerIdResponse } from '../../host/protocol/generated/init-producer-id.js';
import { decodeRequestHeader, encodeResponseHeader, type RequestHeader } from '../../host/protocol/headers.js';
import { Reader } from '../../host/protocol/reader.js';
import { Writer } from '../../host/protocol/writer.js';
import { SocketServer, type ConnectionContext, type NetworkLogger } from '../../host/network/socket-server.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
interface Codec {
  decode(r: Reader, version: number): any;
  encode(w: Writer, version: number, m: any): void;
}

const CODECS: Record<number, Codec> = {
  [ApiKey.ApiVersions]: { decode: decodeApiVersionsRequest, encode: encodeApiVersionsResponse },
  [ApiKey.Metadata]: { decode: decodeMetadataRequest, encode: encodeMetadataResponse },
  [ApiKey.FindCoordinator]: { decode: decodeFindCoordinatorRequest, encode: encodeFindCoordinatorResponse },
  [ApiKey.Produce]: { decode: decodeProduceRequest, encode: encodeProduceResponse },
  [ApiKey.InitProducerId]: { decode: decodeInitProducerIdRequest, encode: encodeInitProducerIdResponse },
};

/** What a handler returns: a response object, `null` for no response, or a raw frame body to send as is. */
export type FakeResponse = object | null | { raw: Buffer };

export type FakeHandler = (request: any, header: RequestHeader, connection: ConnectionContext) => FakeResponse | Promise<FakeResponse>;

const silentLogger: NetworkLogger = { debug() {}, info() {}, warn() {}, error() {} };

/** The ApiVersions ranges the fake advertises by default (Level A subset used in tests). */
export const FAKE_API_VERSIONS = [
  { apiKey: ApiKey.Produce, minVersion: 0, maxVersion: 7 },
  { apiKey: ApiKey.Metadata, minVersion: 0, maxVersion: 8 },
  { apiKey: ApiKey.FindCoordinator, minVersion: 0, maxVersion: 2 },
  { apiKey: ApiKey.ApiVersions, minVersion: 0, maxVersion: 3 },
  { apiKey: ApiKey.InitProducerId, minVersion: 0, maxVersion: 4 },
];

export class FakeBroker {
  readonly handlers = new Map<number, FakeHandler>();
  /** Every request received: header and decoded body, in arrival order. */
  readonly received: { header: RequestHeader; body: any }[] = [];
  private server: SocketServer | null = null;
  port = 0;

  constructor(readonly nodeId = 0) {
    this.handlers.set(ApiKey.ApiVersions, () => ({ errorCode: 0, apiKeys: FAKE_API_VERSIONS }));
    this.handlers.set(ApiKey.Metadata, () => this.metadata([]));
  }

  /** A metadata answer listing this broker (as node `nodeId`, the controller) and `topics`. */
  metadata(topics: { name: string; partitions: number; errorCode?: number }[]): object {
    return {
      brokers: [{ nodeId: this.nodeId, host: '127.0.0.1', port: this.port, rack: null }],
      clusterId: 'fake-cluster',
      controllerId: this.nodeId,
      topics: topics.map((topic) => ({
        errorCode: topic.errorCode ?? 0,
        name: topic.name,
        isInternal: false,
        partitions: Array.from({ length: topic.partitions }, (_, partitionIndex) => ({
          errorCode: 0, partitionIndex, leaderId: this.nodeId, leaderEpoch: 0,
          replicaNodes: [this.nodeId], isrNodes: [this.nodeId], offlineReplicas: [],
        })),
      })),
    };
  }

  on(apiKey: number, handler: FakeHandler): this {
    this.handlers.set(apiKey, handler);
    return this;
  }

  async start(): Promise<this> {
    this.server = new SocketServer({
      host: '127.0.0.1',
      port: 0,
      logger: silentLogger,
      handler: async (frame, connection) => {
        const r = new Reader(frame);
        const header = decodeRequestHeader(r);
        const codec = CODECS[header.apiKey];
        if (codec === undefined) {
          connection.close(`fake broker has no codec for api ${header.apiKey}`);
          return null;
        }
        const body = codec.decode(r, header.apiVersion);
        this.received.push({ header, body });
        const handler = this.handlers.get(header.apiKey);
        if (handler === undefined) {
          connection.close(`fake broker has no handler for api ${header.apiKey}`);
          return null;
        }
        const response = await handler(body, header, connection);
        if (response === null) return null;
        const w = new Writer();
        encodeResponseHeader(w, header.apiKey, header.apiVersion, header.correlationId);
        if ('raw' in response) {
          const raw = (response as { raw: Buffer }).raw;
          return Buffer.concat([w.toBuffer(), raw]);
        }
        codec.encode(w, header.apiVersion, response);
        return Buffer.from(w.toBuffer());
      },
    });
    const address = await this.server.start();
    this.port = address.port;
    return this;
  }

  get bootstrap(): string {
    return `127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    await this.server?.stop();
    this.server = null;
  }
}
