/**
 * BrokerLifecycleManager (Kafka's name, KIP-631): a broker's side of joining a KRaft cluster. It
 * registers with the active controller (BrokerRegistration, api key 62), then sends BrokerHeartbeat
 * (63) every `broker.heartbeat.interval.ms` carrying the metadata offset the broker has replayed;
 * the controller unfences the broker once that offset reaches its registration, fences it when its
 * session expires, and runs its controlled shutdown.
 *
 * States (Kafka's BrokerState; the requests that move them in brackets):
 *
 * ```
 * NOT_RUNNING ──start──► STARTING ──[registration answered NONE]──► RECOVERY (registered, fenced)
 * RECOVERY ──[heartbeat: isFenced false]──► RUNNING (unfenced; `unfenced` resolves)
 * RUNNING ──[heartbeat: isFenced true (session expired)]──► RECOVERY
 * RECOVERY | RUNNING ──[heartbeat: STALE_BROKER_EPOCH 77]──► STARTING (register again)
 * RECOVERY | RUNNING ──controlledShutdown──► PENDING_CONTROLLED_SHUTDOWN (heartbeats wantShutDown)
 * PENDING_CONTROLLED_SHUTDOWN ──[heartbeat: shouldShutDown]──► SHUTTING_DOWN
 * any ──stop──► SHUTTING_DOWN (nothing more is sent)
 * ```
 *
 * One request is in flight at a time, always to the node `activeControllerId()` names at send time
 * (the metadata log's leader), so a controller change is followed on the next attempt. A failed
 * attempt (NOT_CONTROLLER 41, any other error code of a registration, a disconnect, a timeout) is
 * retried after an exponential backoff (`retryBackoffMs` doubling up to `retryBackoffMaxMs`); a
 * success resets it. During a controlled shutdown heartbeats go every
 * {@link CONTROLLED_SHUTDOWN_HEARTBEAT_MS} at most, so the controller's two steps (leave ISRs and
 * leadership, then fence) take milliseconds, not intervals. Every timer is on the injected
 * {@link Time}; the transport is a {@link NodeChannels} (or a fake with its `send`). The caller
 * keeps the channels' endpoints for the controller ids current.
 */
import { METADATA_VERSION_LEVEL } from '../controller/quorum-controller.js';
import type { Time, TimerHandle } from '../io/environment.js';
import type { ChannelResult, RemoteApi } from '../network/node-channel.js';
import { ApiKey } from '../protocol/generated/api-keys.js';
import {
  type BrokerHeartbeatRequestInit,
  type BrokerHeartbeatResponse,
  decodeBrokerHeartbeatResponse,
  encodeBrokerHeartbeatRequest,
} from '../protocol/generated/broker-heartbeat.js';
import {
  type BrokerRegistrationRequestInit,
  type BrokerRegistrationResponse,
  decodeBrokerRegistrationResponse,
  encodeBrokerRegistrationRequest,
} from '../protocol/generated/broker-registration.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';

/** Kafka's BrokerState names for the states this manager moves through. */
export type BrokerState = 'NOT_RUNNING' | 'STARTING' | 'RECOVERY' | 'RUNNING' | 'PENDING_CONTROLLED_SHUTDOWN' | 'SHUTTING_DOWN';

/** Heartbeat spacing during a controlled shutdown, ms (at most; never above the interval). */
export const CONTROLLED_SHUTDOWN_HEARTBEAT_MS = 100;

/** BrokerRegistration v3 (previous_broker_epoch) and BrokerHeartbeat v1 are what we send. */
export const BROKER_REGISTRATION_VERSION = 3;
export const BROKER_HEARTBEAT_VERSION = 1;

export const BROKER_REGISTRATION_API: RemoteApi<BrokerRegistrationRequestInit, BrokerRegistrationResponse> = {
  apiKey: ApiKey.BrokerRegistration, name: 'BrokerRegistration',
  encodeRequest: encodeBrokerRegistrationRequest, decodeResponse: decodeBrokerRegistrationResponse,
};
export const BROKER_HEARTBEAT_API: RemoteApi<BrokerHeartbeatRequestInit, BrokerHeartbeatResponse> = {
  apiKey: ApiKey.BrokerHeartbeat, name: 'BrokerHeartbeat',
  encodeRequest: encodeBrokerHeartbeatRequest, decodeResponse: decodeBrokerHeartbeatResponse,
};

/** What the manager sends through (NodeChannels fits). */
export interface BrokerLifecycleTransport {
  send<Req, Res>(nodeId: number, api: RemoteApi<Req, Res>, version: number, body: Req, timeoutMs?: number): Promise<ChannelResult<Res>>;
}

/** One advertised endpoint (BrokerRegistration's listener): security protocol as Kafka's id (PLAINTEXT 0, SSL 1, SASL_PLAINTEXT 2, SASL_SSL 3). */
export interface BrokerListener {
  readonly name: string;
  readonly host: string;
  readonly port: number;
  readonly securityProtocol: number;
}

export interface BrokerLifecycleManagerOptions {
  readonly transport: BrokerLifecycleTransport;
  readonly time: Time;
  /** node.id */
  readonly brokerId: number;
  /** This cluster's id (meta.properties). */
  readonly clusterId: string;
  /** This process start: 32 lowercase hex digits. */
  readonly incarnationId: string;
  /** The advertised listeners. */
  readonly listeners: readonly BrokerListener[];
  readonly rack?: string | null;
  /** The metadata.version levels this broker reads; default 1 to METADATA_VERSION_LEVEL. */
  readonly metadataVersion?: { readonly min: number; readonly max: number };
  /** The active controller's node id (the metadata log's leader), -1 while unknown. */
  readonly activeControllerId: () => number;
  /** The highest metadata offset this broker has replayed, -1 for none. */
  readonly metadataOffset: () => number;
  /** `broker.heartbeat.interval.ms`; default 2 000 ms. */
  readonly heartbeatIntervalMs?: number;
  /** Per-request timeout, ms; default the transport's. */
  readonly requestTimeoutMs?: number;
  /** First retry delay, ms; default 100. */
  readonly retryBackoffMs?: number;
  /** Longest retry delay, ms; default 1 000. */
  readonly retryBackoffMaxMs?: number;
  /** The broker epoch of this broker's registration before a clean shutdown, -1 for none (BrokerRegistration v3). */
  readonly previousBrokerEpoch?: number;
  /** Told about refused or failed attempts (for logs). */
  readonly onError?: (what: string) => void;
}

/** Registers a broker with the active controller and keeps its session alive. */
export class BrokerLifecycleManager {
  private stateValue: BrokerState = 'NOT_RUNNING';
  private epoch = -1;
  private inFlight = false;
  private timer: TimerHandle | null = null;
  private failures = 0;
  private readonly heartbeatIntervalMs: number;
  private resolveUnfenced!: (unfenced: boolean) => void;
  private shutdownWaiters: Array<(done: boolean) => void> = [];
  /**
   * Resolves true the first time the controller unfences this broker (start-up waits for it
   * before serving clients), false if the manager is stopped first. Never rejects.
   */
  readonly unfenced: Promise<boolean>;

  constructor(private readonly options: BrokerLifecycleManagerOptions) {
    this.heartbeatIntervalMs = options.heartbeatIntervalMs ?? 2_000;
    if (!(this.heartbeatIntervalMs > 0)) throw new RangeError(`broker.heartbeat.interval.ms must be positive, not ${this.heartbeatIntervalMs}`);
    this.unfenced = new Promise<boolean>((resolve) => {
      this.resolveUnfenced = resolve;
    });
  }

  /** The lifecycle state (see the file header). */
  get state(): BrokerState {
    return this.stateValue;
  }

  /** The current registration's broker epoch, -1 while not registered. */
  get brokerEpoch(): number {
    return this.epoch;
  }

  /** Whether the controller has this broker registered and unfenced, as last heard. */
  get isUnfenced(): boolean {
    return this.stateValue === 'RUNNING';
  }

  /** Starts registering (at once). @throws Error when already started */
  start(): void {
    if (this.stateValue !== 'NOT_RUNNING') throw new Error(`BrokerLifecycleManager already started (${this.stateValue})`);
    this.stateValue = 'STARTING';
    this.schedule(0);
  }

  /**
   * Kafka's controlled shutdown: heartbeats with wantShutDown until the controller answers
   * shouldShutDown (it moved leadership away and fenced the broker). Resolves true then, false
   * when `timeoutMs` (ms) passes first or the broker is not registered (nothing to hand over).
   * The caller then calls {@link stop}.
   */
  controlledShutdown(timeoutMs: number): Promise<boolean> {
    if (this.stateValue === 'SHUTTING_DOWN') return Promise.resolve(true);
    if (this.stateValue !== 'RECOVERY' && this.stateValue !== 'RUNNING' && this.stateValue !== 'PENDING_CONTROLLED_SHUTDOWN') {
      return Promise.resolve(false);
    }
    this.stateValue = 'PENDING_CONTROLLED_SHUTDOWN';
    return new Promise<boolean>((resolve) => {
      const timeout = this.options.time.setTimeout(() => finish(false), timeoutMs);
      const finish = (done: boolean): void => {
        this.options.time.clearTimeout(timeout);
        this.shutdownWaiters = this.shutdownWaiters.filter((w) => w !== finish);
        resolve(done);
      };
      this.shutdownWaiters.push(finish);
      if (!this.inFlight) this.schedule(0);
    });
  }

  /** Stops sending (state SHUTTING_DOWN); `unfenced` resolves false if still pending, waiting controlled shutdowns answer false. */
  stop(): void {
    this.stateValue = 'SHUTTING_DOWN';
    if (this.timer !== null) this.options.time.clearTimeout(this.timer);
    this.timer = null;
    this.resolveUnfenced(false);
    for (const waiter of [...this.shutdownWaiters]) waiter(false);
  }

  // ---------------------------------------------------------------------------------------------

  private get stopped(): boolean {
    return this.stateValue === 'SHUTTING_DOWN' || this.stateValue === 'NOT_RUNNING';
  }

  /** Plans the next request in `delayMs` (replacing a planned one). */
  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer !== null) this.options.time.clearTimeout(this.timer);
    this.timer = this.options.time.setTimeout(() => {
      this.timer = null;
      void this.communicate();
    }, delayMs);
  }

  /** After a failed attempt: 100, 200, 400 ... ms up to the maximum. */
  private retry(what: string): void {
    this.options.onError?.(what);
    const base = this.options.retryBackoffMs ?? 100;
    const max = this.options.retryBackoffMaxMs ?? 1_000;
    const delay = Math.min(max, base * 2 ** Math.min(this.failures, 20));
    this.failures += 1;
    this.schedule(delay);
  }

  /** Sends what the state calls for: a registration while STARTING, else a heartbeat. */
  private async communicate(): Promise<void> {
    if (this.stopped || this.inFlight) return;
    const controllerId = this.options.activeControllerId();
    if (controllerId < 0) return this.retry('no active controller known');
    this.inFlight = true;
    try {
      if (this.stateValue === 'STARTING') await this.register(controllerId);
      else await this.heartbeat(controllerId);
    } finally {
      this.inFlight = false;
    }
  }

  private async register(controllerId: number): Promise<void> {
    const o = this.options;
    const metadataVersion = o.metadataVersion ?? { min: 1, max: METADATA_VERSION_LEVEL };
    const result = await o.transport.send(controllerId, BROKER_REGISTRATION_API, BROKER_REGISTRATION_VERSION, {
      brokerId: o.brokerId, clusterId: o.clusterId, incarnationId: o.incarnationId,
      listeners: o.listeners.map((l) => ({ name: l.name, host: l.host, port: l.port, securityProtocol: l.securityProtocol })),
      features: [{ name: 'metadata.version', minSupportedVersion: metadataVersion.min, maxSupportedVersion: metadataVersion.max }],
      rack: o.rack ?? null, previousBrokerEpoch: o.previousBrokerEpoch ?? -1,
    }, o.requestTimeoutMs);
    if (this.stopped || this.stateValue !== 'STARTING') return;
    if (result.kind !== 'response') return this.retry(`BrokerRegistration to node ${controllerId}: ${describe(result)}`);
    if (result.body.errorCode !== ErrorCode.NONE) return this.retry(`BrokerRegistration to node ${controllerId}: error ${result.body.errorCode}`);
    this.failures = 0;
    this.epoch = result.body.brokerEpoch;
    this.stateValue = 'RECOVERY';
    this.schedule(0);
  }

  private async heartbeat(controllerId: number): Promise<void> {
    const o = this.options;
    const epoch = this.epoch;
    const result = await o.transport.send(controllerId, BROKER_HEARTBEAT_API, BROKER_HEARTBEAT_VERSION, {
      brokerId: o.brokerId, brokerEpoch: epoch, currentMetadataOffset: o.metadataOffset(),
      wantFence: false, wantShutDown: this.stateValue === 'PENDING_CONTROLLED_SHUTDOWN',
    }, o.requestTimeoutMs);
    if (this.stopped || this.stateValue === 'STARTING' || epoch !== this.epoch) return;
    if (result.kind !== 'response') return this.retry(`BrokerHeartbeat to node ${controllerId}: ${describe(result)}`);
    const body = result.body;
    if (body.errorCode === ErrorCode.STALE_BROKER_EPOCH) {
      // The controller no longer has this registration (e.g. replaced, unregistered): start over.
      o.onError?.(`BrokerHeartbeat: broker epoch ${epoch} is stale; registering again`);
      this.epoch = -1;
      this.stateValue = 'STARTING';
      return this.schedule(0);
    }
    if (body.errorCode !== ErrorCode.NONE) return this.retry(`BrokerHeartbeat to node ${controllerId}: error ${body.errorCode}`);
    this.failures = 0;
    if (this.stateValue === 'PENDING_CONTROLLED_SHUTDOWN') {
      if (body.shouldShutDown) {
        this.stateValue = 'SHUTTING_DOWN';
        for (const waiter of [...this.shutdownWaiters]) waiter(true);
        return;
      }
      return this.schedule(Math.min(this.heartbeatIntervalMs, CONTROLLED_SHUTDOWN_HEARTBEAT_MS));
    }
    if (!body.isFenced) {
      this.stateValue = 'RUNNING';
      this.resolveUnfenced(true);
    } else {
      this.stateValue = 'RECOVERY';
    }
    this.schedule(this.heartbeatIntervalMs);
  }
}

function describe(result: ChannelResult<unknown>): string {
  return result.kind === 'disconnected' ? `disconnected (${result.reason})` : result.kind;
}
