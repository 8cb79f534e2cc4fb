/**
 * `npm run bench:unread-responses`: issue 15's unread responses, measured. Two broker processes
 * from the same build, side by side in one run: A with `queued.max.response.bytes` set out of
 * reach (2^53-1: the bound off, as before it existed), B with the default (or `--cap`). Each gets
 * one partition of `--partition-mib` MiB (1 MiB batches), then `--connections` connections each
 * pipeline `--requests` Fetch v11 requests from offset 0 with fetch.max.bytes and
 * max.partition.fetch.bytes of `--fetch-mib` MiB, and never read. Meanwhile a well-behaved
 * connection sends Metadata requests one at a time and counts its answers (it must keep being
 * answered). Printed per broker: RSS before, peak while the readers stall (sampled every 200 ms
 * for `--hold` ms), the growth, the well-behaved answers; then B's peak and growth as ratios of A's.
 */
import { connect, type Socket } from 'node:net';
import { Command } from 'commander';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { encodeFetchRequest } from '../../host/protocol/generated/fetch.js';
import { decodeMetadataResponse, encodeMetadataRequest } from '../../host/protocol/generated/metadata.js';
import { decodeProduceResponse, encodeProduceRequest } from '../../host/protocol/generated/produce.js';
import { encodeRequestHeader } from '../../host/protocol/headers.js';
import { Writer } from '../../host/protocol/writer.js';
import { buildRecordBatch } from '../../host/record/batch-builder.js';
import { BenchBroker, BENCH_HOST } from '../e2e/broker.js';
import { takeBuildSnapshot } from '../e2e/build-snapshot.js';
import { Connection } from './well-behaved.js';

const MIB = 2 ** 20;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const mib = (bytes: number): string => `${(bytes / MIB).toFixed(0)} MiB`;

interface Options { connections: number; requests: number; partitionMib: number; fetchMib: number; hold: number; cap: string | undefined }

interface Result { rssBefore: number; rssPeak: number; answered: number; failed: string | null }

function fetchFrame(correlationId: number, topic: string, maxBytes: number): Buffer {
  const w = new Writer();
  const start = w.reserveInt32();
  encodeRequestHeader(w, { apiKey: ApiKey.Fetch, apiVersion: 11, correlationId, clientId: 'unread' });
  encodeFetchRequest(w, 11, {
    replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
    topics: [{ topic, partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0, logStartOffset: -1, partitionMaxBytes: maxBytes }] }],
    forgottenTopicsData: [], rackId: '',
  });
  w.patchInt32(start, w.length - start - 4);
  return Buffer.from(w.toBuffer());
}

function openPaused(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: BENCH_HOST, port });
    socket.once('connect', () => {
      socket.pause();
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

async function fill(connection: Connection, topic: string, partitionMib: number): Promise<void> {
  const value = Buffer.alloc(MIB - 4096, 0x61);
  for (let i = 0; i < partitionMib; i++) {
    const produced = await connection.request(ApiKey.Produce, 7, encodeProduceRequest, decodeProduceResponse, {
      transactionalId: null, acks: 1, timeoutMs: 30_000,
      topicData: [{ name: topic, partitionData: [{ index: 0, records: buildRecordBatch({ records: [{ key: null, value }] }) }] }],
    });
    const code = produced.responses[0]!.partitionResponses[0]!.errorCode;
    if (code !== 0) throw new Error(`Produce ${i}: error ${code}`);
  }
}

async function measure(label: string, overrides: Record<string, string | number>, options: Options): Promise<Result> {
  const broker = await BenchBroker.start(takeBuildSnapshot(), { overrides: { 'log.segment.bytes': 256 * MIB, ...overrides } });
  const sockets: Socket[] = [];
  try {
    const admin = await Connection.open(BENCH_HOST, broker.port);
    const topic = 'unread-responses';
    // Auto-creation by Metadata, then wait for a leader.
    for (let attempt = 0; attempt < 100; attempt++) {
      const metadata = await admin.request(ApiKey.Metadata, 8, encodeMetadataRequest, decodeMetadataResponse, {
        topics: [{ name: topic }], allowAutoTopicCreation: true, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false,
      });
      if (metadata.topics[0]?.errorCode === 0 && metadata.topics[0].partitions[0]?.leaderId !== -1) break;
      await sleep(100);
    }
    await fill(admin, topic, options.partitionMib);
    await sleep(1000);
    const rssBefore = broker.process.stats().rssBytes;
    let rssPeak = rssBefore;
    const maxBytes = options.fetchMib * MIB;
    let correlationId = 1;
    for (let i = 0; i < options.connections; i++) {
      const socket = await openPaused(broker.port);
      socket.on('error', () => {});
      sockets.push(socket);
      const frames: Buffer[] = [];
      for (let r = 0; r < options.requests; r++) frames.push(fetchFrame(correlationId++, topic, maxBytes));
      socket.write(Buffer.concat(frames));
    }
    let answered = 0;
    let failed: string | null = null;
    const endAtMs = performance.now() + options.hold;
    const probe = (async () => {
      while (performance.now() < endAtMs && failed === null) {
        try {
          await admin.request(ApiKey.Metadata, 8, encodeMetadataRequest, decodeMetadataResponse, {
            topics: [], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false,
          });
          answered++;
        } catch (error) {
          failed = String(error);
        }
        await sleep(50);
      }
    })();
    while (performance.now() < endAtMs) {
      rssPeak = Math.max(rssPeak, broker.process.stats().rssBytes || 0);
      await sleep(200);
    }
    await probe;
    admin.close();
    console.log(`${label}: RSS before ${mib(rssBefore)}, peak ${mib(rssPeak)}, growth ${mib(rssPeak - rssBefore)}; ` +
      `well-behaved Metadata answered ${answered}${failed === null ? '' : `, failed: ${failed}`}`);
    return { rssBefore, rssPeak, answered, failed };
  } finally {
    for (const socket of sockets) socket.destroy();
    await broker.close();
  }
}

async function main(): Promise<void> {
  const opts = new Command('unread-responses')
    .option('--connections <n>', 'connections that pipeline Fetch and never read', '50')
    .option('--requests <n>', 'Fetch requests each of them pipelines', '2')
    .option('--partition-mib <n>', 'MiB in the partition', '100')
    .option('--fetch-mib <n>', 'fetch.max.bytes and max.partition.fetch.bytes of each Fetch, MiB', '50')
    .option('--hold <ms>', 'how long the readers stall while RSS is sampled', '10000')
    .option('--cap <bytes>', 'queued.max.response.bytes of broker B (default: the default)')
    .parse()
    .opts<{ connections: string; requests: string; partitionMib: string; fetchMib: string; hold: string; cap?: string }>();
  const options: Options = {
    connections: Number(opts.connections), requests: Number(opts.requests), partitionMib: Number(opts.partitionMib),
    fetchMib: Number(opts.fetchMib), hold: Number(opts.hold), cap: opts.cap,
  };
  console.log(`${options.connections} connections x ${options.requests} pipelined Fetch of ${options.fetchMib} MiB, partition ${options.partitionMib} MiB, not reading`);
  const unbounded = await measure('A queued.max.response.bytes off', { 'queued.max.response.bytes': Number.MAX_SAFE_INTEGER }, options);
  const bounded = await measure(`B queued.max.response.bytes ${options.cap ?? 'default'}`,
    options.cap === undefined ? {} : { 'queued.max.response.bytes': options.cap }, options);
  const ratio = (b: number, a: number): string => (a > 0 ? (b / a).toFixed(2) : 'n/a');
  console.log(`B/A: peak RSS ${ratio(bounded.rssPeak, unbounded.rssPeak)}, growth ${ratio(bounded.rssPeak - bounded.rssBefore, unbounded.rssPeak - unbounded.rssBefore)}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
