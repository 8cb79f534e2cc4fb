/**
 * The `consumer` group protocol's metadata (JoinGroup) and assignment (SyncGroup) bytes: Kafka's
 * ConsumerProtocolSubscription / ConsumerProtocolAssignment, each prefixed by an int16 version.
 * Newer versions than we know are read as our latest (their layouts only append fields).
 */
import {
  decodeConsumerProtocolAssignment, encodeConsumerProtocolAssignment,
} from '../../protocol/generated/consumer-protocol-assignment.js';
import {
  decodeConsumerProtocolSubscription, encodeConsumerProtocolSubscription,
} from '../../protocol/generated/consumer-protocol-subscription.js';
import { Reader } from '../../protocol/reader.js';
import { Writer } from '../../protocol/writer.js';

/** Protocol type of consumer groups (ConsumerProtocol.PROTOCOL_TYPE). */
export const CONSUMER_PROTOCOL_TYPE = 'consumer';

/** Partitions by topic. */
export type TopicPartitions = Record<string, number[]>;

export interface Subscription {
  topics: string[];
  userData: Uint8Array | null;
  /** Partitions the member owned before this rebalance (v1+, for cooperative assignors). */
  ownedPartitions: TopicPartitions;
  generationId: number;
  rackId: string | null;
}

export interface Assignment {
  partitions: TopicPartitions;
  userData: Uint8Array | null;
}

/** Version of the subscription we write (3: ownedPartitions, generationId, rackId). */
export const SUBSCRIPTION_VERSION = 3;
/** Version of the assignment we write. */
export const ASSIGNMENT_VERSION = 3;

function toList(map: TopicPartitions): { topic: string; partitions: number[] }[] {
  return Object.keys(map).sort().map((topic) => ({ topic, partitions: [...map[topic]!].sort((a, b) => a - b) }));
}

function toMap(list: { topic: string; partitions: number[] }[]): TopicPartitions {
  const map: TopicPartitions = {};
  for (const entry of list) map[entry.topic] = [...(map[entry.topic] ?? []), ...entry.partitions];
  return map;
}

export function encodeSubscription(subscription: Partial<Subscription> & { topics: string[] }): Uint8Array {
  const w = new Writer();
  w.int16(SUBSCRIPTION_VERSION);
  encodeConsumerProtocolSubscription(w, SUBSCRIPTION_VERSION, {
    topics: [...subscription.topics].sort(),
    userData: subscription.userData ?? null,
    ownedPartitions: toList(subscription.ownedPartitions ?? {}),
    generationId: subscription.generationId ?? -1,
    rackId: subscription.rackId ?? null,
  });
  return Uint8Array.from(w.toBuffer());
}

/** Decodes JoinGroup member metadata; null when the bytes are not a consumer subscription. */
export function decodeSubscription(bytes: Uint8Array): Subscription | null {
  const r = new Reader(bytes);
  const version = r.int16();
  if (r.error !== null || version < 0) return null;
  const decoded = decodeConsumerProtocolSubscription(r, version);
  if (r.error !== null) return null;
  return {
    topics: decoded.topics,
    userData: decoded.userData,
    ownedPartitions: toMap(decoded.ownedPartitions),
    generationId: decoded.generationId,
    rackId: decoded.rackId,
  };
}

export function encodeAssignment(assignment: Partial<Assignment> & { partitions: TopicPartitions }): Uint8Array {
  const w = new Writer();
  w.int16(ASSIGNMENT_VERSION);
  encodeConsumerProtocolAssignment(w, ASSIGNMENT_VERSION, {
    assignedPartitions: toList(assignment.partitions),
    userData: assignment.userData ?? null,
  });
  return Uint8Array.from(w.toBuffer());
}

/**
 * Decodes SyncGroup / DescribeGroups assignment bytes. Empty bytes (a member given nothing, as
 * some clients send) decode as an empty assignment; malformed bytes give null.
 */
export function decodeAssignment(bytes: Uint8Array): Assignment | null {
  if (bytes.length === 0) return { partitions: {}, userData: null };
  const r = new Reader(bytes);
  const version = r.int16();
  if (r.error !== null || version < 0) return null;
  const decoded = decodeConsumerProtocolAssignment(r, version);
  if (r.error !== null) return null;
  return { partitions: toMap(decoded.assignedPartitions), userData: decoded.userData };
}
