/**
 * Entry point of the load-generator child processes: `node dist/bench/e2e/load-main.js <mode>
 * '<json spec>'`. Load runs in its own process, as kcat does, so that it never shares an event
 * loop with the harness or the server under measurement. The result is one JSON line on stdout
 * (LoadResult); failures print the error on stderr and exit 1.
 */
import { runKafkajsLatency, runTsConsume, runTsCreateTopic, runTsLatency, runTsProduce } from './load-ts-client.js';
import { runNatsConsume, runNatsLatency, runNatsProduce } from './load-nats.js';
import { runRedisConsume, runRedisLatency, runRedisProduce } from './load-redis.js';
import { runRawConsume, runRawProduce } from './load-raw.js';
import { runTcpSend, runTcpSink } from './load-tcp.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const MODES: Record<string, (spec: any) => Promise<unknown>> = {
  'tcp-sink': runTcpSink,
  'tcp-send': runTcpSend,
  'ts-produce': runTsProduce,
  'ts-consume': runTsConsume,
  'ts-latency': runTsLatency,
  'ts-create-topic': runTsCreateTopic,
  'raw-produce': runRawProduce,
  'raw-consume': runRawConsume,
  'kafkajs-latency': runKafkajsLatency,
  'nats-produce': runNatsProduce,
  'nats-consume': runNatsConsume,
  'nats-latency': runNatsLatency,
  'redis-produce': runRedisProduce,
  'redis-consume': runRedisConsume,
  'redis-latency': runRedisLatency,
};

async function main(): Promise<void> {
  const [mode, specText] = process.argv.slice(2);
  const run = mode === undefined ? undefined : MODES[mode];
  if (run === undefined || specText === undefined) {
    throw new Error(`usage: load-main.js <${Object.keys(MODES).join('|')}> '<json spec>'`);
  }
  const result = await run(JSON.parse(specText));
  if (result !== undefined) process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
    process.exit(1);
  },
);
