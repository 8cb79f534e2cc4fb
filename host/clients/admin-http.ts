/**
 * Where a broker's HTTP listener is (Tributary's `http.listeners`: /health, /metrics,
 * /consumer-lag and the console), found from the broker itself: a DescribeConfigs of its BROKER
 * resource for `http.listeners` (the first entry). A wildcard host (empty, 0.0.0.0, ::) is reached
 * at the broker's own host from Metadata. Used by `tributary group describe` to ask the group's
 * coordinator for lag in seconds without being told `--http`.
 */
import type { Admin } from './admin.js';
import { formatBrokerAddress } from './transport/transport.js';

const WILDCARD_HOSTS = new Set(['', '0.0.0.0', '::']);

/**
 * `host:port` of broker `nodeId`'s first HTTP listener, or null when it has none (an empty
 * `http.listeners`), binds port 0 (its port is not in its config), or the value does not parse.
 * @throws KafkaError / ConnectionError from DescribeConfigs (e.g. an unknown broker)
 */
export async function brokerHttpAddress(admin: Admin, nodeId: number): Promise<string | null> {
  const [described] = await admin.describeConfigs({ resources: [{ type: 'broker', name: String(nodeId), keys: ['http.listeners'] }] });
  const value = described?.configs.find((c) => c.name === 'http.listeners')?.value ?? null;
  const first = value?.split(',')[0]?.trim() ?? '';
  const match = /^(?:\[([^\]]*)\]|([^:\s]*)):(\d{1,5})$/.exec(first);
  if (match === null) return null;
  const port = Number(match[3]);
  if (port < 1 || port > 65535) return null;
  const configured = (match[1] ?? match[2])!;
  const host = WILDCARD_HOSTS.has(configured) ? admin.cluster.brokers.get(nodeId)?.host : configured;
  return host === undefined ? null : formatBrokerAddress({ host, port });
}

/**
 * `host:port` of the HTTP listener of `groupId`'s coordinator (FindCoordinator, then
 * {@link brokerHttpAddress}); null when that broker has no usable HTTP listener.
 */
export async function groupCoordinatorHttpAddress(admin: Admin, groupId: string): Promise<string | null> {
  const { nodeId } = await admin.cluster.coordinator(groupId);
  return brokerHttpAddress(admin, nodeId);
}
