/** Shared set-up for the coordinator tests: manual time, an in-memory __consumer_offsets, fixed member ids. */
import { ClassicGroupCoordinator, type JoinGroupParams } from '../../host/coordinator/classic-group-coordinator.js';
import type { GroupCoordinatorConfig } from '../../host/coordinator/group-coordinator-config.js';
import { InMemoryOffsetsTopic } from '../../host/coordinator/in-memory-offsets-topic.js';
import { ManualScheduler } from '../../host/coordinator/scheduler.js';
import { encodeConsumerProtocolAssignment } from '../../host/protocol/generated/consumer-protocol-assignment.js';
import { encodeConsumerProtocolSubscription } from '../../host/protocol/generated/consumer-protocol-subscription.js';
import { Writer } from '../../host/protocol/writer.js';

export interface Harness {
  scheduler: ManualScheduler;
  offsetsTopic: InMemoryOffsetsTopic;
  coordinator: ClassicGroupCoordinator;
}

/** A started coordinator owning every partition of an empty __consumer_offsets. */
export function newHarness(config: Partial<GroupCoordinatorConfig> = {}, offsetsTopic = new InMemoryOffsetsTopic(), scheduler = new ManualScheduler()): Harness {
  let nextMember = 0;
  const coordinator = new ClassicGroupCoordinator({
    offsetsTopic,
    time: scheduler,
    config,
    random: { uuid: () => `m${++nextMember}` },
  });
  coordinator.startup();
  coordinator.loadAllPartitions();
  return { scheduler, offsetsTopic, coordinator };
}

/** Lets resolved promises run their continuations. */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** A promise whose outcome can be inspected synchronously once flushed. */
export interface Tracked<T> {
  readonly settled: boolean;
  readonly value: T;
}

export function track<T>(promise: Promise<T>): Tracked<T> {
  const state: { settled: boolean; value: T | undefined } = { settled: false, value: undefined };
  void promise.then((value) => {
    state.settled = true;
    state.value = value;
  });
  return {
    get settled() {
      return state.settled;
    },
    get value() {
      if (!state.settled) throw new Error('promise has not settled');
      return state.value as T;
    },
  };
}

/** ConsumerProtocolSubscription bytes (int16 version prefix) for `topics`. */
export function subscription(topics: string[], version = 1): Uint8Array {
  const w = new Writer();
  w.int16(version);
  encodeConsumerProtocolSubscription(w, version, { topics });
  return w.toBuffer();
}

/** ConsumerProtocolAssignment bytes for topic -> partitions. */
export function assignment(partitions: Record<string, number[]>): Uint8Array {
  const w = new Writer();
  w.int16(0);
  encodeConsumerProtocolAssignment(w, 0, {
    assignedPartitions: Object.entries(partitions).map(([topic, list]) => ({ topic, partitions: list })),
  });
  return w.toBuffer();
}

/** JoinGroup parameters of a consumer with sensible defaults. */
export function joinParams(overrides: Partial<JoinGroupParams> = {}): JoinGroupParams {
  return {
    groupId: 'group',
    memberId: '',
    groupInstanceId: null,
    requireKnownMemberId: false,
    supportSkippingAssignment: false,
    clientId: 'client',
    clientHost: '/127.0.0.1',
    rebalanceTimeoutMs: 60_000,
    sessionTimeoutMs: 10_000,
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: subscription(['topic']) }],
    reason: null,
    ...overrides,
  };
}
