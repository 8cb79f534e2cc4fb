/**
 * RaftClients on disk: each node keeps its log in a FileRaftLog and its election state in a
 * FileQuorumStateStore on its own fault-injecting disk; power losses (strict: only what was
 * fsynced survives) restart nodes from what their disks kept. Committed records must survive and
 * agree on every node, as with the in-memory logs the simulator uses.
 */
import { describe, expect, it } from 'vitest';
import type { FaultDisk } from '../../host/io/fault-disk.js';
import { SeededRandom } from '../../host/io/random.js';
import { ManualTime } from '../../host/io/time.js';
import { FileQuorumStateStore } from '../../host/raft/file-quorum-state-store.js';
import type { FileRaftLog } from '../../host/raft/file-raft-log.js';
import { type CommittedBatch, type LeaderAndEpoch, RaftClient, type RaftListener } from '../../host/raft/raft-client.js';
import { raftConfig } from '../../host/raft/raft-config.js';
import type { RaftEnvelope } from '../../host/raft/messages.js';
import { decodeSnapshotRecords, type SnapshotReader } from '../../host/raft/snapshot.js';
import { allRecords, bytes, freshFaultDisk, openFileRaftLog, PARTITION_DIR, text } from './raft-log-helpers.js';

/** The state machine: the committed values in order (a snapshot replaces them). */
class Values implements RaftListener {
  values: string[] = [];
  handleCommit(batch: CommittedBatch): void {
    this.values.push(...batch.records.map(text));
  }
  handleLoadSnapshot(snapshot: SnapshotReader): void {
    this.values = snapshot.records.map(text);
  }
  handleLeaderChange(_leader: LeaderAndEpoch): void {}
}

interface DiskNode {
  id: number;
  disk: FaultDisk;
  log: FileRaftLog;
  client: RaftClient;
  listener: Values;
}

class DiskCluster {
  readonly time = new ManualTime();
  readonly nodes = new Map<number, DiskNode>();
  private queue: RaftEnvelope[] = [];

  constructor(readonly voters: number[]) {
    for (const id of voters) this.nodes.set(id, this.boot(id, freshFaultDisk(id)));
  }

  /** Starts node `id` from what `disk` holds. */
  boot(id: number, disk: FaultDisk): DiskNode {
    const log = openFileRaftLog(disk, PARTITION_DIR, this.time);
    const store = FileQuorumStateStore.open(disk, PARTITION_DIR);
    const config = raftConfig({ nodeId: id, voters: this.voters, clusterId: 'disk' });
    const client = new RaftClient({ config, log, store, time: this.time, random: new SeededRandom(id * 31 + this.time.nowMs()) });
    const listener = new Values();
    client.register(listener);
    client.start();
    return { id, disk, log, client, listener };
  }

  /** Power loss on node `id`: its unflushed writes are gone; it restarts from its disk. */
  powerCycle(id: number): void {
    const node = this.nodes.get(id)!;
    node.log.unifiedLog.closeWithoutFlush();
    node.disk.powerLoss('strict');
    this.queue = this.queue.filter((envelope) => envelope.destination !== id && envelope.source !== id);
    this.nodes.set(id, this.boot(id, node.disk));
  }

  run(ms: number): void {
    for (let elapsed = 0; elapsed < ms; elapsed += 5) {
      this.time.advance(5);
      for (let round = 0; round < 50; round++) {
        for (const node of this.nodes.values()) {
          node.client.poll();
          this.queue.push(...node.client.takeOutbound());
        }
        if (this.queue.length === 0) break;
        const batch = this.queue;
        this.queue = [];
        for (const envelope of batch) this.nodes.get(envelope.destination)?.client.handle(envelope);
      }
    }
  }

  leader(): DiskNode {
    const leaders = [...this.nodes.values()].filter((node) => node.client.stateName() === 'leader');
    expect(leaders).toHaveLength(1);
    return leaders[0]!;
  }
}

describe('RaftClient on FileRaftLog and FileQuorumStateStore', () => {
  it('a lone voter keeps what it committed across a power loss and leads a later epoch', () => {
    const cluster = new DiskCluster([1]);
    const node = cluster.leader();
    const epoch = node.client.leaderAndEpoch().epoch;
    node.client.scheduleAppend(epoch, [bytes('a'), bytes('b')]);
    cluster.run(50);
    expect(node.listener.values).toEqual(['a', 'b']);
    cluster.powerCycle(1);
    cluster.run(3000);
    const restarted = cluster.leader();
    expect(restarted.client.leaderAndEpoch().epoch).toBeGreaterThan(epoch);
    expect(restarted.listener.values).toEqual(['a', 'b']);
    expect(FileQuorumStateStore.open(restarted.disk, PARTITION_DIR).read()!.epoch).toBe(restarted.client.leaderAndEpoch().epoch);
  });

  it('three voters keep every committed record through power losses of a follower and of the leader', () => {
    const cluster = new DiskCluster([1, 2, 3]);
    cluster.run(3000);
    const written: string[] = [];
    const appendSome = (count: number): void => {
      const leader = cluster.leader();
      for (let i = 0; i < count; i++) {
        const value = `v${written.length}`;
        leader.client.scheduleAppend(leader.client.leaderAndEpoch().epoch, [bytes(value)]);
        written.push(value);
        cluster.run(30);
      }
    };
    appendSome(10);
    const follower = [...cluster.nodes.values()].find((node) => node.client.stateName() !== 'leader')!;
    cluster.powerCycle(follower.id);
    appendSome(5);
    const leader = cluster.leader();
    leader.client.createSnapshot(leader.client.highWatermark(), leader.listener.values.map(bytes));
    cluster.powerCycle(leader.id);
    cluster.run(5000);
    appendSome(5);
    cluster.run(500);
    for (const node of cluster.nodes.values()) {
      expect(node.listener.values, `node ${node.id}`).toEqual(written);
      const snapshot = node.log.latestSnapshot();
      const fromLog = allRecords(node.log).filter((value) => written.includes(value));
      const fromSnapshot = snapshot === undefined ? [] : decodeSnapshotRecords(snapshot.bytes).map(text);
      expect([...fromSnapshot, ...fromLog], `node ${node.id}`).toEqual(written);
    }
  });
});
