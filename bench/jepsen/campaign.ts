/**
 * One Jepsen-style campaign (issue 11): a {@link JepsenCluster} of real broker processes, a topic
 * with replication.factor 3 and min.insync.replicas 2 written by real clients with acks=all and
 * idempotence (our Producer, kafkajs, confluent-kafka) and a second topic written with acks=1, a
 * live consumer, and the seeded {@link faultSchedule} applied one fault at a time. After the last
 * fault every link heals, every node runs, the cluster is waited back to full ISRs, the writers
 * stop, and both topics are read back whole and checked ({@link checkHistory}).
 *
 * Besides the record checks, the campaign itself reports what a user would call a bug: a node
 * that exits on its own (a crash), a node that cannot start again, and a cluster that does not
 * get every partition back to all replicas in sync (`recoveryTimeoutMs` after a fault).
 */
import { Admin } from '../../host/clients/admin.js';
import { batchProvenance } from './batch-provenance.js';
import { type CheckReport, checkHistory, formatCheckReport } from './checker.js';
import { describeFault, type Fault, faultSchedule, type FaultKind } from './fault-schedule.js';
import { History } from './history.js';
import { JepsenCluster } from './jepsen-cluster.js';
import { readTopic } from './read-back.js';
import { ConfluentWriter, confluentWriterScript, KafkajsWriter, LiveReader, TributaryWriter, type Writer } from './writers.js';

export const STRICT_TOPIC = 'jepsen';
export const ACKS1_TOPIC = 'jepsen-acks1';
const PARTITIONS = 3;

/** The writers a campaign can run. */
export type ClientName = 'tributary' | 'kafkajs' | 'confluent' | 'acks1';
export const ALL_CLIENTS: readonly ClientName[] = ['tributary', 'kafkajs', 'confluent', 'acks1'];

export interface CampaignOptions {
  readonly cliPath: string;
  readonly cwd?: string;
  readonly seed: number;
  readonly faults: number;
  /** Multiplies fault durations and gaps (default 1). */
  readonly timeScale?: number;
  readonly clients?: readonly ClientName[];
  /** Debian's Python with confluent_kafka (default /usr/bin/python3). */
  readonly python?: string;
  /** How long the cluster may take to get every partition's ISR full again after a fault (default 60 000 ms). */
  readonly recoveryTimeoutMs?: number;
  /** Keep the cluster's work directory (logs, data) even when the campaign passes. */
  readonly keepWorkDir?: boolean;
  /** Progress lines (default: none). */
  readonly progress?: (line: string) => void;
}

export interface CampaignResult {
  readonly seed: number;
  readonly faults: readonly Fault[];
  readonly faultsByKind: ReadonlyMap<FaultKind, number>;
  readonly check: CheckReport;
  /** Crashes, failed starts and recoveries beyond the timeout, human-readable. */
  readonly clusterProblems: readonly string[];
  /** Longest wait for full ISRs after a fault, ms. */
  readonly slowestRecoveryMs: number;
  readonly elapsedMs: number;
  /** Where the nodes' logs and data are (removed when the campaign passed, unless kept). */
  readonly workDir: string;
  /** True when the record checks and the cluster checks found nothing. */
  readonly passed: boolean;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs one campaign (see the file header). @throws Error only when the cluster cannot be started at all */
export async function runCampaign(options: CampaignOptions): Promise<CampaignResult> {
  const startedAt = performance.now();
  const progress = options.progress ?? ((): void => undefined);
  const schedule = faultSchedule({ seed: options.seed, faults: options.faults, nodes: 3, timeScale: options.timeScale });
  const cluster = await JepsenCluster.start({ cliPath: options.cliPath, cwd: options.cwd, nodes: 3 });
  progress(`cluster up (${cluster.workDir}), bootstrap ${cluster.bootstrap}`);
  const problems: string[] = [];
  const history = new History();
  const clients = options.clients ?? ALL_CLIENTS;
  let slowestRecoveryMs = 0;
  let passed = false;
  try {
    const admin = new Admin({ bootstrapServers: cluster.bootstrap.split(','), clientId: 'jepsen-admin', requestTimeoutMs: 5_000, connectTimeoutMs: 3_000 });
    await admin.connect();
    try {
      await createTopics(admin);
      await waitForFullIsr(admin, cluster, 120_000);
      const writers = clients.map((name) => newWriter(name, history, cluster.bootstrap, options));
      const reader = new LiveReader(history, cluster.bootstrap, STRICT_TOPIC, PARTITIONS);
      for (const writer of writers) writer.start();
      reader.start();
      await sleep(2_000 * (options.timeScale ?? 1));
      for (const fault of schedule) {
        progress(`${describeFault(fault)} (acked so far: ${history.acked.length})`);
        await applyFault(cluster, fault, problems);
        await sleep(fault.gapMs);
        checkAlive(cluster, problems);
        if (!fault.overlap) slowestRecoveryMs = Math.max(slowestRecoveryMs, await recover(admin, cluster, options.recoveryTimeoutMs ?? 60_000, problems, `after ${describeFault(fault)}`));
      }
      cluster.heal();
      for (const node of cluster.nodes) node.resume();
      checkAlive(cluster, problems);
      slowestRecoveryMs = Math.max(slowestRecoveryMs, await recover(admin, cluster, options.recoveryTimeoutMs ?? 60_000, problems, 'after the last fault'));
      await sleep(1_000);
      progress(`stopping the writers (acked: ${history.acked.length})`);
      await Promise.all(writers.map((writer) => writer.stop()));
      await reader.stop();
      if (problems.some((problem) => problem.startsWith('recovery'))) await waitForFullIsr(admin, cluster, 120_000).catch(() => undefined);
    } finally {
      await admin.close().catch(() => undefined);
    }
    progress('reading back');
    const readBack = new Map([[STRICT_TOPIC, await readTopic(cluster.bootstrap, STRICT_TOPIC)]]);
    if (clients.includes('acks1')) readBack.set(ACKS1_TOPIC, await readTopic(cluster.bootstrap, ACKS1_TOPIC));
    // Read once the writers stopped; only a value found twice makes it open a file.
    const check = checkHistory(history, readBack, batchProvenance(cluster.nodes.map((node) => cluster.logDir(node.id))));
    passed = check.violations.length === 0 && problems.length === 0;
    const faultsByKind = new Map<FaultKind, number>();
    for (const fault of schedule) faultsByKind.set(fault.kind, (faultsByKind.get(fault.kind) ?? 0) + 1);
    return { seed: options.seed, faults: schedule, faultsByKind, check, clusterProblems: problems, slowestRecoveryMs, elapsedMs: performance.now() - startedAt, workDir: cluster.workDir, passed };
  } finally {
    await cluster.close(passed && options.keepWorkDir !== true);
  }
}

/** The campaign's report as text. */
export function formatCampaign(result: CampaignResult): string {
  const kinds = [...result.faultsByKind].sort((a, b) => b[1] - a[1]).map(([kind, count]) => `${kind} ${count}`).join(', ');
  return [
    `Jepsen-style campaign, seed ${result.seed}: ${result.faults.length} faults (${kinds}) in ${(result.elapsedMs / 1000).toFixed(0)} s; slowest recovery to full ISRs ${(result.slowestRecoveryMs / 1000).toFixed(1)} s`,
    formatCheckReport(result.check),
    result.clusterProblems.length === 0 ? 'cluster: no crash, every restart came up, every recovery in time' : `cluster problems:\n${result.clusterProblems.join('\n')}`,
    result.passed ? 'PASS' : `FAIL (logs and data kept in ${result.workDir})`,
  ].join('\n');
}

function newWriter(name: ClientName, history: History, bootstrap: string, options: CampaignOptions): Writer {
  switch (name) {
    case 'tributary':
      return new TributaryWriter({ client: 'tributary', topic: STRICT_TOPIC, acks: 'all', idempotent: true }, history, bootstrap, PARTITIONS);
    case 'kafkajs':
      return new KafkajsWriter({ client: 'kafkajs', topic: STRICT_TOPIC, acks: 'all', idempotent: true }, history, bootstrap, PARTITIONS);
    case 'confluent':
      return new ConfluentWriter({ client: 'confluent', topic: STRICT_TOPIC, acks: 'all', idempotent: true }, history, bootstrap, PARTITIONS,
        options.python ?? '/usr/bin/python3', confluentWriterScript(import.meta.url));
    case 'acks1':
      return new TributaryWriter({ client: 'acks1', topic: ACKS1_TOPIC, acks: '1', idempotent: false }, history, bootstrap, PARTITIONS, 2);
  }
}

async function createTopics(admin: Admin): Promise<void> {
  for (let attempt = 0; (await admin.describeCluster().catch(() => ({ brokers: [] }))).brokers.length < 3; attempt++) {
    if (attempt >= 600) throw new Error('the cluster did not list 3 brokers within 60 s');
    await sleep(100);
  }
  await admin.createTopics({
    topics: [STRICT_TOPIC, ACKS1_TOPIC].map((topic) => ({ topic, numPartitions: PARTITIONS, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } })),
    timeoutMs: 60_000,
  });
}

/** Applies one fault and heals it. A node that cannot start again is a cluster problem (retried once). */
async function applyFault(cluster: JepsenCluster, fault: Fault, problems: string[]): Promise<void> {
  const node = cluster.node(fault.node);
  switch (fault.kind) {
    case 'sigkill':
      await node.kill9();
      await sleep(fault.durationMs);
      await startAgain(cluster, fault.node, problems);
      return;
    case 'pause':
      node.pause();
      await sleep(fault.durationMs);
      node.resume();
      return;
    case 'restart':
      await node.stop();
      await startAgain(cluster, fault.node, problems);
      return;
    case 'isolate':
      cluster.isolate(fault.node, fault.cutMode);
      break;
    case 'cut-clients':
      cluster.cutClients(fault.node, fault.cutMode);
      break;
    case 'cut-replication':
      cluster.cutPair('replication', fault.node, fault.peer, fault.cutMode);
      break;
    case 'cut-controller':
      cluster.cutPair('controller', fault.node, fault.peer, fault.cutMode);
      break;
  }
  await sleep(fault.durationMs);
  cluster.heal();
}

async function startAgain(cluster: JepsenCluster, id: number, problems: string[]): Promise<void> {
  try {
    await cluster.node(id).start();
  } catch (error) {
    problems.push(`node ${id} did not start: ${String(error).slice(0, 2000)}`);
    await cluster.node(id).start();
  }
}

/** Records (and restarts) nodes that exited without being killed: a crash is a bug. */
function checkAlive(cluster: JepsenCluster, problems: string[]): void {
  for (const node of cluster.nodes) {
    if (!node.running) {
      problems.push(`node ${node.id} exited on its own (crash):\n${node.logTail(30)}`);
      void node.start().catch((error: unknown) => problems.push(`node ${node.id} did not start after its crash: ${String(error).slice(0, 500)}`));
    }
  }
}

/** Waits for full ISRs; a timeout is a cluster problem (the campaign goes on). Returns the wait, ms. */
async function recover(admin: Admin, cluster: JepsenCluster, timeoutMs: number, problems: string[], when: string): Promise<number> {
  const started = performance.now();
  try {
    await waitForFullIsr(admin, cluster, timeoutMs);
  } catch (error) {
    problems.push(`recovery ${when}: ${String(error)}`);
  }
  return performance.now() - started;
}

/** Until every partition of both topics has a leader and 3 in-sync replicas and 3 brokers are registered. */
async function waitForFullIsr(admin: Admin, cluster: JepsenCluster, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  let last = 'nothing yet';
  while (performance.now() < deadline) {
    try {
      const [brokers, topics] = await Promise.all([
        admin.describeCluster(),
        admin.describeTopics({ topics: [STRICT_TOPIC, ACKS1_TOPIC] }),
      ]);
      const partitions = topics.flatMap((topic) => topic.partitions.map((p) => ({ topic: topic.name, ...p })));
      last = `${brokers.brokers.length} brokers; ${partitions.map((p) => `${p.topic}-${p.partition} leader ${p.leader} isr [${p.isr.join(',')}]`).join('; ')}`;
      if (brokers.brokers.length === cluster.nodes.length && partitions.length === 2 * PARTITIONS && partitions.every((p) => p.leader >= 0 && p.isr.length === 3)) return;
    } catch (error) {
      last = String(error);
    }
    await sleep(250);
  }
  throw new Error(`no full ISR within ${timeoutMs} ms; last seen: ${last}`);
}
