/**
 * Replica placement for new partitions. The algorithm is Kafka's rack-unaware assignment
 * (AdminUtils.assignReplicasToBrokersRackUnaware, also described in KIP-36): brokers sorted by id;
 * partition p's first replica is broker (p + startIndex) mod n, and its followers follow at a
 * shift that grows by one every n partitions, so leaders and followers spread evenly and no two
 * replicas of a partition share a broker. Single node: every replica list is [nodeId].
 *
 * The random start spreads the leaders of different topics; it comes from an injected source so
 * a simulator can replay placements.
 */

/** Chooses replicas for new partitions. */
export interface ReplicaPlacer {
  /**
   * Replica lists for partitions `startPartition .. startPartition + numPartitions - 1`.
   * @param brokerIds the usable (registered, unfenced) brokers; at least `replicationFactor` of them
   * @returns one list of `replicationFactor` distinct broker ids per partition, preferred leader first
   * @throws Error when fewer brokers than `replicationFactor` are given (the caller validates first)
   */
  place(startPartition: number, numPartitions: number, replicationFactor: number, brokerIds: readonly number[]): number[][];
}

/** Kafka's rack-unaware round-robin placement. */
export class RoundRobinReplicaPlacer implements ReplicaPlacer {
  /**
   * @param nextInt a uniform integer in [0, bound): where the placement of a topic starts
   */
  constructor(private readonly nextInt: (bound: number) => number) {}

  place(startPartition: number, numPartitions: number, replicationFactor: number, brokerIds: readonly number[]): number[][] {
    const brokers = [...brokerIds].sort((a, b) => a - b);
    const n = brokers.length;
    if (replicationFactor < 1 || replicationFactor > n) {
      throw new Error(`RoundRobinReplicaPlacer: replication factor ${replicationFactor} with ${n} usable brokers`);
    }
    const startIndex = this.nextInt(n);
    let shift = this.nextInt(n);
    const assignments: number[][] = [];
    for (let partition = startPartition; partition < startPartition + numPartitions; partition++) {
      if (partition > 0 && partition % n === 0) shift++;
      const first = (partition + startIndex) % n;
      const replicas = [brokers[first]!];
      for (let j = 0; j < replicationFactor - 1; j++) {
        // Followers sit 1..n-1 places after the first replica, never on it.
        const offset = 1 + ((shift + j) % (n - 1));
        replicas.push(brokers[(first + offset) % n]!);
      }
      assignments.push(replicas);
    }
    return assignments;
  }
}
