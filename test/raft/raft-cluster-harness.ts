/**
 * A tiny synchronous harness for the Raft unit tests: clients on one ManualTime, messages
 * delivered in order, with an optional filter to drop or inspect them.
 */
import { ManualTime } from '../../host/io/time.js';
import { SeededRandom } from '../../host/io/random.js';
import { MemoryRaftLog } from '../../host/raft/memory-raft-log.js';
import type { RaftEnvelope } from '../../host/raft/messages.js';
import { type CommittedBatch, type LeaderAndEpoch, RaftClient, type RaftListener } from '../../host/raft/raft-client.js';
import { raftConfig } from '../../host/raft/raft-config.js';
import { MemoryQuorumStateStore } from '../../host/raft/quorum-state-store.js';
import type { SnapshotReader } from '../../host/raft/snapshot.js';

export class RecordingListener implements RaftListener {
  commits: CommittedBatch[] = [];
  snapshots: SnapshotReader[] = [];
  leaders: LeaderAndEpoch[] = [];
  handleCommit(batch: CommittedBatch): void {
    this.commits.push(batch);
  }
  handleLoadSnapshot(snapshot: SnapshotReader): void {
    this.snapshots.push(snapshot);
  }
  handleLeaderChange(leader: LeaderAndEpoch): void {
    this.leaders.push(leader);
  }
  values(): string[] {
    return this.commits.flatMap((batch) => batch.records.map((record) => new TextDecoder().decode(record)));
  }
}

export interface HarnessNode {
  id: number;
  client: RaftClient;
  log: MemoryRaftLog;
  store: MemoryQuorumStateStore;
  listener: RecordingListener;
  up: boolean;
}

export const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

export class RaftHarness {
  readonly time = new ManualTime();
  readonly nodes = new Map<number, HarnessNode>();
  /** Messages sent, in order (every one, delivered or not). */
  readonly sent: RaftEnvelope[] = [];
  /** Return false to drop a message. */
  filter: (envelope: RaftEnvelope) => boolean = () => true;
  private queue: RaftEnvelope[] = [];

  constructor(readonly voters: number[], seed = 1, options: { fetchMaxBytes?: number } = {}) {
    for (const id of voters) {
      const log = new MemoryRaftLog();
      const store = new MemoryQuorumStateStore();
      const client = this.makeClient(id, log, store, seed + id, options.fetchMaxBytes);
      const listener = new RecordingListener();
      client.register(listener);
      this.nodes.set(id, { id, client, log, store, listener, up: false });
    }
  }

  private makeClient(id: number, log: MemoryRaftLog, store: MemoryQuorumStateStore, seed: number, fetchMaxBytes?: number): RaftClient {
    const config = raftConfig({ nodeId: id, voters: this.voters, clusterId: 'test', ...(fetchMaxBytes === undefined ? {} : { fetchMaxBytes }) });
    return new RaftClient({ config, log, store, time: this.time, random: new SeededRandom(seed) });
  }

  node(id: number): HarnessNode {
    return this.nodes.get(id)!;
  }

  start(...ids: number[]): void {
    for (const id of ids.length > 0 ? ids : this.voters) {
      const node = this.node(id);
      node.client.start();
      node.up = true;
    }
  }

  /** Stops a node (its log keeps what was flushed) and starts a new client on the same log and store. */
  restart(id: number): void {
    const node = this.node(id);
    node.log.crash();
    node.client = this.makeClient(id, node.log, node.store, 100 + id);
    node.listener = new RecordingListener();
    node.client.register(node.listener);
    node.client.start();
    node.up = true;
  }

  /** Polls every node and delivers messages until none is left (bounded). */
  settle(maxRounds = 200): void {
    for (let round = 0; round < maxRounds; round++) {
      for (const node of this.nodes.values()) {
        if (!node.up) continue;
        node.client.poll();
        for (const envelope of node.client.takeOutbound()) {
          this.sent.push(envelope);
          if (this.filter(envelope)) this.queue.push(envelope);
        }
      }
      if (this.queue.length === 0) return;
      const batch = this.queue;
      this.queue = [];
      for (const envelope of batch) {
        const target = this.nodes.get(envelope.destination);
        if (target?.up) target.client.handle(envelope);
      }
    }
  }

  /** Moves time by `ms` in 5 ms steps, settling at each. */
  run(ms: number): void {
    for (let elapsed = 0; elapsed < ms; elapsed += 5) {
      this.time.advance(5);
      this.settle();
    }
  }

  leaders(): number[] {
    return [...this.nodes.values()].filter((node) => node.up && node.client.stateName() === 'leader').map((node) => node.id);
  }
}
