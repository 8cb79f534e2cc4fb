/**
 * One connection to one broker: ApiVersions negotiation, correlation ids, pipelined in-flight
 * requests (bounded), per-request timeouts, and typed requests over the generated codecs.
 *
 * Lifecycle: `connect()` opens the transport and sends ApiVersions (v3 first, KIP-511; on
 * UNSUPPORTED_VERSION (35) the broker answers with a v0-shaped body listing its range and we retry
 * with the highest version both sides know, or v0), then every API is sent at
 * `min(ourMax, brokerMax)` (Java's NetworkClient rule). A connection that fails or times out
 * closes for good; all in-flight requests reject with ConnectionError / KafkaTimeoutError and the
 * owner (Cluster) opens a new one on the next use.
 *
 * Ordering: Kafka answers requests on one connection in order, so responses are matched FIFO; a
 * response whose correlation id is not the oldest in flight is a protocol violation and closes
 * the connection (as Java's NetworkClient does).
 */
import { decodeApiVersionsResponse, type ApiVersionsResponse } from '../../protocol/generated/api-versions.js';
import { ApiKey } from '../../protocol/generated/api-keys.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { decodeResponseHeader, encodeRequestHeader } from '../../protocol/headers.js';
import { Reader } from '../../protocol/reader.js';
import { Writer } from '../../protocol/writer.js';
import { ClientClosedError, ConnectionError, KafkaTimeoutError, ProtocolDecodeError, UnsupportedVersionError } from '../errors.js';
import { CLIENT_APIS, type ApiRequest, type ApiResponse, type ClientApiKey } from './client-apis.js';
import { formatBrokerAddress, type BrokerAddress, type Transport, type TransportFactory } from './transport.js';

/** The name and version we report in ApiVersions v3+ (KIP-511). */
export const CLIENT_SOFTWARE_NAME = 'tributary-client';
export const CLIENT_SOFTWARE_VERSION = '0.1.0';

export interface ConnectionOptions {
  /** client.id sent in every request header. */
  clientId: string;
  /** How long a request may wait for its response, ms (Kafka request.timeout.ms, default 30000). */
  requestTimeoutMs: number;
  /** How long connecting + ApiVersions may take, ms (default 10000). */
  connectTimeoutMs: number;
  /** Requests on the wire at once; more wait in a local queue (pipelining bound). */
  maxInFlightRequests: number;
  /** Largest response frame accepted, bytes. */
  maxFrameBytes: number;
  transportFactory: TransportFactory;
}

export const DEFAULT_CONNECTION_OPTIONS: Omit<ConnectionOptions, 'transportFactory'> = {
  clientId: 'tributary',
  requestTimeoutMs: 30_000,
  connectTimeoutMs: 10_000,
  maxInFlightRequests: 32,
  maxFrameBytes: 256 * 1024 * 1024,
};

export interface RequestOptions {
  /** Send this version instead of the negotiated one (must be inside both windows). */
  version?: number;
  /** Overrides requestTimeoutMs for this request (e.g. long-polling Fetch: maxWaitMs + requestTimeoutMs). */
  timeoutMs?: number;
}

/** A broker's advertised range for one API. */
export interface VersionRange {
  minVersion: number;
  maxVersion: number;
}

interface InFlight {
  correlationId: number;
  apiKey: number;
  version: number;
  resolve(frame: Uint8Array): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout> | null;
}

interface Queued {
  start(): void;
  reject(error: Error): void;
}

export class Connection {
  readonly address: BrokerAddress;
  /** `host:port` of the broker, for messages. */
  readonly peer: string;
  private readonly options: ConnectionOptions;
  private transport: Transport | null = null;
  private connecting: Promise<void> | null = null;
  private nextCorrelationId = 1;
  private readonly inFlight: InFlight[] = [];
  private readonly waiting: Queued[] = [];
  private state: 'new' | 'connecting' | 'ready' | 'closed' = 'new';
  private closeError: Error | null = null;
  private brokerVersions = new Map<number, VersionRange>();
  private readonly closeListeners: ((error?: Error) => void)[] = [];

  constructor(address: BrokerAddress, options: ConnectionOptions) {
    this.address = address;
    this.peer = formatBrokerAddress(address);
    this.options = options;
  }

  /** True once connected and negotiated, until closed. */
  get isReady(): boolean {
    return this.state === 'ready';
  }

  /** True once closed (by either side); a closed connection is never reused. */
  get isClosed(): boolean {
    return this.state === 'closed';
  }

  /** Requests sent and not yet answered plus requests queued behind the in-flight bound. */
  get pendingRequests(): number {
    return this.inFlight.length + this.waiting.length;
  }

  /** The broker's ApiVersions answer (after connect). */
  get apiVersions(): ReadonlyMap<number, VersionRange> {
    return this.brokerVersions;
  }

  /** Called once when the connection closes (with the error unless close() was requested). */
  onClose(listener: (error?: Error) => void): void {
    this.closeListeners.push(listener);
  }

  /**
   * Opens the transport and negotiates versions; idempotent (concurrent callers share one attempt).
   * @throws ConnectionError, KafkaTimeoutError, UnsupportedVersionError (no common ApiVersions)
   */
  connect(): Promise<void> {
    if (this.state === 'closed') return Promise.reject(this.closeError ?? new ClientClosedError(`connection to ${this.peer} is closed`));
    if (this.connecting !== null) return this.connecting;
    this.state = 'connecting';
    this.connecting = this.open().catch((error: unknown) => {
      this.shutdown(error instanceof Error ? error : new ConnectionError(String(error)));
      throw error;
    });
    return this.connecting;
  }

  private async open(): Promise<void> {
    const transport = this.options.transportFactory(this.address, {
      connectTimeoutMs: this.options.connectTimeoutMs,
      maxFrameBytes: this.options.maxFrameBytes,
    });
    this.transport = transport;
    await transport.connect({
      onFrame: (frame) => this.onFrame(frame),
      onClose: (error) => this.shutdown(error ?? new ConnectionError(`connection to ${this.peer} closed`)),
    });
    if (this.state === 'closed') throw this.closeError ?? new ConnectionError(`connection to ${this.peer} closed`);
    let version = CLIENT_APIS[ApiKey.ApiVersions].maxVersion;
    for (let attempt = 0; attempt < 3; attempt++) {
      const frame = await this.sendFrame(ApiKey.ApiVersions, version, (w) => CLIENT_APIS[ApiKey.ApiVersions].encodeRequest(w, version, {
        clientSoftwareName: CLIENT_SOFTWARE_NAME,
        clientSoftwareVersion: CLIENT_SOFTWARE_VERSION,
      }), this.options.connectTimeoutMs);
      const response = decodeApiVersionsFrame(frame, version);
      if (response === null) throw new ProtocolDecodeError(`${this.peer}: undecodable ApiVersions v${version} response`);
      if (response.errorCode === ErrorCode.UNSUPPORTED_VERSION) {
        const theirs = response.apiKeys.find((k) => k.apiKey === ApiKey.ApiVersions);
        const next = theirs === undefined ? 0 : Math.min(theirs.maxVersion, CLIENT_APIS[ApiKey.ApiVersions].maxVersion);
        if (next >= version) throw new UnsupportedVersionError(`${this.peer} refuses ApiVersions v${version} but advertises v${next}`);
        version = next;
        continue;
      }
      if (response.errorCode !== ErrorCode.NONE) {
        throw new UnsupportedVersionError(`${this.peer} answered ApiVersions with error ${response.errorCode}`);
      }
      this.brokerVersions = new Map(response.apiKeys.map((k) => [k.apiKey, { minVersion: k.minVersion, maxVersion: k.maxVersion }]));
      this.state = 'ready';
      this.pump();
      return;
    }
    throw new UnsupportedVersionError(`${this.peer}: ApiVersions negotiation did not converge`);
  }

  /**
   * The version to send for `apiKey`: min(ours, broker's max), checked against both minima.
   * @throws UnsupportedVersionError when the windows do not overlap or the broker lacks the API
   */
  versionFor(apiKey: ClientApiKey): number {
    const api = CLIENT_APIS[apiKey];
    const broker = this.brokerVersions.get(apiKey);
    if (broker === undefined) throw new UnsupportedVersionError(`broker ${this.peer} does not support ${api.name} (api key ${apiKey})`);
    const version = Math.min(api.maxVersion, broker.maxVersion);
    if (version < Math.max(api.minVersion, broker.minVersion)) {
      throw new UnsupportedVersionError(
        `broker ${this.peer} supports ${api.name} v${broker.minVersion}-${broker.maxVersion}, this client v${api.minVersion}-${api.maxVersion}`,
      );
    }
    return version;
  }

  /** True when the broker advertises `apiKey` in a range overlapping ours. */
  supports(apiKey: ClientApiKey): boolean {
    try {
      this.versionFor(apiKey);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Sends one request and resolves with its decoded response. Connects first if needed.
   * @throws ConnectionError (connection lost: the request may or may not have been processed),
   *   KafkaTimeoutError (no response in time; the connection is closed), UnsupportedVersionError,
   *   ProtocolDecodeError (undecodable response; the connection is closed), ClientClosedError.
   */
  async request<K extends ClientApiKey>(apiKey: K, body: ApiRequest<K>, options: RequestOptions = {}): Promise<ApiResponse<K>> {
    if (this.state !== 'ready') await this.connect();
    const version = this.pickVersion(apiKey, options.version);
    const api = CLIENT_APIS[apiKey];
    const frame = await this.enqueue(apiKey, version, (w) => api.encodeRequest(w, version, body), options.timeoutMs ?? this.options.requestTimeoutMs, true);
    const r = new Reader(frame!);
    decodeResponseHeader(r, apiKey, version);
    const response = api.decodeResponse(r, version);
    if (r.error !== null) {
      const error = new ProtocolDecodeError(`${this.peer}: undecodable ${api.name} v${version} response: ${r.error}`);
      this.shutdown(error);
      throw error;
    }
    return response;
  }

  /**
   * Sends a request that gets no response (Produce with acks=0). Resolves once handed to the
   * transport. @throws as request()
   */
  async sendWithoutResponse<K extends ClientApiKey>(apiKey: K, body: ApiRequest<K>, options: RequestOptions = {}): Promise<void> {
    if (this.state !== 'ready') await this.connect();
    const version = this.pickVersion(apiKey, options.version);
    const api = CLIENT_APIS[apiKey];
    await this.enqueue(apiKey, version, (w) => api.encodeRequest(w, version, body), 0, false);
  }

  private pickVersion(apiKey: ClientApiKey, requested: number | undefined): number {
    const negotiated = this.versionFor(apiKey);
    if (requested === undefined) return negotiated;
    const api = CLIENT_APIS[apiKey];
    const broker = this.brokerVersions.get(apiKey)!;
    if (requested < Math.max(api.minVersion, broker.minVersion) || requested > Math.min(api.maxVersion, broker.maxVersion)) {
      throw new UnsupportedVersionError(`${api.name} v${requested} is outside what ${this.peer} and this client share`);
    }
    return requested;
  }

  /** Waits for an in-flight slot (requests beyond maxInFlightRequests queue locally, in order). */
  private enqueue(apiKey: number, version: number, encodeBody: (w: Writer) => void, timeoutMs: number, expectResponse: boolean): Promise<Uint8Array | null> {
    return new Promise((resolve, reject) => {
      const start = (): void => {
        if (!expectResponse) {
          try {
            const correlationId = this.nextCorrelationId;
            this.nextCorrelationId = (this.nextCorrelationId + 1) & 0x7fffffff;
            this.write(correlationId, apiKey, version, encodeBody);
            resolve(null);
          } catch (error) {
            reject(error as Error);
          }
          return;
        }
        this.sendFrame(apiKey, version, encodeBody, timeoutMs).then(resolve, reject);
      };
      if (this.state === 'ready' && this.waiting.length === 0 && this.inFlight.length < this.options.maxInFlightRequests) start();
      else if (this.state === 'closed') reject(this.closeError ?? new ClientClosedError());
      else this.waiting.push({ start, reject });
    });
  }

  private pump(): void {
    while (this.state === 'ready' && this.waiting.length > 0 && this.inFlight.length < this.options.maxInFlightRequests) {
      this.waiting.shift()!.start();
    }
  }

  private write(correlationId: number, apiKey: number, version: number, encodeBody: (w: Writer) => void): void {
    const transport = this.transport;
    if (transport === null || this.state === 'closed') throw this.closeError ?? new ConnectionError(`connection to ${this.peer} is closed`);
    const w = new Writer(512);
    encodeRequestHeader(w, { apiKey, apiVersion: version, correlationId, clientId: this.options.clientId });
    encodeBody(w);
    transport.send(w.toBuffer());
  }

  /** Writes a frame and resolves with the raw response frame (header + body). */
  private sendFrame(apiKey: number, version: number, encodeBody: (w: Writer) => void, timeoutMs: number): Promise<Uint8Array> {
    return new Promise((resolve, reject) => {
      const correlationId = this.nextCorrelationId;
      this.nextCorrelationId = (this.nextCorrelationId + 1) & 0x7fffffff;
      const entry: InFlight = { correlationId, apiKey, version, resolve, reject, timer: null };
      try {
        this.write(correlationId, apiKey, version, encodeBody);
      } catch (error) {
        reject(error as Error);
        return;
      }
      this.inFlight.push(entry);
      if (timeoutMs > 0) {
        entry.timer = setTimeout(() => {
          const error = new KafkaTimeoutError(`${CLIENT_APIS[apiKey as ClientApiKey]?.name ?? `api ${apiKey}`} request to ${this.peer} timed out after ${timeoutMs} ms`);
          this.shutdown(error, entry);
        }, timeoutMs);
      }
    });
  }

  private onFrame(frame: Uint8Array): void {
    const head = this.inFlight.shift();
    if (head === undefined) {
      this.shutdown(new ProtocolDecodeError(`${this.peer} sent a response with no request in flight`));
      return;
    }
    const r = new Reader(frame);
    const correlationId = r.int32();
    if (r.error !== null || correlationId !== head.correlationId) {
      this.inFlight.unshift(head);
      this.shutdown(new ProtocolDecodeError(`${this.peer} answered correlation id ${correlationId}, expected ${head.correlationId}`));
      return;
    }
    if (head.timer !== null) clearTimeout(head.timer);
    head.resolve(frame);
    this.pump();
  }

  /**
   * Closes for good, rejecting everything pending. `culprit` (a timed-out request) gets `error`
   * itself; the others get a ConnectionError naming the cause.
   */
  private shutdown(error: Error, culprit?: InFlight): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.closeError = error instanceof ConnectionError ? error : new ConnectionError(`connection to ${this.peer} closed: ${error.message}`, { cause: error });
    for (const entry of this.inFlight.splice(0)) {
      if (entry.timer !== null) clearTimeout(entry.timer);
      entry.reject(entry === culprit ? error : this.closeError);
    }
    for (const queued of this.waiting.splice(0)) queued.reject(this.closeError);
    const transport = this.transport;
    if (transport !== null) void transport.close();
    for (const listener of this.closeListeners.splice(0)) listener(error);
  }

  /** Closes the connection; pending requests reject with ClientClosedError. Idempotent. */
  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.closeError = new ClientClosedError(`connection to ${this.peer} was closed by the client`);
    for (const entry of this.inFlight.splice(0)) {
      if (entry.timer !== null) clearTimeout(entry.timer);
      entry.reject(this.closeError);
    }
    for (const queued of this.waiting.splice(0)) queued.reject(this.closeError);
    for (const listener of this.closeListeners.splice(0)) listener();
    if (this.transport !== null) await this.transport.close();
  }
}

/**
 * Decodes an ApiVersions response frame sent at `version`. A broker that refuses the version
 * answers error 35 with a v0-shaped body (KIP-511), so an error answer is re-read as v0.
 */
function decodeApiVersionsFrame(frame: Uint8Array, version: number): ApiVersionsResponse | null {
  const r = new Reader(frame);
  decodeResponseHeader(r, ApiKey.ApiVersions, version);
  const bodyStart = r.offset;
  const response = decodeApiVersionsResponse(r, version);
  if (r.error === null && response.errorCode === ErrorCode.NONE) return response;
  const v0 = new Reader(frame, bodyStart);
  const fallback = decodeApiVersionsResponse(v0, 0);
  return v0.error === null ? fallback : null;
}
