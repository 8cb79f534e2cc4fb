/**
 * The seeded Raft simulation: N voters on one {@link ManualTime} and one {@link SeededRandom},
 * talking through a {@link SimNetwork} with loss, delay, duplication, reordering and partitions,
 * crashed and restarted (losing or tearing their unflushed log tail), with a workload of appends
 * through whichever node leads, graceful resignations and snapshots. After every step the
 * {@link InvariantChecker} runs. The run has two phases: chaos (faults), then healed (every node
 * up, no partition, no loss), in which a leader must be elected and new appends committed within
 * a bound (liveness). The same seed gives the same run, step for step.
 */
import { ManualTime } from '../io/time.js';
import { SeededRandom } from '../io/random.js';
import { NotLeaderError } from '../raft/raft-errors.js';
import { majorityOf, raftConfig } from '../raft/raft-config.js';
import { InvariantChecker } from './invariants.js';
import { SimNetwork } from './sim-network.js';
import { SimNode } from './sim-node.js';

/** Fault kinds the simulation injects (network ones are counted by the network). */
export type FaultKind = 'crash' | 'tornTail' | 'lostUnflushed' | 'restart' | 'partition' | 'healPartition' | 'resign' | 'snapshot' | 'networkChange';

export interface SimulationOptions {
  seed: number;
  /** Simulated ms of the chaos phase (default: 4,000-12,000 chosen by the seed). */
  chaosMs?: number;
  /** Simulated ms the healed cluster has to elect a leader and commit a new append. */
  livenessBoundMs?: number;
}

export interface SimulationResult {
  seed: number;
  voters: number;
  steps: number;
  simulatedMs: number;
  committed: number;
  faults: Record<string, number>;
  /** The first invariant violation, with the step it was found at; undefined when none. */
  violation: string | undefined;
  violationStep: number | undefined;
}

const FAULT_PROBABILITY = {
  crash: 0.004,
  restart: 0.03,
  partition: 0.004,
  healPartition: 0.02,
  resign: 0.002,
  snapshot: 0.01,
  networkChange: 0.003,
} as const;

class Simulation {
  readonly time = new ManualTime();
  readonly random: SeededRandom;
  readonly network: SimNetwork;
  readonly nodes: SimNode[];
  readonly checker: InvariantChecker;
  readonly faults: Record<string, number> = {};
  private appendCounter = 0;
  step = 0;
  /** Multiplies the fault probabilities: quiet, normal or stormy seeds. */
  readonly intensity: number;
  /** Probability of an append per step. */
  readonly appendRate: number;

  constructor(readonly seed: number) {
    this.random = new SeededRandom(seed);
    this.network = new SimNetwork(this.time, this.random);
    const voterCount = [1, 3, 3, 3, 5, 5][this.random.int(0, 5)]!;
    const voters = Array.from({ length: voterCount }, (_, index) => index + 1);
    // Kafka's defaults on most seeds; short timeouts (more elections, split votes) on the others.
    const electionTimeoutMs = [1000, 1000, 300, 100][this.random.int(0, 3)]!;
    // Small fetches on some seeds: followers get the log a few records at a time.
    const fetchMaxBytes = [8 * 1024 * 1024, 8 * 1024 * 1024, 24][this.random.int(0, 2)]!;
    const timeouts = { electionTimeoutMs, fetchTimeoutMs: 2 * electionTimeoutMs, electionBackoffMaxMs: electionTimeoutMs, requestTimeoutMs: electionTimeoutMs, fetchMaxBytes };
    this.nodes = voters.map((id) => new SimNode(id, raftConfig({ nodeId: id, voters, clusterId: 'sim', ...timeouts }), this.time, this.random, this.network));
    this.checker = new InvariantChecker(majorityOf(voterCount));
    this.intensity = [0.5, 1, 1, 3][this.random.int(0, 3)]!;
    this.appendRate = 0.2 + this.random.next() * 0.7;
  }

  chance(kind: 'crash' | 'partition' | 'resign' | 'networkChange'): boolean {
    return this.random.chance(FAULT_PROBABILITY[kind] * this.intensity);
  }

  count(kind: string, by = 1): void {
    this.faults[kind] = (this.faults[kind] ?? 0) + by;
  }

  /** One step: a random action (fault or workload), then time moves 1-20 ms. */
  runStep(chaos: boolean): void {
    this.step++;
    if (chaos) this.injectFault();
    if (this.random.chance(this.appendRate)) this.appendThroughLeader();
    this.time.advance(this.random.int(1, 20));
  }

  injectFault(): void {
    const random = this.random;
    const alive = this.nodes.filter((node) => node.alive);
    const down = this.nodes.filter((node) => !node.alive);
    if (alive.length > 0 && this.chance('crash')) this.crash(alive[random.int(0, alive.length - 1)]!);
    for (const node of down) if (random.chance(FAULT_PROBABILITY.restart)) this.restart(node);
    if (this.nodes.length > 1 && this.chance('partition')) this.partition();
    if (this.network.partitioned && random.chance(FAULT_PROBABILITY.healPartition)) {
      this.network.heal();
      this.count('healPartition');
    }
    if (this.chance('networkChange')) this.changeNetwork();
    if (this.chance('resign')) this.resignLeader();
    if (alive.length > 0 && random.chance(FAULT_PROBABILITY.snapshot)) this.snapshot(alive[random.int(0, alive.length - 1)]!);
  }

  crash(node: SimNode): void {
    const unflushed = node.log.unflushedBatchCount();
    const keep = unflushed === 0 ? 0 : this.random.int(0, unflushed);
    node.crash(keep);
    this.count('crash');
    if (unflushed > 0) this.count(keep > 0 ? 'tornTail' : 'lostUnflushed');
  }

  restart(node: SimNode): void {
    node.restart();
    this.count('restart');
  }

  /** A random split, or (half the time) the leader cut off from everyone else. */
  partition(): void {
    const ids = this.nodes.map((node) => node.id);
    const leader = this.nodes.find((node) => node.client?.stateName() === 'leader');
    if (leader !== undefined && this.random.chance(0.5)) {
      this.network.partition([[leader.id], ids.filter((id) => id !== leader.id)]);
      this.count('isolateLeader');
      return;
    }
    const sides: number[][] = [[], []];
    for (const id of ids) sides[this.random.int(0, 1)]!.push(id);
    this.network.partition(sides);
    this.count('partition');
  }

  changeNetwork(): void {
    const random = this.random;
    const minDelayMs = random.int(1, 10);
    this.network.faults = {
      lossRate: random.chance(0.5) ? 0 : random.next() * 0.2,
      duplicateRate: random.chance(0.5) ? 0 : random.next() * 0.1,
      minDelayMs,
      maxDelayMs: minDelayMs + random.int(0, random.chance(0.2) ? 400 : 40),
    };
    this.count('networkChange');
  }

  resignLeader(): void {
    for (const node of this.nodes) {
      const client = node.client;
      if (client === undefined || client.stateName() !== 'leader') continue;
      client.resign(client.leaderAndEpoch().epoch);
      node.kick();
      this.count('resign');
    }
  }

  snapshot(node: SimNode): void {
    const client = node.client;
    if (client === undefined) return;
    const machine = node.stateMachine;
    const latest = node.log.latestSnapshot()?.id.endOffset ?? 0;
    if (machine.nextOffset <= Math.max(latest, node.log.startOffset()) || machine.nextOffset > client.highWatermark()) return;
    client.createSnapshot(machine.nextOffset, machine.snapshotRecords());
    this.count('snapshot');
  }

  /** Appends 1-3 unique values through a node that believes it leads; returns them when accepted. */
  appendThroughLeader(): string[] {
    const leaders = this.nodes.filter((node) => node.client?.stateName() === 'leader');
    const node = leaders.length > 0 ? leaders[this.random.int(0, leaders.length - 1)]! : this.nodes[this.random.int(0, this.nodes.length - 1)]!;
    const client = node.client;
    if (client === undefined) return [];
    const values = Array.from({ length: this.random.int(1, 3) }, () => `v${this.appendCounter++}`);
    try {
      client.scheduleAppend(client.leaderAndEpoch().epoch, values.map((value) => new TextEncoder().encode(value)));
      node.kick();
      return values;
    } catch (error) {
      if (error instanceof NotLeaderError) return [];
      throw error;
    }
  }

  heal(): void {
    this.network.heal();
    this.network.faults = { lossRate: 0, duplicateRate: 0, minDelayMs: 1, maxDelayMs: 10 };
    for (const node of this.nodes) if (!node.alive) this.restart(node);
  }
}

/**
 * Runs one seed to the end or to the first violation (an invariant broken, an assertion thrown by
 * the Raft core, or no progress after healing).
 */
export function runSimulation(options: SimulationOptions): SimulationResult {
  const sim = new Simulation(options.seed);
  const chaosMs = options.chaosMs ?? sim.random.int(4_000, 12_000);
  const livenessBoundMs = options.livenessBoundMs ?? 15_000;
  let violation: string | undefined;
  try {
    for (const node of sim.nodes) node.start();
    sim.changeNetwork();
    violation = runPhases(sim, chaosMs, livenessBoundMs);
  } catch (error) {
    violation = `exception: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
  }
  return {
    seed: options.seed,
    voters: sim.nodes.length,
    steps: sim.step,
    simulatedMs: sim.time.monotonicMs(),
    committed: sim.checker.committedEnd,
    faults: { ...sim.faults, ...networkFaults(sim.network) },
    violation,
    violationStep: violation === undefined ? undefined : sim.step,
  };
}

function networkFaults(network: SimNetwork): Record<string, number> {
  const { dropped, duplicated, reordered, partitionDropped } = network.counters;
  return { messageLoss: dropped, duplication: duplicated, reordering: reordered, partitionDrop: partitionDropped };
}

function runPhases(sim: Simulation, chaosMs: number, livenessBoundMs: number): string | undefined {
  while (sim.time.monotonicMs() < chaosMs) {
    sim.runStep(true);
    const violation = sim.checker.check(sim.nodes);
    if (violation !== undefined) return violation;
  }
  sim.heal();
  const healedAtMs = sim.time.monotonicMs();
  const pending = new Set<string>();
  while (sim.time.monotonicMs() - healedAtMs < livenessBoundMs) {
    for (const value of sim.appendThroughLeader()) pending.add(value);
    sim.runStep(false);
    const violation = sim.checker.check(sim.nodes);
    if (violation !== undefined) return violation;
    if ([...pending].some((value) => sim.checker.committedValues.has(value))) return undefined;
  }
  const states = sim.nodes.map((node) => `${node.id}=${node.client?.stateName()}@${node.client?.leaderAndEpoch().epoch}/leader ${node.client?.leaderAndEpoch().leaderId}/end ${node.log.endOffset()}@${node.log.lastFetchedEpoch()}`);
  return `liveness: no append made after healing committed within ${livenessBoundMs} ms (states: ${states.join(' ')})`;
}
