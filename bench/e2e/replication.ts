/**
 * `npm run bench:replication [-- --records 200000 --size 100 --runs 3]`: what replication costs.
 * Starts three broker processes as one KRaft cluster (combined broker+controller nodes on
 * 127.0.0.1, as the README's "Run a cluster" says), creates a topic with replication.factor 1 and
 * one with replication.factor 3 (min.insync.replicas 2), and produces the same records with kcat
 * to each, alternating: RF 1 with acks=1 (the baseline, no replication) and RF 3 with acks=all
 * (every write waits for the in-sync replicas). Prints MB/s per run and the ratio RF3/RF1 of the
 * medians, measured in the same run. Then, when `nats-server` is on PATH (Debian: apt-get install
 * nats-server; not needed by the tests), the same records on NATS JetStream with 3 replicas: three
 * nats-server processes clustered on 127.0.0.1, a file-stored stream with num_replicas 3, published
 * by nats.js with a PubAck per message (4,096 in flight, load-nats.ts) from its own process, and
 * the ratio Tributary RF3 acks=all / NATS R3. Not a test: it fails only on errors.
 */
import { Command } from 'commander';
import { Admin } from '../../host/clients/admin.js';
import { takeBuildSnapshot, type BuildSnapshot } from './build-snapshot.js';
import { BENCH_HOST, BenchBroker } from './broker.js';
import { runLoad } from './child-run.js';
import { kcatProduce, kcatVersion, PayloadFiles } from './kcat.js';
import { PeerServer, serverVersion } from './peers.js';
import { freePort } from './server-process.js';

interface Options {
  records: string;
  size: string;
  runs: string;
}

const NODES = 3;

/** Starts `NODES` combined nodes forming one quorum; resolves when each answers Metadata. */
async function startCluster(snapshot: BuildSnapshot): Promise<BenchBroker[]> {
  const ids = Array.from({ length: NODES }, (_, i) => i + 1);
  const ports = await Promise.all(ids.map(async () => ({ client: await freePort(), controller: await freePort() })));
  const voters = ids.map((id, i) => `${id}@${BENCH_HOST}:${ports[i]!.controller}`).join(',');
  return Promise.all(ids.map((id, i) => BenchBroker.start(snapshot, {
    port: ports[i]!.client,
    overrides: {
      'process.roles': 'broker,controller',
      'node.id': id,
      listeners: `PLAINTEXT://${BENCH_HOST}:${ports[i]!.client},CONTROLLER://${BENCH_HOST}:${ports[i]!.controller}`,
      'controller.listener.names': 'CONTROLLER',
      'inter.broker.listener.name': 'PLAINTEXT',
      'controller.quorum.voters': voters,
    },
  })));
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

async function main(): Promise<void> {
  const options = new Command('bench:replication')
    .option('--records <n>', 'records per run', '200000')
    .option('--size <bytes>', 'record value size', '100')
    .option('--runs <n>', 'runs per configuration (alternating)', '3')
    .parse()
    .opts<Options>();
  const records = Number(options.records);
  const size = Number(options.size);
  const runs = Number(options.runs);
  if (kcatVersion() === null) throw new Error('kcat is not on PATH (Debian: apt-get install kcat)');
  const snapshot = takeBuildSnapshot();
  const payloads = new PayloadFiles();
  const brokers = await startCluster(snapshot);
  const bootstrap = brokers.map((b) => b.bootstrap);
  const configurations = [
    { name: 'RF 1, acks=1 (baseline)', topic: 'rf1', acks: 1 as const },
    { name: 'RF 3, acks=all, min.insync.replicas=2', topic: 'rf3', acks: -1 as const },
  ];
  const mbPerSecond = configurations.map(() => [] as number[]);
  try {
    const admin = new Admin({ bootstrapServers: bootstrap, clientId: 'bench-replication' });
    await admin.connect();
    try {
      // Every node answers Metadata before all have registered with the controller: wait for three.
      for (let attempt = 0; (await admin.describeCluster()).brokers.length < NODES; attempt++) {
        if (attempt === 600) throw new Error(`the cluster did not list ${NODES} brokers within 60 s`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await admin.createTopics({
        topics: [
          { topic: 'rf1', numPartitions: 3, replicationFactor: 1 },
          { topic: 'rf3', numPartitions: 3, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } },
        ],
        timeoutMs: 60_000,
      });
    } finally {
      await admin.close();
    }
    const file = payloads.file(records, size);
    for (let run = 0; run < runs; run++) {
      for (const [i, configuration] of configurations.entries()) {
        const result = await kcatProduce({
          bootstrap: bootstrap.join(','), topic: configuration.topic, file, records, size, acks: configuration.acks,
          lingerMs: 5, batchMessages: 10_000, timeoutMs: 300_000,
        });
        const rate = result.bytes / 1e6 / (result.elapsedMs / 1000);
        mbPerSecond[i]!.push(rate);
        process.stderr.write(`[bench:replication] run ${run + 1}/${runs} ${configuration.name}: ${rate.toFixed(1)} MB/s\n`);
      }
    }
    console.log(`\nReplication cost: ${records} records of ${size} B per run, ${runs} runs each, alternating, kcat -P, 3 local brokers`);
    for (const [i, configuration] of configurations.entries()) {
      const rates = mbPerSecond[i]!;
      console.log(`  ${configuration.name.padEnd(42)} ${median(rates).toFixed(1).padStart(7)} MB/s (min ${Math.min(...rates).toFixed(1)}, max ${Math.max(...rates).toFixed(1)})`);
    }
    console.log(`  ratio RF3 acks=all / RF1 acks=1 (medians): ${(median(mbPerSecond[1]!) / median(mbPerSecond[0]!)).toFixed(2)}`);
  } finally {
    await Promise.all(brokers.map((broker) => broker.close()));
    payloads.remove();
    snapshot.remove();
  }
  if (mbPerSecond[1]!.length === runs) await natsLeg(records, size, runs, median(mbPerSecond[1]!));
}

/** NATS JetStream R3 beside Tributary RF3 acks=all (see the file header); skipped without nats-server. */
async function natsLeg(records: number, size: number, runs: number, tributaryRf3MbPerSecond: number): Promise<void> {
  const version = serverVersion('nats-server');
  if (version === null) {
    console.log('  NATS JetStream R3: skipped (nats-server is not on PATH; Debian: apt-get install nats-server)');
    return;
  }
  const servers = await PeerServer.startNatsCluster(3);
  const rates: number[] = [];
  try {
    for (let run = 0; run < runs; run++) {
      const spec = { port: servers[run % servers.length]!.port, ports: servers.map((s) => s.port), stream: `R3RUN${run}`, records, size, replicas: 3 };
      const result = await runLoad('nats-produce', spec, 600_000);
      const rate = result.bytes / 1e6 / (result.elapsedMs / 1000);
      rates.push(rate);
      process.stderr.write(`[bench:replication] run ${run + 1}/${runs} NATS JetStream R3: ${rate.toFixed(1)} MB/s\n`);
    }
  } finally {
    await Promise.all(servers.map((server) => server.close()));
  }
  console.log(`  ${`NATS JetStream R3 (${version.replace(/^nats-server: /, '')}, file store)`.padEnd(42)} ${median(rates).toFixed(1).padStart(7)} MB/s (min ${Math.min(...rates).toFixed(1)}, max ${Math.max(...rates).toFixed(1)}); nats.js, PubAck per message, 4,096 in flight`);
  console.log(`  ratio Tributary RF3 acks=all / NATS R3 (medians): ${(tributaryRf3MbPerSecond / median(rates)).toFixed(2)}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
