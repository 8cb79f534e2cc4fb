/**
 * The coordinator's view of a request (host/coordinator/group-coordinator.ts RequestContext),
 * built from the API layer's context.
 */
import type { RequestContext } from '../coordinator/group-coordinator.js';
import type { ApiRequestContext } from './api-definition.js';

/** `/host` as Kafka writes a member's client host (InetAddress.toString of the peer). */
export function clientHostOf(peer: string): string {
  const host = peer.startsWith('[') ? peer.slice(1, peer.indexOf(']')) : peer.slice(0, peer.lastIndexOf(':'));
  return `/${host}`;
}

export function groupRequestContext(context: ApiRequestContext): RequestContext {
  return { apiVersion: context.apiVersion, clientId: context.clientId ?? '', clientHost: clientHostOf(context.peer) };
}
