/**
 * Replica placement for new partitions: Kafka's assignment of AdminUtils (KIP-36), which its
 * KRaft StripedReplicaPlacer keeps the promises of (replicas on distinct brokers, on as many
 * racks as possible, leaders spread evenly).
 *
 * Rack-unaware (no broker has `broker.rack`; assignReplicasToBrokersRackUnaware): brokers sorted
 * by id; partition p's first replica is broker (p + startIndex) mod n, and its followers follow
 * at a shift that grows by one every n partitions, so leaders and followers spread evenly and no
 * two replicas of a partition share a broker.
 *
 * Rack-aware (some broker has a rack; assignReplicasToBrokersRackAware): the brokers are first
 * arranged rack-alternated (racks sorted; one broker of each rack in turn, each rack's brokers by
 * id: racks a={1,2}, b={3}, c={4} give [1,3,4,2]); the first replica walks that list round-robin as
 * above (leaders balanced over brokers, and so over racks), and each follower is the next broker
 * along the list at the growing shift that is on a rack without a replica of this partition yet,
 * and not a broker with one, until every rack (then every broker) has one. So each partition's
 * replicas are on distinct racks when there are at least as many racks as replicas, and on every
 * rack otherwise. Brokers without a rack count as one rack of their own (as StripedReplicaPlacer
 * does; Kafka's AdminUtils refuses the mix).
 *
 * Single node: every replica list is [nodeId]. The random starts spread the leaders of different
 * topics; they come from an injected source so a simulator can replay placements.
 */

/** Chooses replicas for new partitions. */
export interface ReplicaPlacer {
  /**
   * Replica lists for partitions `startPartition .. startPartition + numPartitions - 1`.
   * @param brokerIds the usable (registered, unfenced) brokers; at least `replicationFactor` of them
   * @param rackOf each broker's `broker.rack` (null: none); absent: no racks
   * @returns one list of `replicationFactor` distinct broker ids per partition, preferred leader first
   * @throws Error when fewer brokers than `replicationFactor` are given (the caller validates first)
   */
  place(
    startPartition: number, numPartitions: number, replicationFactor: number, brokerIds: readonly number[],
    rackOf?: (brokerId: number) => string | null,
  ): number[][];
}

/** Kafka's round-robin placement, rack-aware when brokers have racks. */
export class RoundRobinReplicaPlacer implements ReplicaPlacer {
  /**
   * @param nextInt a uniform integer in [0, bound): where the placement of a topic starts
   */
  constructor(private readonly nextInt: (bound: number) => number) {}

  place(
    startPartition: number, numPartitions: number, replicationFactor: number, brokerIds: readonly number[],
    rackOf?: (brokerId: number) => string | null,
  ): number[][] {
    const sorted = [...brokerIds].sort((a, b) => a - b);
    const n = sorted.length;
    if (replicationFactor < 1 || replicationFactor > n) {
      throw new Error(`RoundRobinReplicaPlacer: replication factor ${replicationFactor} with ${n} usable brokers`);
    }
    const racks = rackOf === undefined ? null : new Map(sorted.map((id) => [id, rackOf(id) ?? NO_RACK]));
    const rackAware = racks !== null && sorted.some((id) => racks.get(id) !== NO_RACK);
    const brokers = rackAware ? rackAlternated(sorted, racks) : sorted;
    const rackCount = rackAware ? new Set(racks.values()).size : 1;
    const startIndex = this.nextInt(n);
    let shift = this.nextInt(n);
    const assignments: number[][] = [];
    for (let partition = startPartition; partition < startPartition + numPartitions; partition++) {
      if (partition > 0 && partition % n === 0) shift++;
      const first = (partition + startIndex) % n;
      assignments.push(rackAware
        ? followersOnOtherRacks(brokers, racks, rackCount, first, shift * rackCount, replicationFactor)
        : followersRoundRobin(brokers, first, shift, replicationFactor));
    }
    return assignments;
  }
}

/** The rack of brokers that have none (sorts before any named rack; cannot be a rack name: they are not empty). */
const NO_RACK = '';

/** Followers 1..n-1 places after the first replica, never on it (the rack-unaware layout). */
function followersRoundRobin(brokers: readonly number[], first: number, shift: number, replicationFactor: number): number[] {
  const n = brokers.length;
  const replicas = [brokers[first]!];
  for (let j = 0; j < replicationFactor - 1; j++) replicas.push(brokers[(first + 1 + ((shift + j) % (n - 1))) % n]!);
  return replicas;
}

/** The rack-aware layout: walk on from the first replica, skipping racks and brokers that already have a replica while others do not. */
function followersOnOtherRacks(
  brokers: readonly number[], racks: ReadonlyMap<number, string>, rackCount: number, first: number, shift: number, replicationFactor: number,
): number[] {
  const n = brokers.length;
  const leader = brokers[first]!;
  const replicas = [leader];
  const racksWithReplicas = new Set([racks.get(leader)!]);
  for (let k = 0; replicas.length < replicationFactor; k++) {
    const broker = brokers[(first + 1 + ((shift + k) % (n - 1))) % n]!;
    const rack = racks.get(broker)!;
    const rackFree = !racksWithReplicas.has(rack) || racksWithReplicas.size === rackCount;
    // A broker is never chosen twice: replicas.length < replicationFactor <= n leaves one free.
    if (rackFree && !replicas.includes(broker)) {
      replicas.push(broker);
      racksWithReplicas.add(rack);
    }
  }
  return replicas;
}

/** Kafka's getRackAlternatedBrokerList: racks sorted, one broker per rack in turn, each rack's brokers by id. */
function rackAlternated(sorted: readonly number[], racks: ReadonlyMap<number, string>): number[] {
  const byRack = new Map<string, number[]>();
  for (const id of sorted) {
    const rack = racks.get(id)!;
    const list = byRack.get(rack) ?? [];
    list.push(id);
    byRack.set(rack, list);
  }
  const queues = [...byRack.keys()].sort().map((rack) => byRack.get(rack)!);
  const arranged: number[] = [];
  for (let round = 0; arranged.length < sorted.length; round++) {
    for (const queue of queues) if (round < queue.length) arranged.push(queue[round]!);
  }
  return arranged;
}
