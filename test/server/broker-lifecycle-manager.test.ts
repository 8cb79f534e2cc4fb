/**
 * BrokerLifecycleManager against a scripted transport on a ManualTime: registration retried on
 * NOT_CONTROLLER (41) and on a disconnect, following the active controller; heartbeats at
 * broker.heartbeat.interval.ms; the `unfenced` promise; re-registration on STALE_BROKER_EPOCH
 * (77); controlled shutdown answered and timed out.
 */
import { describe, expect, it } from 'vitest';
import { ManualTime } from '../../host/io/time.js';
import type { ChannelResult, RemoteApi } from '../../host/network/node-channel.js';
import type { BrokerHeartbeatRequestInit } from '../../host/protocol/generated/broker-heartbeat.js';
import type { BrokerRegistrationRequestInit } from '../../host/protocol/generated/broker-registration.js';
import { BrokerLifecycleManager, type BrokerLifecycleManagerOptions } from '../../host/server/broker-lifecycle-manager.js';

interface Sent {
  at: number;
  nodeId: number;
  api: string;
  body: BrokerRegistrationRequestInit | BrokerHeartbeatRequestInit;
}

type Answer = (sent: Sent) => ChannelResult<unknown>;

const ok = (body: object): ChannelResult<unknown> => ({ kind: 'response', body: { throttleTimeMs: 0, errorCode: 0, ...body } });
const error = (errorCode: number, body: object = {}): ChannelResult<unknown> => ({ kind: 'response', body: { throttleTimeMs: 0, ...body, errorCode } });

function setUp(answer: Answer, extra: Partial<BrokerLifecycleManagerOptions> = {}) {
  const time = new ManualTime();
  const sent: Sent[] = [];
  let controllerId = 1;
  let metadataOffset = 10;
  const transport = {
    send<Req, Res>(nodeId: number, api: RemoteApi<Req, Res>, _version: number, body: Req): Promise<ChannelResult<Res>> {
      const entry: Sent = { at: time.monotonicMs(), nodeId, api: api.name, body: body as Sent['body'] };
      sent.push(entry);
      return Promise.resolve(answer(entry) as ChannelResult<Res>);
    },
  };
  const manager = new BrokerLifecycleManager({
    transport, time, brokerId: 4, clusterId: 'c', incarnationId: 'f'.repeat(32),
    listeners: [{ name: 'PLAINTEXT', host: '127.0.0.1', port: 9094, securityProtocol: 0 }],
    activeControllerId: () => controllerId, metadataOffset: () => metadataOffset, heartbeatIntervalMs: 2_000, ...extra,
  });
  return {
    time, sent, manager,
    setController: (id: number) => { controllerId = id; },
    setOffset: (offset: number) => { metadataOffset = offset; },
  };
}

/** Runs the timers due within `ms`, letting each answer's promise chain run in between. */
async function run(time: ManualTime, ms: number, stepMs = 1): Promise<void> {
  for (let t = 0; t < ms; t += stepMs) {
    time.advance(Math.min(stepMs, ms - t));
    for (let i = 0; i < 10; i++) await Promise.resolve();
  }
}

describe('BrokerLifecycleManager', () => {
  it('retries its registration after NOT_CONTROLLER (41) and a disconnect, following the active controller, then heartbeats at the interval until unfenced', async () => {
    let registrations = 0;
    const { time, sent, manager, setController } = setUp((s) => {
      if (s.api === 'BrokerRegistration') {
        registrations += 1;
        if (registrations === 1) return error(41, { brokerEpoch: -1 });
        if (registrations === 2) return { kind: 'disconnected', reason: 'ECONNREFUSED' };
        return ok({ brokerEpoch: 17 });
      }
      const beat = s.body as BrokerHeartbeatRequestInit;
      return ok({ isCaughtUp: beat.currentMetadataOffset >= 17, isFenced: beat.currentMetadataOffset < 17, shouldShutDown: false });
    });
    let unfenced = false;
    void manager.unfenced.then(() => { unfenced = true; });
    manager.start();
    expect(manager.state).toBe('STARTING');
    await run(time, 1);
    expect(sent.map((s) => [s.api, s.nodeId])).toEqual([['BrokerRegistration', 1]]);
    setController(2);
    await run(time, 1_000);
    const registrationsSent = sent.filter((s) => s.api === 'BrokerRegistration');
    expect(registrationsSent.map((s) => s.nodeId)).toEqual([1, 2, 2]);
    // Backoff 100 then 200 ms after each answer (an answer is handled up to 1 ms after its send here).
    expect(registrationsSent[1]!.at - registrationsSent[0]!.at).toBeOneOf([100, 101]);
    expect(registrationsSent[2]!.at - registrationsSent[1]!.at).toBeOneOf([200, 201]);
    expect(registrationsSent[2]!.body).toMatchObject({
      brokerId: 4, clusterId: 'c', incarnationId: 'f'.repeat(32), rack: null,
      listeners: [{ name: 'PLAINTEXT', host: '127.0.0.1', port: 9094, securityProtocol: 0 }],
    });
    expect(manager.brokerEpoch).toBe(17);
    expect(manager.state).toBe('RECOVERY');
    expect(unfenced).toBe(false);

    // Offset 10 is behind the registration (17): fenced; heartbeats every 2 000 ms.
    await run(time, 4_000);
    const beats = sent.filter((s) => s.api === 'BrokerHeartbeat');
    expect(beats.length).toBeGreaterThanOrEqual(2);
    expect(beats[1]!.at - beats[0]!.at).toBeOneOf([2_000, 2_001]);
    expect(beats[0]!.body).toMatchObject({ brokerId: 4, brokerEpoch: 17, currentMetadataOffset: 10, wantFence: false, wantShutDown: false });
    expect(manager.state).toBe('RECOVERY');
    manager.stop();
  });

  it('resolves unfenced once a heartbeat finds the broker caught up, and registers again after STALE_BROKER_EPOCH (77)', async () => {
    let epoch = 5;
    let stale = false;
    const { time, sent, manager, setOffset } = setUp((s) => {
      if (s.api === 'BrokerRegistration') return ok({ brokerEpoch: epoch });
      const beat = s.body as BrokerHeartbeatRequestInit;
      if (stale) {
        stale = false;
        return error(77, { isFenced: true, shouldShutDown: false });
      }
      return ok({ isCaughtUp: beat.currentMetadataOffset >= epoch, isFenced: beat.currentMetadataOffset < epoch, shouldShutDown: false });
    });
    setOffset(3);
    manager.start();
    await run(time, 100);
    expect(manager.state).toBe('RECOVERY');
    setOffset(5);
    await run(time, 2_000);
    expect(await manager.unfenced).toBe(true);
    expect(manager.state).toBe('RUNNING');
    expect(manager.isUnfenced).toBe(true);

    stale = true;
    epoch = 9;
    await run(time, 2_100);
    expect(sent.filter((s) => s.api === 'BrokerRegistration')).toHaveLength(2);
    expect(manager.brokerEpoch).toBe(9);
    expect(manager.state).toBe('RECOVERY');
    manager.stop();
  });

  it('controlled shutdown heartbeats with wantShutDown until shouldShutDown', async () => {
    let shutdownBeats = 0;
    const { time, sent, manager } = setUp((s) => {
      if (s.api === 'BrokerRegistration') return ok({ brokerEpoch: 1 });
      const beat = s.body as BrokerHeartbeatRequestInit;
      if (beat.wantShutDown) shutdownBeats += 1;
      return ok({ isCaughtUp: true, isFenced: shutdownBeats >= 2, shouldShutDown: shutdownBeats >= 2 });
    });
    manager.start();
    await run(time, 100);
    await manager.unfenced;
    const done = manager.controlledShutdown(30_000);
    expect(manager.state).toBe('PENDING_CONTROLLED_SHUTDOWN');
    await run(time, 500);
    expect(await done).toBe(true);
    expect(manager.state).toBe('SHUTTING_DOWN');
    const count = sent.length;
    await run(time, 10_000, 1_000);
    expect(sent.length).toBe(count);
  });

  it('controlled shutdown gives up after its timeout when the controller never agrees, and stop resolves a pending unfenced false', async () => {
    const { time, manager } = setUp((s) => (s.api === 'BrokerRegistration' ? ok({ brokerEpoch: 1 }) : ok({ isCaughtUp: false, isFenced: false, shouldShutDown: false })));
    manager.start();
    await run(time, 100);
    const done = manager.controlledShutdown(1_000);
    await run(time, 1_000);
    expect(await done).toBe(false);
    manager.stop();

    const never = setUp(() => ({ kind: 'timeout' }));
    never.manager.start();
    await run(never.time, 3_000, 100);
    expect(never.manager.state).toBe('STARTING');
    expect(await never.manager.controlledShutdown(1_000)).toBe(false);
    never.manager.stop();
    expect(await never.manager.unfenced).toBe(false);
    expect(never.time.pendingCount).toBe(0);
  });
});
