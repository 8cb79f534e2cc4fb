/**
 * The coordinator's view of a request (host/coordinator/group-coordinator.ts RequestContext),
 * built from the API layer's context.
 */
import type { GroupCoordinator, RequestContext } from '../coordinator/group-coordinator.js';
import { OFFSETS_TOPIC_NAME } from '../coordinator/offsets-topic.js';
import type { ApiRequestContext } from './api-definition.js';
import { groupCoordinatorOf } from './broker-services.js';

/** `/host` as Kafka writes a member's client host (InetAddress.toString of the peer). */
export function clientHostOf(peer: string): string {
  const host = peer.startsWith('[') ? peer.slice(1, peer.indexOf(']')) : peer.slice(0, peer.lastIndexOf(':'));
  return `/${host}`;
}

export function groupRequestContext(context: ApiRequestContext): RequestContext {
  return { apiVersion: context.apiVersion, clientId: context.clientId ?? '', clientHost: clientHostOf(context.peer) };
}

/**
 * Runs a group API once `__consumer_offsets` exists and the group coordinator is loaded. Kafka creates it on the first
 * FindCoordinator; a client that goes straight to the coordinator (e.g. an OffsetCommit from a
 * tool that already knows the single broker) gets the same topic instead of NOT_COORDINATOR.
 * If creation fails, the coordinator answers as it would without the topic.
 */
export async function withOffsetsTopic<T>(
  context: ApiRequestContext,
  call: (coordinator: GroupCoordinator, groupContext: RequestContext) => Promise<T>,
): Promise<T> {
  if (context.broker.metadata.topic(OFFSETS_TOPIC_NAME) === undefined) await context.broker.ensureOffsetsTopic();
  return call(await groupCoordinatorOf(context.broker), groupRequestContext(context));
}
