/**
 * The CONTROLLER listener's broker lifecycle handlers (BrokerRegistration 62, BrokerHeartbeat 63,
 * UnregisterBroker 64) against a QuorumController over an InMemoryMetadataLog, and the broker
 * session expiry on the active controller, driven by a ManualTime.
 */
import { describe, expect, it } from 'vitest';
import type { AnyApiDefinition, ApiRequestContext } from '../../host/api/api-definition.js';
import { InMemoryMetadataLog } from '../../host/controller/in-memory-metadata-log.js';
import { METADATA_VERSION_LEVEL, QuorumController } from '../../host/controller/quorum-controller.js';
import { SeededRandom } from '../../host/io/random.js';
import { ManualTime } from '../../host/io/time.js';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import type { BrokerHeartbeatRequest } from '../../host/protocol/generated/broker-heartbeat.js';
import type { BrokerRegistrationRequest } from '../../host/protocol/generated/broker-registration.js';
import { startBrokerSessionExpiry } from '../../host/server/broker-session-expiry.js';
import { createRaftApiRegistry } from '../../host/server/controller-apis.js';
import { controllerLifecycleApis } from '../../host/server/controller-lifecycle-apis.js';
import { raftWire } from '../../host/raft/raft-wire.js';

const SESSION_TIMEOUT_MS = 9_000;

function setUp(options: { clusterId?: string } = {}) {
  const time = new ManualTime();
  const log = new InMemoryMetadataLog({ localId: 1 });
  const controller = new QuorumController({
    config: { nodeId: 1, numPartitions: 1, defaultReplicationFactor: 1, deleteTopicEnable: true },
    log, clock: time, random: new SeededRandom(3), brokerSessionTimeoutMs: SESSION_TIMEOUT_MS,
  });
  const apis = new Map<number, AnyApiDefinition>(controllerLifecycleApis(controller, options).map((api) => [api.apiKey, api]));
  const call = async <T>(apiKey: number, request: object): Promise<T> =>
    (await apis.get(apiKey)!.handle(request, {} as ApiRequestContext)) as T;
  const register = (brokerId: number, extra: Partial<BrokerRegistrationRequest> = {}) =>
    call<{ errorCode: number; brokerEpoch: number }>(ApiKey.BrokerRegistration, registration(brokerId, extra));
  const heartbeat = (brokerId: number, brokerEpoch: number, extra: Partial<BrokerHeartbeatRequest> = {}) =>
    call<{ errorCode: number; isCaughtUp: boolean; isFenced: boolean; shouldShutDown: boolean }>(ApiKey.BrokerHeartbeat, {
      brokerId, brokerEpoch, currentMetadataOffset: controller.lastCommittedOffset, wantFence: false, wantShutDown: false, offlineLogDirs: [], ...extra,
    });
  return { time, log, controller, call, register, heartbeat };
}

function registration(brokerId: number, extra: Partial<BrokerRegistrationRequest> = {}): BrokerRegistrationRequest {
  return {
    brokerId, clusterId: 'cluster-a', incarnationId: `${brokerId}`.padStart(32, 'a'),
    listeners: [{ name: 'PLAINTEXT', host: '127.0.0.1', port: 9090 + brokerId, securityProtocol: 0 }],
    features: [{ name: 'metadata.version', minSupportedVersion: 1, maxSupportedVersion: METADATA_VERSION_LEVEL }],
    rack: null, isMigratingZkBroker: false, logDirs: [], previousBrokerEpoch: -1, ...extra,
  };
}

/** Lets the promise chains started by a timer run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

describe('BrokerRegistration and BrokerHeartbeat on the active controller', () => {
  it('registers a broker fenced, keeps it fenced while its metadata offset is behind, and unfences it once caught up', async () => {
    const { controller, register, heartbeat } = setUp();
    const registered = await register(2);
    expect(registered.errorCode).toBe(0);
    expect(registered.brokerEpoch).toBeGreaterThanOrEqual(0);
    expect(controller.image.broker(2)).toMatchObject({ fenced: true, incarnationId: '2'.padStart(32, 'a') });
    expect(controller.image.broker(2)!.endpoints).toEqual([{ name: 'PLAINTEXT', host: '127.0.0.1', port: 9092, securityProtocol: 0 }]);

    const behind = await heartbeat(2, registered.brokerEpoch, { currentMetadataOffset: registered.brokerEpoch - 1 });
    expect(behind).toMatchObject({ errorCode: 0, isCaughtUp: false, isFenced: true, shouldShutDown: false });
    expect(controller.image.broker(2)!.fenced).toBe(true);

    const caughtUp = await heartbeat(2, registered.brokerEpoch, { currentMetadataOffset: registered.brokerEpoch });
    expect(caughtUp).toMatchObject({ errorCode: 0, isCaughtUp: true, isFenced: false });
    expect(controller.image.broker(2)!.fenced).toBe(false);
  });

  it('answers STALE_BROKER_EPOCH (77) to a heartbeat of an old registration or an unknown broker', async () => {
    const { register, heartbeat } = setUp();
    const first = await register(2);
    const second = await register(2);
    expect(second.brokerEpoch).toBeGreaterThan(first.brokerEpoch);
    expect(await heartbeat(2, first.brokerEpoch)).toMatchObject({ errorCode: 77, isFenced: true });
    expect(await heartbeat(5, 0)).toMatchObject({ errorCode: 77, isFenced: true });
  });

  it('a controller that is not active answers NOT_CONTROLLER (41) to registrations and heartbeats', async () => {
    const { log, controller, register, heartbeat } = setUp();
    const registered = await register(2);
    log.resign(2, 3);
    expect(controller.isActive).toBe(false);
    expect(await register(3)).toEqual({ throttleTimeMs: 0, errorCode: 41, brokerEpoch: -1 });
    expect(await heartbeat(2, registered.brokerEpoch)).toMatchObject({ errorCode: 41, isFenced: true, shouldShutDown: false });
    expect(controller.image.broker(3)).toBeUndefined();
  });

  it('refuses a broker of another cluster (104) and one that cannot read our metadata.version (35)', async () => {
    const { register } = setUp({ clusterId: 'cluster-a' });
    expect((await register(2, { clusterId: 'cluster-b' })).errorCode).toBe(104);
    const old = [{ name: 'metadata.version', minSupportedVersion: 1, maxSupportedVersion: METADATA_VERSION_LEVEL - 1 }];
    expect((await register(2, { features: old })).errorCode).toBe(35);
    expect((await register(2)).errorCode).toBe(0);
  });

  it('answers DUPLICATE_BROKER_REGISTRATION (101) to another incarnation while the registered one is alive, and accepts it once that session expired', async () => {
    const { time, controller, register, heartbeat } = setUp();
    const first = await register(2);
    await heartbeat(2, first.brokerEpoch);
    const other = '2'.padStart(32, 'b');
    expect((await register(2, { incarnationId: other })).errorCode).toBe(101);
    // The same incarnation retrying is not a duplicate, nor is a clean restart naming the epoch.
    expect((await register(2, { incarnationId: other, previousBrokerEpoch: first.brokerEpoch })).errorCode).toBe(0);
    const third = await register(2, { incarnationId: '2'.padStart(32, 'c') });
    expect(third.errorCode).toBe(0); // the registration it replaces is fenced (registered, never heartbeated)
    await heartbeat(2, third.brokerEpoch);
    time.advance(SESSION_TIMEOUT_MS + 1);
    expect(await controller.expireBrokerSessions()).toEqual([2]);
    expect((await register(2, { incarnationId: '2'.padStart(32, 'd') })).errorCode).toBe(0);
  });

  it('heartbeats with wantShutDown run a controlled shutdown: shouldShutDown once the broker is fenced', async () => {
    const { controller, register, heartbeat } = setUp();
    const { brokerEpoch } = await register(2);
    await heartbeat(2, brokerEpoch);
    expect((await heartbeat(2, brokerEpoch, { wantShutDown: true })).shouldShutDown).toBe(false);
    expect(controller.image.broker(2)!.inControlledShutdown).toBe(true);
    expect(await heartbeat(2, brokerEpoch, { wantShutDown: true })).toMatchObject({ errorCode: 0, isFenced: true, shouldShutDown: true });
  });

  it('UnregisterBroker removes a registration, and answers BROKER_ID_NOT_REGISTERED (102) for an unknown id', async () => {
    const { controller, call, register } = setUp();
    await register(2);
    expect(await call(ApiKey.UnregisterBroker, { brokerId: 2 })).toEqual({ throttleTimeMs: 0, errorCode: 0, errorMessage: null });
    expect(controller.image.broker(2)).toBeUndefined();
    expect(await call(ApiKey.UnregisterBroker, { brokerId: 2 })).toMatchObject({ errorCode: 102 });
  });

  it('createRaftApiRegistry registers the extra definitions beside the Raft APIs', () => {
    const { controller } = setUp();
    const registry = createRaftApiRegistry(raftWire(() => 0), { handleRequest: () => Promise.reject(new Error('unused')) }, controllerLifecycleApis(controller));
    for (const apiKey of [ApiKey.BrokerRegistration, ApiKey.BrokerHeartbeat, ApiKey.UnregisterBroker, ApiKey.Vote]) {
      expect(registry.get(apiKey)).toBeDefined();
    }
  });
});

describe('broker session expiry on the active controller', () => {
  it('fences an unfenced broker not heard from for more than broker.session.timeout.ms, and not before', async () => {
    const { time, controller, register, heartbeat } = setUp();
    const { brokerEpoch } = await register(2);
    await heartbeat(2, brokerEpoch);
    const fencedByTimer: number[][] = [];
    const expiry = startBrokerSessionExpiry(controller, time, (ids) => fencedByTimer.push([...ids]));
    time.advance(SESSION_TIMEOUT_MS);
    await settle();
    expect(controller.image.broker(2)!.fenced).toBe(false);
    time.advance(1);
    await settle();
    expect(controller.image.broker(2)!.fenced).toBe(true);
    expect(fencedByTimer).toEqual([[2]]);
    expiry.stop();
    expect(time.pendingCount).toBe(0);
  });

  it('a heartbeat renews the session', async () => {
    const { time, controller, register, heartbeat } = setUp();
    const { brokerEpoch } = await register(2);
    await heartbeat(2, brokerEpoch);
    const expiry = startBrokerSessionExpiry(controller, time);
    for (let i = 0; i < 10; i++) {
      time.advance(2_000);
      await settle();
      expect((await heartbeat(2, brokerEpoch)).isFenced).toBe(false);
    }
    time.advance(SESSION_TIMEOUT_MS + 1);
    await settle();
    expect(controller.image.broker(2)!.fenced).toBe(true);
    // Fenced by expiry, the same registration's next heartbeat unfences it again once caught up.
    expect((await heartbeat(2, brokerEpoch)).isFenced).toBe(false);
    expiry.stop();
  });

  it('a controller that becomes active counts every registered broker as heard from at that moment', async () => {
    const { time, log, controller, register, heartbeat } = setUp();
    const { brokerEpoch } = await register(2);
    await heartbeat(2, brokerEpoch);
    log.resign(2, 2);
    time.advance(5 * SESSION_TIMEOUT_MS);
    expect(await controller.expireBrokerSessions()).toEqual([]);
    expect(controller.nextBrokerSessionExpiryDelayMs()).toBeNull();
    log.elect(1, 3);
    expect(controller.isActive).toBe(true);
    expect(await controller.expireBrokerSessions()).toEqual([]);
    expect(controller.nextBrokerSessionExpiryDelayMs()).toBe(SESSION_TIMEOUT_MS + 1);
    time.advance(SESSION_TIMEOUT_MS);
    expect(await controller.expireBrokerSessions()).toEqual([]);
    time.advance(1);
    expect(await controller.expireBrokerSessions()).toEqual([2]);
    expect(controller.image.broker(2)!.fenced).toBe(true);
  });
});
