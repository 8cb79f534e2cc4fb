/**
 * The channels from this node to every other node it talks to, keyed by node id (Kafka's
 * NetworkClient over a set of nodes). Endpoints come from configuration
 * (`controller.quorum.voters` for the quorum, broker registrations for replica fetchers) and may
 * change; a changed endpoint closes the old channel.
 */
import type { Network, RandomSource, Time } from '../io/environment.js';
import { NodeChannel, type ChannelResult, type RemoteApi } from './node-channel.js';
import { DEFAULT_RECONNECT_BACKOFF, ReconnectBackoff, type ReconnectBackoffOptions } from './reconnect-backoff.js';

/** Where a node listens. */
export interface NodeEndpoint {
  readonly host: string;
  readonly port: number;
}

export interface NodeChannelsOptions {
  readonly clientId: string;
  readonly time: Time;
  readonly random: RandomSource;
  readonly network: Network;
  /** ms; see {@link NodeChannelOptions.requestTimeoutMs}. */
  readonly requestTimeoutMs: number;
  /** ms; default 10 000 (`socket.connection.setup.timeout.ms`). */
  readonly connectTimeoutMs?: number;
  /** bytes; default 100 MiB. */
  readonly maxResponseBytes?: number;
  readonly backoff?: ReconnectBackoffOptions;
}

/** Lazily opened {@link NodeChannel}s to known nodes. */
export class NodeChannels {
  private readonly endpoints = new Map<number, NodeEndpoint>();
  private readonly channels = new Map<number, NodeChannel>();
  private closed = false;

  constructor(private readonly options: NodeChannelsOptions) {}

  /** Sets (or changes) where `nodeId` listens; a changed endpoint closes its open channel. */
  setEndpoint(nodeId: number, endpoint: NodeEndpoint): void {
    const old = this.endpoints.get(nodeId);
    if (old !== undefined && old.host === endpoint.host && old.port === endpoint.port) return;
    this.endpoints.set(nodeId, endpoint);
    this.channels.get(nodeId)?.close();
    this.channels.delete(nodeId);
  }

  /** The endpoint known for `nodeId`, or undefined. */
  endpoint(nodeId: number): NodeEndpoint | undefined {
    return this.endpoints.get(nodeId);
  }

  /**
   * Sends a request to `nodeId`; an unknown node or a closed set resolves as `disconnected`.
   * @param timeoutMs overrides the request timeout, ms
   */
  send<Req, Res>(nodeId: number, api: RemoteApi<Req, Res>, version: number, body: Req, timeoutMs?: number): Promise<ChannelResult<Res>> {
    const channel = this.channel(nodeId);
    if (channel === null) return Promise.resolve({ kind: 'disconnected', reason: this.closed ? 'channels closed' : `no endpoint known for node ${nodeId}` });
    return channel.send(api, version, body, timeoutMs);
  }

  /** Closes every channel; later sends resolve as `disconnected`. */
  close(): void {
    this.closed = true;
    for (const channel of this.channels.values()) channel.close();
    this.channels.clear();
  }

  private channel(nodeId: number): NodeChannel | null {
    if (this.closed) return null;
    const existing = this.channels.get(nodeId);
    if (existing !== undefined) return existing;
    const endpoint = this.endpoints.get(nodeId);
    if (endpoint === undefined) return null;
    const { clientId, time, random, network, requestTimeoutMs } = this.options;
    const channel = new NodeChannel({
      host: endpoint.host, port: endpoint.port, clientId, time, network, requestTimeoutMs,
      connectTimeoutMs: this.options.connectTimeoutMs ?? 10_000,
      maxResponseBytes: this.options.maxResponseBytes ?? 100 * 1024 * 1024,
      backoff: new ReconnectBackoff(random, this.options.backoff ?? DEFAULT_RECONNECT_BACKOFF),
    });
    this.channels.set(nodeId, channel);
    return channel;
  }
}
