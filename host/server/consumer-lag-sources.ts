/**
 * The adapter between the ConsumerLagMonitor (host/metrics/) and the layers it must not import
 * itself: the group coordinator (groups and committed offsets), the replica manager (the local
 * replicas' last stable offsets and their batches' timestamps) and, in a cluster, the leaders of
 * the partitions this broker does not lead (remote-partition-lag.ts).
 */
import type { GroupCoordinator } from '../coordinator/group-coordinator.js';
import { batchTimestampAt } from '../log/batch-timestamp.js';
import type { UnifiedLog } from '../log/unified-log.js';
import type { ConsumerLagSources, LagGroupSource, LagPartitionSource } from '../metrics/consumer-lag-monitor.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { Partition } from '../replication/partition.js';
import type { ReplicaManager } from '../replication/replica-manager.js';
import type { RemotePartitionLag } from './remote-partition-lag.js';

/** What the sources ask about partitions led elsewhere: a RemotePartitionLag, or one loaded on demand. */
export type RemoteLagSource = Pick<RemotePartitionLag, 'partition' | 'sampled'>;

/**
 * Sources over the broker's coordinator and replicas (null before start-up: nothing to sample). A
 * partition this broker leads is read locally; another from `remote` (its leader's last answer),
 * falling back to the local follower replica while the leader has not answered; null without both.
 */
export function consumerLagSources(
  coordinator: () => GroupCoordinator | null,
  replicas: () => ReplicaManager<UnifiedLog> | null,
  remote: () => RemoteLagSource | null = () => null,
): ConsumerLagSources {
  return {
    groups(): LagGroupSource[] {
      const classic = coordinator()?.classic;
      if (classic === undefined) return [];
      const listed = classic.listGroups();
      if (listed.errorCode !== ErrorCode.NONE) return [];
      // Committed offsets are read when the monitor samples the group (in its own turn), not here, and once.
      return listed.groups.map(({ groupId, state }) => {
        let committed: LagGroupSource['committed'] | null = null;
        return {
          groupId,
          state,
          get committed() {
            if (committed === null) {
              const fetched = classic.fetchOffsets(groupId, false, null);
              committed = fetched.errorCode !== ErrorCode.NONE ? [] : fetched.partitions
                .filter((p) => p.errorCode === ErrorCode.NONE && p.offset >= 0)
                .map((p) => ({ topic: p.topic, partition: p.partition, offset: p.offset }));
            }
            return committed;
          },
        };
      });
    },
    partition(topic, partition) {
      const replica = replicas()?.getPartition(topic, partition);
      if (replica !== undefined && replica.isLeader) return localSource(replica);
      const remoteSource = remote()?.partition(topic, partition) ?? null;
      if (remoteSource !== null) return remoteSource;
      return replica === undefined ? null : localSource(replica);
    },
    sampled(): void {
      void remote()?.sampled();
    },
  };
}

function localSource(replica: Partition<UnifiedLog>): LagPartitionSource {
  return {
    lastStableOffset: replica.lastStableOffset,
    logStartOffset: replica.logStartOffset,
    timestampAt: (offset) => batchTimestampAt(replica.log.logSegments, offset)?.timestampMs ?? null,
  };
}
