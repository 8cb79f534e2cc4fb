/**
 * The broker configuration every compat file starts from: Kafka config names,
 * tuned only for test speed (no initial rebalance delay, a small
 * __consumer_offsets topic). Each file gets a fresh broker process.
 */
import { startBrokerProcess, type BrokerProcess, type OverrideValue } from '../helpers/broker-process.js';

export const COMPAT_OVERRIDES: Record<string, OverrideValue> = {
  'group.initial.rebalance.delay.ms': 0,
  'offsets.topic.num.partitions': 5,
};

/** Starts a broker process with {@link COMPAT_OVERRIDES} plus `overrides`. */
export function startCompatBroker(overrides: Record<string, OverrideValue> = {}): Promise<BrokerProcess> {
  return startBrokerProcess({ overrides: { ...COMPAT_OVERRIDES, ...overrides }, startTimeoutMs: 30_000 });
}

/** The broker's output tail for failure messages (empty when no broker). */
export function brokerTail(broker: BrokerProcess | undefined, lines = 40): string {
  return broker === undefined ? '' : broker.outputTail(lines);
}
