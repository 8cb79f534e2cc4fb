/**
 * SimNode: one Raft voter in the simulator, driven the way the CONTROLLER listener will drive it:
 * every inbound message goes to `handle`, then `poll` runs (deferred to the end of the turn) and
 * its outbound messages go to the network; a timer wakes it at the time `poll` asked for. Its log
 * and quorum-state store outlive crashes; the client, the timer and the state machine do not.
 */
import type { TimerHandle } from '../io/environment.js';
import type { ManualTime } from '../io/time.js';
import type { SeededRandom } from '../io/random.js';
import { MemoryRaftLog } from '../raft/memory-raft-log.js';
import type { RaftEnvelope } from '../raft/messages.js';
import { RaftClient } from '../raft/raft-client.js';
import type { RaftConfig } from '../raft/raft-config.js';
import { MemoryQuorumStateStore } from '../raft/quorum-state-store.js';
import type { SimNetwork } from './sim-network.js';
import { SimStateMachine } from './sim-state-machine.js';

export class SimNode {
  readonly log = new MemoryRaftLog();
  readonly store = new MemoryQuorumStateStore();
  client: RaftClient | undefined;
  stateMachine = new SimStateMachine();
  /** Restarts so far (0 in the first life). */
  life = 0;
  private timer: TimerHandle | undefined;
  private pollQueued = false;

  constructor(
    readonly id: number,
    private readonly config: RaftConfig,
    private readonly time: ManualTime,
    private readonly random: SeededRandom,
    private readonly network: SimNetwork,
  ) {}

  get alive(): boolean {
    return this.client !== undefined;
  }

  /** Starts a new life from the durable log and quorum state. */
  start(): void {
    const client = new RaftClient({ config: this.config, log: this.log, store: this.store, time: this.time, random: this.random });
    this.stateMachine = new SimStateMachine();
    client.register(this.stateMachine);
    this.client = client;
    client.start();
    this.network.attach(this.id, (envelope) => this.receive(envelope));
    this.kick();
  }

  /**
   * Stops the node as a power cut would: the unflushed log tail is lost except its first
   * `keepUnflushedBatches` batches (a torn tail).
   */
  crash(keepUnflushedBatches: number): void {
    this.client = undefined;
    this.network.attach(this.id, undefined);
    if (this.timer !== undefined) this.time.clearTimeout(this.timer);
    this.timer = undefined;
    this.log.crash(keepUnflushedBatches);
  }

  restart(): void {
    this.life++;
    this.start();
  }

  /** Runs poll at the end of the current turn (once, however many times it is asked). */
  kick(): void {
    if (this.pollQueued) return;
    this.pollQueued = true;
    this.time.defer(() => {
      this.pollQueued = false;
      this.runPoll();
    });
  }

  private receive(envelope: RaftEnvelope): void {
    const client = this.client;
    if (client === undefined) return;
    client.handle(envelope);
    this.kick();
  }

  private runPoll(): void {
    const client = this.client;
    if (client === undefined) return;
    const next = client.poll();
    for (const envelope of client.takeOutbound()) this.network.send(envelope);
    if (this.timer !== undefined) this.time.clearTimeout(this.timer);
    const client2 = client;
    this.timer = this.time.setTimeout(() => {
      this.timer = undefined;
      if (this.client === client2) this.runPoll();
    }, Math.max(1, next - this.time.monotonicMs()));
  }
}
