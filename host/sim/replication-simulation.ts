/**
 * The seeded replication simulation (issue 11's first proof): 3 or 5 {@link SimBroker}s hosting
 * replicated partitions on the real UnifiedLog / LogManager (each on its own FaultDisk), Partition
 * and ReplicaManager, a real QuorumController deciding leaders and ISRs ({@link SimController}),
 * replica fetches over a {@link SimNetwork} with loss, delay, duplication, reordering and
 * partitions, and producers appending with acks=all (and sometimes acks=1) to whichever broker
 * they believe leads. Faults, all from the seed: broker process crashes (kill -9: the page cache
 * survives) and restarts, power loss (torn unflushed data; on seeds with flush.messages=1
 * nothing acknowledged may be lost, on the others only what every broker holding it lost with
 * its page cache: see replication-invariants.ts), network
 * partitions (random splits, a partition leader cut off, a broker cut from the controller),
 * network weather changes, and controller decisions (a live broker fenced, preferred leader
 * elections, partition reassignments to other brokers and their cancellation). After every step the {@link ReplicationInvariants} run. The run then heals
 * everything and requires one new acks=all write per partition to be acknowledged within a bound
 * (liveness). The same seed gives the same run, step for step.
 */
import { ManualTime } from '../io/time.js';
import { SeededRandom } from '../io/random.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { buildRecordBatch } from '../record/batch-builder.js';
import { SimBroker, type SimBrokerSettings, simLogConfig } from './replication-broker.js';
import { SimController } from './replication-controller.js';
import { type AckedWrite, ReplicationInvariants } from './replication-invariants.js';
import { CONTROLLER_NODE_ID, type ReplicationEnvelope } from './replication-messages.js';
import { SimIdempotentProducer } from './sim-idempotent-producer.js';
import { SimNetwork } from './sim-network.js';

export interface ReplicationSimulationOptions {
  seed: number;
  /** Simulated ms of the chaos phase (default 3,000-8,000 chosen by the seed). */
  chaosMs?: number;
  /** Simulated ms the healed cluster has to acknowledge a new acks=all write per partition. */
  livenessBoundMs?: number;
  /** Keeps the step trace (for `--seed` replays). */
  trace?: boolean;
}

export interface ReplicationSimulationResult {
  seed: number;
  brokers: number;
  steps: number;
  simulatedMs: number;
  /** Writes acknowledged with acks=all. */
  acked: number;
  /** Acknowledged or committed writes lost with the page cache of every broker holding them (no fsync; see replication-invariants.ts). */
  excusedLosses: number;
  faults: Record<string, number>;
  /** What the replication code did: truncations, ISR shrink/expand proposals, leaderships taken. */
  events: Record<string, number>;
  violation: string | undefined;
  violationStep: number | undefined;
  /** The step trace when asked for (`trace`), else empty. */
  trace: string[];
}

const TOPIC = 'sim';

class Simulation {
  readonly time = new ManualTime();
  readonly random: SeededRandom;
  readonly network: SimNetwork<ReplicationEnvelope>;
  readonly brokers: SimBroker[];
  readonly controller: SimController;
  readonly invariants: ReplicationInvariants;
  readonly faults: Record<string, number> = {};
  readonly trace: string[] = [];
  readonly partitions: number;
  readonly replicationFactor: number;
  /** Logs fsync every append (flush.messages=1): power loss is then in the fault set. */
  readonly fsyncEveryAppend: boolean;
  readonly intensity: number;
  readonly produceRate: number;
  step = 0;
  private writeCounter = 0;
  /** The first violation found by an asynchronous check (an ack). */
  asyncViolation: string | undefined;
  /** Acks=all writes acknowledged since healing, per partition. */
  readonly ackedAfterHeal = new Set<number>();
  healed = false;
  /** Per partition, its idempotent producer (producer ids 1000, 1001, ...). */
  readonly idempotentProducers: SimIdempotentProducer[];

  constructor(readonly seed: number, private readonly keepTrace: boolean) {
    this.random = new SeededRandom(seed);
    this.network = new SimNetwork<ReplicationEnvelope>(this.time, this.random);
    const brokerCount = [3, 3, 3, 5][this.random.int(0, 3)]!;
    this.replicationFactor = brokerCount === 5 && this.random.chance(0.5) ? 5 : 3;
    this.partitions = this.random.int(1, 3);
    this.fsyncEveryAppend = this.random.chance(0.4);
    const minInsyncReplicas = [1, 2, 2, 2][this.random.int(0, 3)]!;
    const settings: SimBrokerSettings = {
      logConfig: simLogConfig({ minInsyncReplicas, segmentBytes: [1024, 4096, 16384][this.random.int(0, 2)]!, ...(this.fsyncEveryAppend ? { flushMessages: 1 } : {}) }),
      tickMs: this.random.int(2, 10),
      heartbeatIntervalMs: 100,
      metadataIntervalMs: this.random.int(20, 150),
      replicaLagTimeMaxMs: [300, 1000, 3000][this.random.int(0, 2)]!,
      replicaFetchMaxBytes: [1024 * 1024, 1024 * 1024, 200][this.random.int(0, 2)]!,
      replicaFetchWaitMaxMs: [0, 20, 100, 500][this.random.int(0, 3)]!,
      replicaFetchBackoffMs: [10, 50, 200][this.random.int(0, 2)]!,
      numReplicaFetchers: this.random.int(1, 2),
      replicaSocketTimeoutMs: [100, 300, 1000][this.random.int(0, 2)]!,
    };
    this.brokers = Array.from({ length: brokerCount }, (_, i) => new SimBroker(i + 1, this.time, this.random, this.network, settings));
    this.controller = new SimController(this.time, this.random, this.network, {
      brokerIds: this.brokers.map((b) => b.id), sessionTimeoutMs: [500, 1000, 2000][this.random.int(0, 2)]!, uncleanLeaderElectionEnable: false,
    });
    this.invariants = new ReplicationInvariants(this.brokers, this.controller, this.fsyncEveryAppend);
    for (const broker of this.brokers) broker.onBug = (what) => { this.asyncViolation ??= what; };
    this.intensity = [0.5, 1, 1, 2][this.random.int(0, 3)]!;
    this.produceRate = 0.1 + this.random.next() * 0.5;
    this.idempotentProducers = Array.from({ length: this.partitions }, (_, index) => new SimIdempotentProducer(1000 + index));
  }

  async start(): Promise<void> {
    const epochs = await this.controller.bootstrap([{ name: TOPIC, partitions: this.partitions, replicationFactor: this.replicationFactor }]);
    for (const broker of this.brokers) broker.start(epochs.get(broker.id)!);
    this.note(`start: ${this.brokers.length} brokers, RF ${this.replicationFactor}, ${this.partitions} partition(s), fsync ${this.fsyncEveryAppend}`);
  }

  note(line: string): void {
    if (this.keepTrace) this.trace.push(`${this.step} @${this.time.monotonicMs()}ms ${line}`);
  }

  count(kind: string): void {
    this.faults[kind] = (this.faults[kind] ?? 0) + 1;
  }

  chance(probability: number): boolean {
    return this.random.chance(probability * this.intensity);
  }

  /** One step: faults (chaos only), maybe a produce, then 1-10 ms of simulated time. */
  async runStep(chaos: boolean): Promise<void> {
    this.step++;
    if (chaos) injectFault(this);
    if (this.random.chance(this.produceRate)) this.produce();
    const ms = this.random.int(1, 10);
    for (let i = 0; i < ms; i++) {
      this.time.advance(1);
      await settle();
    }
    if (this.keepTrace) this.traceMetadata();
  }

  private lastMetadata = new Map<string, string>();

  /** Notes every change of a partition's registration or a broker's fencing (trace only). */
  private traceMetadata(): void {
    const image = this.controller.controller.image;
    const now = new Map<string, string>();
    for (const topic of image.topics()) {
      for (const p of topic.partitions) now.set(`${topic.name}-${p.partitionId}`, `leader ${p.leader} epoch ${p.leaderEpoch} replicas [${p.replicas.join(',')}] isr [${p.isr.join(',')}] partition epoch ${p.partitionEpoch}`);
    }
    for (const b of image.brokers()) now.set(`broker ${b.brokerId}`, `epoch ${b.brokerEpoch}${b.fenced ? ' fenced' : ''}`);
    for (const [key, value] of now) if (this.lastMetadata.get(key) !== value) this.note(`metadata: ${key}: ${value}`);
    this.lastMetadata = now;
  }

  /**
   * One batch of 1-3 unique records to a broker a client may believe leads the partition: from a
   * plain producer (acks=all or 1), or the partition's idempotent producer (its next batch, or a
   * retry of the one it waits for).
   */
  produce(): void {
    const index = this.random.int(0, this.partitions - 1);
    const registration = this.controller.controller.image.partition(TOPIC, index);
    const alive = this.brokers.filter((b) => b.registered);
    if (alive.length === 0) return;
    const named = this.brokers.find((b) => b.id === registration?.leader && b.registered);
    const target = named !== undefined && this.random.chance(0.85) ? named : alive[this.random.int(0, alive.length - 1)]!;
    if (this.random.chance(0.4)) {
      this.produceIdempotent(index, target);
      return;
    }
    const acks = this.random.chance(0.8) ? -1 : 1;
    const values = Array.from({ length: this.random.int(1, 3) }, () => `w${this.writeCounter++}`);
    const batch = buildRecordBatch({ records: values.map((value) => ({ value, timestamp: 1_700_000_000_000 + this.step })) });
    const crc = batch.readUInt32BE(17);
    const step = this.step;
    this.invariants.noteProduced(crc, step);
    const produced = target.produce(TOPIC, index, batch, acks, this.random.int(500, 3000));
    if (produced === undefined) return;
    const life = target.life;
    void produced.then((result) => {
      if (result.errorCode !== 0 || acks !== -1) return;
      const write: AckedWrite = { topic: TOPIC, partition: index, baseOffset: result.baseOffset, lastOffset: result.lastOffset, crc, step, source: 'acked' };
      this.note(`acked ${values.join(',')} to ${TOPIC}-${index} at ${result.baseOffset}..${result.lastOffset} by broker ${target.id}`);
      const leader = target.life === life ? target.replicaManager?.getPartition(TOPIC, index) : undefined;
      this.asyncViolation ??= this.invariants.recordAck(write, leader);
      if (this.healed) this.ackedAfterHeal.add(index);
    });
  }

  /** The partition's idempotent producer sends its next batch or retries the pending one (see sim-idempotent-producer.ts). */
  private produceIdempotent(index: number, target: SimBroker): void {
    const client = this.idempotentProducers[index]!;
    const next = client.next(this.time.monotonicMs(), this.step, 1_700_000_000_000 + this.step,
      () => Array.from({ length: this.random.int(1, 3) }, () => `w${this.writeCounter++}`));
    if (next.kind === 'wait') return;
    const pending = next.pending;
    if (next.retry) this.count('idempotentRetry');
    else this.invariants.noteProduced(pending.crc, pending.step);
    const produced = target.produce(TOPIC, index, pending.batch, -1, this.random.int(500, 3000));
    if (produced === undefined) {
      client.answer(pending, ErrorCode.NOT_LEADER_OR_FOLLOWER);
      return;
    }
    const life = target.life;
    void produced.then((result) => {
      // A deposed leader that has not heard of its successor checks the sequence against the
      // state it had (as Kafka's would) and finds a gap: the client learns the new leader and
      // retries there, the batch unchanged. Only the current leader's gap means a lost batch.
      const current = this.controller.controller.image.partition(TOPIC, index);
      const deposed = result.errorCode === ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER && current?.leader !== target.id;
      if (deposed) this.count('idempotentGapAtDeposedLeader');
      const outcome = client.answer(pending, deposed ? ErrorCode.NOT_LEADER_OR_FOLLOWER : result.errorCode);
      if (outcome === 'epochBumped') {
        this.count('idempotentEpochBump');
        this.note(`producer ${client.producerId} refused with OUT_OF_ORDER_SEQUENCE_NUMBER by broker ${target.id}: epoch bumped to ${client.producerEpoch}`);
        // Only a lost acknowledged batch leaves a gap; with every append fsynced none may be lost.
        if (this.fsyncEveryAppend) this.asyncViolation ??= `${TOPIC}-${index}: broker ${target.id} refused producer ${client.producerId}'s next sequence (OUT_OF_ORDER_SEQUENCE_NUMBER) though nothing acknowledged may be lost`;
        return;
      }
      if (outcome !== 'acked') return;
      const write: AckedWrite = { topic: TOPIC, partition: index, baseOffset: result.baseOffset, lastOffset: result.lastOffset, crc: pending.crc, step: pending.step, source: 'acked' };
      this.note(`acked idempotent ${pending.values.join(',')} (attempt ${pending.attempts}) to ${TOPIC}-${index} at ${result.baseOffset}..${result.lastOffset} by broker ${target.id}`);
      const leader = target.life === life ? target.replicaManager?.getPartition(TOPIC, index) : undefined;
      this.asyncViolation ??= this.invariants.recordAck(write, leader);
      if (this.healed) this.ackedAfterHeal.add(index);
    });
  }

  heal(): void {
    this.network.heal();
    this.network.faults = { lossRate: 0, duplicateRate: 0, minDelayMs: 1, maxDelayMs: 5 };
    for (const broker of this.brokers) if (!broker.alive) restart(this, broker);
    this.healed = true;
    this.note('heal');
  }
}

async function settle(): Promise<void> {
  for (let i = 0; i < 8; i++) await Promise.resolve();
}

const FAULT = {
  crash: 0.002,
  powerLoss: 0.0015,
  restart: 0.02,
  partition: 0.002,
  healPartition: 0.01,
  networkChange: 0.003,
  fenceBroker: 0.0008,
  preferredElection: 0.001,
  deleteRecords: 0.001,
  reassign: 0.001,
} as const;

function injectFault(sim: Simulation): void {
  const random = sim.random;
  const up = sim.brokers.filter((b) => b.alive);
  // Keep a majority of the replicas' brokers up most of the time: the run should make progress.
  const mayStop = up.length > Math.floor(sim.brokers.length / 2);
  if (mayStop && sim.chance(FAULT.crash)) {
    const broker = up[random.int(0, up.length - 1)]!;
    broker.crash();
    sim.count('crash');
    sim.note(`crash broker ${broker.id}`);
  } else if (mayStop && sim.chance(FAULT.powerLoss)) {
    const broker = up[random.int(0, up.length - 1)]!;
    broker.powerLoss();
    broker.lastPowerLossStep = sim.step;
    sim.count('powerLoss');
    sim.note(`power loss on broker ${broker.id}`);
  }
  for (const broker of sim.brokers) if (!broker.alive && random.chance(FAULT.restart)) restart(sim, broker);
  if (sim.chance(FAULT.partition)) partitionNetwork(sim);
  if (sim.network.partitioned && random.chance(FAULT.healPartition)) {
    sim.network.heal();
    sim.count('healPartition');
    sim.note('network healed');
  }
  if (sim.chance(FAULT.networkChange)) changeNetwork(sim);
  if (sim.chance(FAULT.fenceBroker)) fenceLiveBroker(sim);
  if (sim.chance(FAULT.deleteRecords)) deleteRecords(sim);
  if (sim.chance(FAULT.reassign)) reassign(sim);
  if (sim.chance(FAULT.preferredElection)) {
    void sim.controller.controller.electLeaders(0, null);
    sim.count('preferredElection');
    sim.note('preferred leader election');
  }
}

function restart(sim: Simulation, broker: SimBroker): void {
  broker.start();
  sim.count('restart');
  sim.note(`restart broker ${broker.id}`);
}

/** A random split; or a partition leader cut off from everyone; or a broker cut off from the controller. */
function partitionNetwork(sim: Simulation): void {
  const random = sim.random;
  const ids = [CONTROLLER_NODE_ID, ...sim.brokers.map((b) => b.id)];
  const choice = random.int(0, 2);
  if (choice === 0) {
    const leader = sim.controller.controller.image.partition(TOPIC, random.int(0, sim.partitions - 1))?.leader ?? -1;
    if (leader > 0) {
      sim.network.partition([[leader], ids.filter((id) => id !== leader)]);
      sim.count('isolateLeader');
      sim.note(`network: leader ${leader} isolated`);
      return;
    }
  }
  if (choice === 1) {
    const broker = sim.brokers[random.int(0, sim.brokers.length - 1)]!.id;
    const others = ids.filter((id) => id !== broker && id !== CONTROLLER_NODE_ID);
    sim.network.partition([[CONTROLLER_NODE_ID, ...others], [broker]]);
    sim.count('partition');
    sim.note(`network: broker ${broker} cut off`);
    return;
  }
  const sides: number[][] = [[], []];
  for (const id of ids) sides[random.int(0, 1)]!.push(id);
  sim.network.partition(sides);
  sim.count('partition');
  sim.note(`network: split ${JSON.stringify(sides)}`);
}

function changeNetwork(sim: Simulation): void {
  const random = sim.random;
  const minDelayMs = random.int(1, 5);
  sim.network.faults = {
    lossRate: random.chance(0.5) ? 0 : random.next() * 0.2,
    duplicateRate: random.chance(0.5) ? 0 : random.next() * 0.1,
    minDelayMs,
    maxDelayMs: minDelayMs + random.int(0, random.chance(0.2) ? 200 : 20),
  };
  sim.count('networkChange');
  sim.note(`network weather ${JSON.stringify(sim.network.faults)}`);
}

/** DeleteRecords on a partition's leader up to a random offset at or below its high watermark: followers follow the log start. */
function deleteRecords(sim: Simulation): void {
  const index = sim.random.int(0, sim.partitions - 1);
  const leaderId = sim.controller.controller.image.partition(TOPIC, index)?.leader ?? -1;
  const partition = sim.brokers.find((b) => b.id === leaderId && b.registered)?.replicaManager?.getPartition(TOPIC, index);
  if (partition === undefined || !partition.isLeader || partition.highWatermark <= partition.logStartOffset) return;
  const offset = sim.random.int(partition.logStartOffset, partition.highWatermark);
  const [result] = sim.brokers.find((b) => b.id === leaderId)!.replicaManager!.deleteRecords([{ topic: TOPIC, partition: index, offset }]);
  sim.count('deleteRecords');
  sim.note(`DeleteRecords ${TOPIC}-${index} before ${offset} on broker ${leaderId}: error ${result!.errorCode}, low watermark ${result!.lowWatermark}`);
}

/**
 * AlterPartitionReassignments of one partition (KIP-455): to `replicationFactor` random brokers in
 * random order (sometimes the same set reordered), or a cancel of the move in flight. The move
 * completes when the new replicas join the ISR; invariants hold throughout.
 */
function reassign(sim: Simulation): void {
  const random = sim.random;
  const index = random.int(0, sim.partitions - 1);
  const registration = sim.controller.controller.image.partition(TOPIC, index);
  if (registration === undefined) return;
  const moving = registration.addingReplicas.length > 0 || registration.removingReplicas.length > 0;
  let replicas: number[] | null = null;
  if (!moving || random.chance(0.6)) {
    const pool = sim.brokers.map((b) => b.id);
    replicas = [];
    while (replicas.length < sim.replicationFactor) replicas.push(pool.splice(random.int(0, pool.length - 1), 1)[0]!);
  }
  void sim.controller.controller.alterPartitionReassignments([{ name: TOPIC, partitions: [{ partitionIndex: index, replicas }] }]).then((answer) => {
    sim.note(`reassignment of ${TOPIC}-${index} to ${replicas === null ? 'cancel' : `[${replicas.join(',')}]`}: ${JSON.stringify(answer.responses[0]?.partitions[0]?.errorCode ?? answer.errorCode)}`);
  });
  sim.count(replicas === null ? 'cancelReassignment' : 'reassign');
}

/** The controller fences a live broker (as after missed heartbeats): its leaderships move, it leaves the ISRs. */
function fenceLiveBroker(sim: Simulation): void {
  const unfenced = sim.controller.controller.image.brokers().filter((b) => !b.fenced);
  if (unfenced.length <= 1) return;
  const victim = unfenced[sim.random.int(0, unfenced.length - 1)]!;
  void sim.controller.controller.fenceBroker(victim.brokerId, victim.brokerEpoch);
  sim.count('fenceBroker');
  sim.note(`controller fences broker ${victim.brokerId}`);
}

/** Runs one seed to the end or to the first violation (an invariant broken, an exception, no progress after healing). */
export async function runReplicationSimulation(options: ReplicationSimulationOptions): Promise<ReplicationSimulationResult> {
  const sim = new Simulation(options.seed, options.trace ?? false);
  const chaosMs = options.chaosMs ?? sim.random.int(3_000, 8_000);
  const livenessBoundMs = options.livenessBoundMs ?? 20_000;
  let violation: string | undefined;
  try {
    await sim.start();
    changeNetwork(sim);
    violation = await runPhases(sim, chaosMs, livenessBoundMs);
  } catch (error) {
    violation = `exception: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
  }
  const { dropped, duplicated, reordered, partitionDropped } = sim.network.counters;
  return {
    seed: options.seed,
    brokers: sim.brokers.length,
    steps: sim.step,
    simulatedMs: sim.time.monotonicMs(),
    acked: sim.invariants.ackedCount,
    excusedLosses: sim.invariants.excusedLosses,
    faults: { ...sim.faults, messageLoss: dropped, duplication: duplicated, reordering: reordered, partitionDrop: partitionDropped, sessionExpiry: sim.controller.sessionExpiries },
    events: sumEvents(sim.brokers),
    violation,
    violationStep: violation === undefined ? undefined : sim.step,
    trace: sim.trace,
  };
}

function sumEvents(brokers: readonly SimBroker[]): Record<string, number> {
  const events: Record<string, number> = {};
  for (const broker of brokers) for (const [kind, n] of Object.entries(broker.events)) events[kind] = (events[kind] ?? 0) + n;
  return events;
}

async function runPhases(sim: Simulation, chaosMs: number, livenessBoundMs: number): Promise<string | undefined> {
  while (sim.time.monotonicMs() < chaosMs) {
    await sim.runStep(true);
    const violation = sim.asyncViolation ?? sim.invariants.check(sim.step);
    if (violation !== undefined) return violation;
  }
  sim.heal();
  const healedAtMs = sim.time.monotonicMs();
  while (sim.time.monotonicMs() - healedAtMs < livenessBoundMs) {
    await sim.runStep(false);
    const violation = sim.asyncViolation ?? sim.invariants.check(sim.step);
    if (violation !== undefined) return violation;
    if (sim.ackedAfterHeal.size === sim.partitions) return undefined;
  }
  const missing = Array.from({ length: sim.partitions }, (_, i) => i).filter((i) => !sim.ackedAfterHeal.has(i));
  const states = missing.map((i) => {
    const registration = sim.controller.controller.image.partition(TOPIC, i);
    return `${TOPIC}-${i}: leader ${registration?.leader} epoch ${registration?.leaderEpoch} isr [${registration?.isr.join(',')}]`;
  });
  return `liveness: no acks=all write acknowledged within ${livenessBoundMs} ms after healing (${states.join('; ')})`;
}
