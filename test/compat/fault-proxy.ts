/**
 * A TCP proxy between Kafka clients and the broker that can lose a response on
 * purpose: the request reaches the broker (so it takes effect), the response is
 * discarded and the client's connection is closed. The client cannot know
 * whether its request was applied and must retry — the situation the
 * idempotent producer exists for.
 *
 * The broker must advertise the proxy (`advertised.listeners=PLAINTEXT://127.0.0.1:<proxy port>`)
 * so clients keep talking through it after the bootstrap Metadata.
 *
 * Frames are Kafka's: int32 size, then (requests) int16 api_key, int16
 * api_version, int32 correlation_id, ...; (responses) int32 correlation_id, ...
 */
import { createServer, Socket, type Server } from 'node:net';

/** Identity of one RecordBatch seen in a Produce request (v3+ layout), for diagnosing idempotence. */
export interface ProducedBatch {
  topic: string;
  partition: number;
  producerId: bigint;
  producerEpoch: number;
  baseSequence: number;
  recordCount: number;
  /** Whether the response to the request carrying it was dropped. */
  responseDropped: boolean;
}

interface InFlight {
  correlationId: number;
  apiKey: number;
  drop: boolean;
  batches: ProducedBatch[];
}

export class FaultProxy {
  /** Every batch of every Produce request (v3+) seen, in arrival order. */
  readonly producedBatches: ProducedBatch[] = [];
  /** Requests seen per api key (client → broker). */
  readonly requestsByApiKey = new Map<number, number>();
  /** Responses dropped so far. */
  dropped = 0;
  /** Called right after a response was dropped (and the connection closed), e.g. to crash the broker at that moment. */
  onDrop: ((apiKey: number) => void) | undefined;
  private target: { host: string; port: number } | undefined;
  private readonly pendingDrops = new Map<number, number>();
  /** apiKey -> absolute request numbers (1-based, per api key) whose responses are dropped. */
  private readonly dropAtRequest = new Map<number, Set<number>>();
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly server: Server, readonly port: number) {}

  /** Listens on 127.0.0.1 on a free port. Call {@link setTarget} before clients connect. */
  static async start(): Promise<FaultProxy> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('proxy has no port');
    const proxy = new FaultProxy(server, address.port);
    server.on('connection', (client) => proxy.accept(client));
    return proxy;
  }

  setTarget(host: string, port: number): void {
    this.target = { host, port };
  }

  /** The responses to the next `count` requests with `apiKey` are dropped (connection closed instead). */
  dropResponses(apiKey: number, count: number): void {
    this.pendingDrops.set(apiKey, (this.pendingDrops.get(apiKey) ?? 0) + count);
  }

  /** The response to the `nth` request with `apiKey` from now on (1 = the next one) is dropped. */
  dropResponseToNth(apiKey: number, nth: number): void {
    const target = (this.requestsByApiKey.get(apiKey) ?? 0) + nth;
    const set = this.dropAtRequest.get(apiKey) ?? new Set<number>();
    set.add(target);
    this.dropAtRequest.set(apiKey, set);
  }

  /** Drops still armed for `apiKey`. */
  pendingDropsFor(apiKey: number): number {
    return this.pendingDrops.get(apiKey) ?? 0;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    const target = this.target;
    if (target === undefined) {
      client.destroy();
      return;
    }
    const upstream = new Socket();
    this.sockets.add(client);
    this.sockets.add(upstream);
    const inFlight: InFlight[] = [];
    const closeBoth = (): void => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    client.on('error', closeBoth);
    upstream.on('error', closeBoth);
    client.on('close', closeBoth);
    upstream.on('close', closeBoth);
    upstream.connect(target.port, target.host);

    splitFrames(client, (frame) => {
      if (frame.length >= 12) {
        const apiKey = frame.readInt16BE(4);
        const correlationId = frame.readInt32BE(8);
        const number = (this.requestsByApiKey.get(apiKey) ?? 0) + 1;
        this.requestsByApiKey.set(apiKey, number);
        const armed = this.pendingDrops.get(apiKey) ?? 0;
        if (armed > 0) this.pendingDrops.set(apiKey, armed - 1);
        const atThisOne = this.dropAtRequest.get(apiKey)?.delete(number) ?? false;
        const drop = armed > 0 || atThisOne;
        const batches = apiKey === 0 ? parseProduceBatches(frame) : [];
        this.producedBatches.push(...batches);
        inFlight.push({ correlationId, apiKey, drop, batches });
      }
      upstream.write(frame);
    });
    splitFrames(upstream, (frame) => {
      const correlationId = frame.length >= 8 ? frame.readInt32BE(4) : -1;
      const index = inFlight.findIndex((entry) => entry.correlationId === correlationId);
      const entry = index >= 0 ? inFlight.splice(index, 1)[0] : undefined;
      if (entry?.drop) {
        this.dropped++;
        for (const batch of entry.batches) batch.responseDropped = true;
        closeBoth();
        this.onDrop?.(entry.apiKey);
        return;
      }
      client.write(frame);
    });
  }
}

/** Calls `onFrame` with each complete size-prefixed frame (size field included). */
function splitFrames(socket: Socket, onFrame: (frame: Buffer) => void): void {
  let buffered: Buffer = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    while (buffered.length >= 4) {
      const size = buffered.readInt32BE(0);
      if (size < 0 || buffered.length < 4 + size) break;
      onFrame(buffered.subarray(0, 4 + size));
      buffered = buffered.subarray(4 + size);
    }
  });
}

/**
 * Best-effort parse of a Produce request v3–v8 (non-flexible): header v1, transactional_id,
 * acks, timeout, [topic [partition, records]]; reads the RecordBatch v2 producer fields
 * (producerId @43, producerEpoch @51, baseSequence @53, recordCount @57). Returns [] on anything else.
 */
export function parseProduceBatches(frame: Buffer): ProducedBatch[] {
  try {
    const version = frame.readInt16BE(6);
    if (version < 3 || version > 8) return [];
    let at = 12;
    const clientIdLength = frame.readInt16BE(at);
    at += 2 + Math.max(0, clientIdLength);
    const transactionalIdLength = frame.readInt16BE(at);
    at += 2 + Math.max(0, transactionalIdLength);
    at += 2 + 4; // acks, timeout
    const batches: ProducedBatch[] = [];
    const topicCount = frame.readInt32BE(at);
    at += 4;
    for (let t = 0; t < topicCount; t++) {
      const nameLength = frame.readInt16BE(at);
      const topic = frame.toString('utf8', at + 2, at + 2 + nameLength);
      at += 2 + nameLength;
      const partitionCount = frame.readInt32BE(at);
      at += 4;
      for (let p = 0; p < partitionCount; p++) {
        const partition = frame.readInt32BE(at);
        const size = frame.readInt32BE(at + 4);
        const records = frame.subarray(at + 8, at + 8 + Math.max(0, size));
        at += 8 + Math.max(0, size);
        for (let b = 0; b + 61 <= records.length;) {
          batches.push({
            topic,
            partition,
            producerId: records.readBigInt64BE(b + 43),
            producerEpoch: records.readInt16BE(b + 51),
            baseSequence: records.readInt32BE(b + 53),
            recordCount: records.readInt32BE(b + 57),
            responseDropped: false,
          });
          b += 12 + records.readInt32BE(b + 8);
        }
      }
    }
    return batches;
  } catch {
    return [];
  }
}

