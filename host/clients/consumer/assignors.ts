/**
 * Partition assignors run by the group leader (client-side assignment of Kafka's classic group
 * protocol). Names and algorithms are Kafka's, so a group can mix our consumers with Java's:
 *
 * - `range` (RangeAssignor): per topic, the members subscribed to it in sorted order; member i of
 *   c gets a contiguous range of n/c partitions, the first n%c members one more.
 * - `roundrobin` (RoundRobinAssignor): every subscribed topic-partition in (topic, partition)
 *   order dealt to the sorted members in turn, skipping members not subscribed to that topic.
 * - `sticky` (StickyAssignor, eager): keeps each member's previously owned partitions (from the
 *   subscription's ownedPartitions) as long as the result stays balanced, then hands the rest to
 *   the least loaded members.
 * - `cooperative-sticky` (CooperativeStickyAssignor, KIP-429): the sticky plan, minus every
 *   partition that another member still owns: that member first gives it up (revoking only what
 *   it loses, keeping the rest) and rejoins, and the follow-up rebalance hands it over. Members
 *   never stop consuming the partitions they keep.
 *
 * Members sort like Java's MemberInfo: by group.instance.id when present (static members keep
 * their place across restarts), then member id.
 */
import type { Subscription, TopicPartitions } from './consumer-protocol.js';

export interface AssignorMember {
  memberId: string;
  groupInstanceId: string | null;
  subscription: Subscription;
}

export interface Assignor {
  /** The protocol name sent in JoinGroup (must match other clients' for mixed groups). */
  readonly name: string;
  /**
   * EAGER: every member revokes everything before rejoining. COOPERATIVE (KIP-429): members keep
   * what they own and revoke only what the new assignment takes away. Default EAGER.
   */
  readonly rebalanceProtocol?: 'EAGER' | 'COOPERATIVE';
  /**
   * @param members every member with its subscription
   * @param partitionsPerTopic partition counts of every subscribed topic that exists
   * @returns each member's partitions (every member present, possibly empty)
   */
  assign(members: AssignorMember[], partitionsPerTopic: ReadonlyMap<string, number>): Map<string, TopicPartitions>;
}

function compareMembers(a: AssignorMember, b: AssignorMember): number {
  const ka = a.groupInstanceId ?? '';
  const kb = b.groupInstanceId ?? '';
  if (a.groupInstanceId !== null && b.groupInstanceId !== null && ka !== kb) return ka < kb ? -1 : 1;
  if (a.groupInstanceId !== null && b.groupInstanceId === null) return -1;
  if (a.groupInstanceId === null && b.groupInstanceId !== null) return 1;
  return a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0;
}

function emptyAssignment(members: AssignorMember[]): Map<string, TopicPartitions> {
  return new Map(members.map((m) => [m.memberId, {}]));
}

function add(assignment: Map<string, TopicPartitions>, memberId: string, topic: string, partition: number): void {
  const partitions = assignment.get(memberId)!;
  (partitions[topic] ??= []).push(partition);
}

export const rangeAssignor: Assignor = {
  name: 'range',
  assign(members, partitionsPerTopic) {
    const assignment = emptyAssignment(members);
    const sorted = [...members].sort(compareMembers);
    for (const topic of [...partitionsPerTopic.keys()].sort()) {
      const count = partitionsPerTopic.get(topic)!;
      const consumers = sorted.filter((m) => m.subscription.topics.includes(topic));
      if (consumers.length === 0) continue;
      const perConsumer = Math.floor(count / consumers.length);
      const extra = count % consumers.length;
      consumers.forEach((member, i) => {
        const start = perConsumer * i + Math.min(i, extra);
        const length = perConsumer + (i < extra ? 1 : 0);
        for (let p = start; p < start + length; p++) add(assignment, member.memberId, topic, p);
      });
    }
    return assignment;
  },
};

export const roundRobinAssignor: Assignor = {
  name: 'roundrobin',
  assign(members, partitionsPerTopic) {
    const assignment = emptyAssignment(members);
    const sorted = [...members].sort(compareMembers);
    if (sorted.length === 0) return assignment;
    const topics = [...new Set(sorted.flatMap((m) => m.subscription.topics))].filter((t) => partitionsPerTopic.has(t)).sort();
    let next = 0;
    for (const topic of topics) {
      for (let p = 0; p < partitionsPerTopic.get(topic)!; p++) {
        // Advance the circular iterator to the next member subscribed to this topic.
        for (let tries = 0; tries < sorted.length; tries++) {
          const member = sorted[next % sorted.length]!;
          next++;
          if (member.subscription.topics.includes(topic)) {
            add(assignment, member.memberId, topic, p);
            break;
          }
        }
      }
    }
    return assignment;
  },
};

export const stickyAssignor: Assignor = {
  name: 'sticky',
  assign(members, partitionsPerTopic) {
    const assignment = emptyAssignment(members);
    const sorted = [...members].sort(compareMembers);
    const all: [string, number][] = [];
    for (const topic of [...partitionsPerTopic.keys()].sort()) {
      for (let p = 0; p < partitionsPerTopic.get(topic)!; p++) {
        if (sorted.some((m) => m.subscription.topics.includes(topic))) all.push([topic, p]);
      }
    }
    const eligible = (member: AssignorMember, topic: string): boolean => member.subscription.topics.includes(topic);
    const load = new Map(sorted.map((m) => [m.memberId, 0]));
    // A member keeps at most ceil(total / eligible members) of what it owned, so the result stays balanced.
    const ceiling = Math.ceil(all.length / Math.max(1, sorted.length));
    const taken = new Set<string>();
    for (const member of sorted) {
      for (const [topic, partitions] of Object.entries(member.subscription.ownedPartitions).sort()) {
        if (!eligible(member, topic)) continue;
        for (const p of [...partitions].sort((a, b) => a - b)) {
          const key = `${topic}\u0000${p}`;
          if (p >= (partitionsPerTopic.get(topic) ?? 0) || taken.has(key) || load.get(member.memberId)! >= ceiling) continue;
          taken.add(key);
          add(assignment, member.memberId, topic, p);
          load.set(member.memberId, load.get(member.memberId)! + 1);
        }
      }
    }
    for (const [topic, p] of all) {
      if (taken.has(`${topic}\u0000${p}`)) continue;
      let best: AssignorMember | undefined;
      for (const member of sorted) {
        if (!eligible(member, topic)) continue;
        if (best === undefined || load.get(member.memberId)! < load.get(best.memberId)!) best = member;
      }
      if (best === undefined) continue;
      add(assignment, best.memberId, topic, p);
      load.set(best.memberId, load.get(best.memberId)! + 1);
    }
    for (const partitions of assignment.values()) for (const list of Object.values(partitions)) list.sort((a, b) => a - b);
    return assignment;
  },
};

export const cooperativeStickyAssignor: Assignor = {
  name: 'cooperative-sticky',
  rebalanceProtocol: 'COOPERATIVE',
  assign(members, partitionsPerTopic) {
    const plan = stickyAssignor.assign(members, partitionsPerTopic);
    const ownerOf = new Map<string, string>();
    for (const member of members) {
      for (const [topic, partitions] of Object.entries(member.subscription.ownedPartitions)) {
        for (const p of partitions) ownerOf.set(`${topic}\u0000${p}`, member.memberId);
      }
    }
    // A partition moving between members is left out this round: its owner revokes it first.
    for (const [memberId, assignment] of plan) {
      for (const [topic, partitions] of Object.entries(assignment)) {
        assignment[topic] = partitions.filter((p) => {
          const owner = ownerOf.get(`${topic}\u0000${p}`);
          return owner === undefined || owner === memberId;
        });
        if (assignment[topic]!.length === 0) delete assignment[topic];
      }
    }
    return plan;
  },
};

/** Assignors by protocol name. */
export const BUILT_IN_ASSIGNORS: Readonly<Record<string, Assignor>> = {
  range: rangeAssignor,
  roundrobin: roundRobinAssignor,
  sticky: stickyAssignor,
  'cooperative-sticky': cooperativeStickyAssignor,
};
