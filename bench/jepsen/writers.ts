/**
 * The clients of a Jepsen-style campaign: real producers writing `<client>-<seq>` values round
 * robin over a topic's partitions (one record per partition per request, a few requests in
 * flight), recording every acknowledgement and every failure in the {@link History}; and a live
 * consumer reading the acks=all topic as it grows.
 *
 * - `tributary`: our TypeScript Producer (host/clients), idempotent, acks=all, 4 send() calls in flight;
 * - `kafkajs`: kafkajs 2.x, idempotent, acks=-1, one request in flight (kafkajs' idempotence rule),
 *   one record per send() (round robin), and a new producer after a failed send. kafkajs 2.2.4
 *   keeps a partition's sequence number when a send fails, even when the broker appended the
 *   batch, and gives the next record the same sequence: the broker then takes it for a retry and
 *   acknowledges it at the earlier record's offset (Kafka's duplicate-batch rule), so the new record
 *   is acknowledged but never written. A retried multi-partition send also re-sends partitions
 *   that succeeded, under new sequence numbers (a duplicate). A new producer (a new producer id)
 *   after any failure is the application-side workaround (the Java producer bumps its epoch);
 * - `confluent`: confluent-kafka (librdkafka) in its own Python process (ck-writer.py), idempotent, acks=all;
 * - `acks1`: our Producer with acks=1 and no idempotence, on its own topic: may lose writes (reported).
 *
 * Writers pace themselves (a short pause between requests) so the campaign measures faults, not
 * the machine's throughput; a failed request backs off a little before the next.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Kafka, logLevel, type Producer as KafkajsProducer } from 'kafkajs';
import { Consumer } from '../../host/clients/consumer.js';
import { Producer } from '../../host/clients/producer.js';
import { type ClientSpec, type History, valueFor } from './history.js';

/** One producer of the campaign. */
export interface Writer {
  readonly spec: ClientSpec;
  /** Starts writing (returns at once). */
  start(): void;
  /** Stops writing, waits for the outstanding requests' outcomes, closes the client. */
  stop(): Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Shared loop: `inFlight` lanes, each sending one request at a time. */
abstract class PacedWriter implements Writer {
  private stopped = false;
  private lanes: Promise<void>[] = [];
  private seq = 0;

  /**
   * @param recordsPerRequest records per request, on consecutive partitions (round robin); the
   *   partition count writes one record to every partition per request
   */
  constructor(readonly spec: ClientSpec, protected readonly history: History, private readonly partitions: number, private readonly inFlight: number,
    private readonly pauseMs: number, private readonly recordsPerRequest = partitions) {
    history.register(spec);
  }

  start(): void {
    this.lanes = Array.from({ length: this.inFlight }, () => this.lane());
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.lanes);
    await this.close();
  }

  /** Sends one record per partition; resolves with each one's offset, in the order given. */
  protected abstract sendRequest(messages: { partition: number; value: string }[]): Promise<number[]>;
  protected abstract close(): Promise<void>;

  /** Called after a failed request, before the next one. */
  protected async afterFailure(): Promise<void> {}

  private async lane(): Promise<void> {
    while (!this.stopped) {
      const messages = Array.from({ length: this.recordsPerRequest }, () => {
        this.history.attempt(this.spec.client);
        const seq = this.seq++;
        return { partition: seq % this.partitions, value: valueFor(this.spec.client, seq) };
      });
      try {
        const offsets = await this.sendRequest(messages);
        messages.forEach((message, i) => this.history.ack(this.spec.client, message.partition, offsets[i]!, message.value));
        await sleep(this.pauseMs);
      } catch (error) {
        for (const message of messages) this.history.fail(this.spec.client, message.value, error);
        await this.afterFailure();
        await sleep(200);
      }
    }
  }
}

/** Our Producer (host/clients). */
export class TributaryWriter extends PacedWriter {
  private readonly producer: Producer;

  /** @param inFlight send() calls awaiting their answer at once */
  constructor(spec: ClientSpec, history: History, bootstrap: string, partitions: number, inFlight = 4) {
    super(spec, history, partitions, inFlight, 20);
    this.producer = new Producer({
      bootstrapServers: bootstrap.split(','),
      clientId: `jepsen-${spec.client}`,
      acks: spec.acks === 'all' ? -1 : 1,
      enableIdempotence: spec.idempotent,
      deliveryTimeoutMs: 30_000,
      requestTimeoutMs: 5_000,
      connectTimeoutMs: 3_000,
      lingerMs: 2,
      allowAutoTopicCreation: false,
      metadataMaxAgeMs: 5_000,
    });
  }

  protected async sendRequest(messages: { partition: number; value: string }[]): Promise<number[]> {
    const metadata = await this.producer.send({ topic: this.spec.topic, messages });
    return metadata.map((m) => m.offset);
  }

  protected close(): Promise<void> {
    return this.producer.close({ timeoutMs: 30_000 });
  }
}

/** kafkajs 2.x (see the file header for why a failed send replaces the producer). */
export class KafkajsWriter extends PacedWriter {
  private readonly kafka: Kafka;
  private producer: KafkajsProducer;
  private connected: Promise<void> | undefined;

  constructor(spec: ClientSpec, history: History, bootstrap: string, partitions: number) {
    super(spec, history, partitions, 1, 10, 1);
    this.kafka = new Kafka({
      clientId: `jepsen-${spec.client}`, brokers: bootstrap.split(','), logLevel: logLevel.NOTHING,
      connectionTimeout: 3_000, requestTimeout: 5_000, retry: { retries: 10, initialRetryTime: 100, maxRetryTime: 2_000 },
    });
    this.producer = this.newProducer();
  }

  private newProducer(): KafkajsProducer {
    return this.kafka.producer({ idempotent: this.spec.idempotent, maxInFlightRequests: 1, allowAutoTopicCreation: false, metadataMaxAge: 5_000 });
  }

  protected async sendRequest(messages: { partition: number; value: string }[]): Promise<number[]> {
    this.connected ??= this.producer.connect().catch((error: unknown) => {
      this.connected = undefined;
      throw error;
    });
    await this.connected;
    const answers = await this.producer.send({ topic: this.spec.topic, acks: this.spec.acks === 'all' ? -1 : 1, timeout: 5_000, messages });
    return messages.map((message) => {
      const answer = answers.find((a) => a.partition === message.partition);
      if (answer === undefined || answer.baseOffset === undefined) throw new Error(`no offset for partition ${message.partition}`);
      return Number(answer.baseOffset);
    });
  }

  protected override async afterFailure(): Promise<void> {
    const old = this.producer;
    this.producer = this.newProducer();
    this.connected = undefined;
    await old.disconnect().catch(() => undefined);
  }

  protected async close(): Promise<void> {
    await this.producer.disconnect().catch(() => undefined);
  }
}

/**
 * confluent-kafka (librdkafka) in a Python process: ck-writer.py writes the values itself and
 * prints one JSON line per delivery report; stdin's end asks it to flush and exit.
 */
export class ConfluentWriter implements Writer {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private readonly stderrTail: string[] = [];

  constructor(readonly spec: ClientSpec, private readonly history: History, private readonly bootstrap: string, private readonly partitions: number,
    private readonly python: string, private readonly script: string) {
    history.register(spec);
  }

  start(): void {
    const args = JSON.stringify({ bootstrap: this.bootstrap, topic: this.spec.topic, partitions: this.partitions, client: this.spec.client, in_flight: 8, pause_s: 0.02 });
    const child = spawn(this.python, [this.script, args], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child = child;
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      this.stderrTail.push(chunk);
      if (this.stderrTail.length > 20) this.stderrTail.shift();
    });
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => this.onLine(line));
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
  }

  private onLine(line: string): void {
    let event: { v?: string; p?: number; o?: number; e?: string | null; attempt?: boolean; fatal?: string };
    try {
      event = JSON.parse(line) as typeof event;
    } catch {
      return;
    }
    if (event.attempt === true) this.history.attempt(this.spec.client);
    else if (event.fatal !== undefined) this.history.fatal(this.spec.client, event.fatal, Date.now());
    else if (event.v !== undefined && (event.e === null || event.e === undefined) && typeof event.o === 'number') this.history.ack(this.spec.client, event.p!, event.o, event.v);
    else if (event.v !== undefined) this.history.fail(this.spec.client, event.v, new Error(event.e ?? 'no offset'));
  }

  async stop(): Promise<void> {
    if (this.child === undefined) return;
    this.child.stdin!.end();
    const timer = setTimeout(() => this.child?.kill('SIGKILL'), 60_000);
    await this.exited;
    clearTimeout(timer);
    if (this.child.exitCode !== 0) {
      this.history.fail(this.spec.client, `${this.spec.client}-exit`, new Error(`ck-writer.py exited ${this.child.exitCode}: ${this.stderrTail.join('').slice(-300)}`));
    }
  }
}

/** The path of ck-writer.py next to this module's source (dist/bench/jepsen → bench/jepsen). */
export function confluentWriterScript(moduleUrl: string): string {
  const here = path.dirname(new URL(moduleUrl).pathname);
  const fromDist = here.includes(`${path.sep}dist${path.sep}`) ? here.replace(`${path.sep}dist${path.sep}`, path.sep) : here;
  return path.join(fromDist, 'ck-writer.py');
}

/**
 * A consumer reading every partition of `topic` from the start while the faults strike (our
 * Consumer, assign, auto.offset.reset=earliest), handing each record to the history: what a
 * consumer reads is below the high watermark, so it must never change afterwards.
 */
export class LiveReader {
  private stopped = false;
  private done: Promise<void> = Promise.resolve();
  private readonly consumer: Consumer;
  private readonly lastOffset = new Map<number, number>();
  errors = 0;

  constructor(private readonly history: History, bootstrap: string, private readonly topic: string, private readonly partitions: number) {
    this.consumer = new Consumer({
      bootstrapServers: bootstrap.split(','), clientId: 'jepsen-live-reader', autoOffsetReset: 'earliest',
      fetchMaxWaitMs: 300, requestTimeoutMs: 5_000, connectTimeoutMs: 3_000, metadataMaxAgeMs: 5_000, maxPollRecords: 2_000,
    });
  }

  start(): void {
    this.consumer.assign(Array.from({ length: this.partitions }, (_, partition) => ({ topic: this.topic, partition })));
    this.done = (async () => {
      while (!this.stopped) {
        try {
          for (const record of await this.consumer.poll(500)) {
            const value = record.value === null ? '' : record.value.toString('utf8');
            this.history.observe(this.topic, { partition: record.partition, offset: record.offset, value }, this.lastOffset.get(record.partition));
            this.lastOffset.set(record.partition, record.offset);
          }
        } catch {
          this.errors++;
          await sleep(200);
        }
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.done;
    await this.consumer.close().catch(() => undefined);
  }
}
