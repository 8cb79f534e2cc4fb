/**
 * What the clients of a Jepsen-style campaign saw, as it happened: every write a producer was told
 * was acknowledged (topic, partition, offset, value), every write whose outcome is unknown (an
 * error or a timeout: it may or may not be in the log), and every record a live consumer read.
 * The {@link checkHistory} function (checker.ts) compares it with what is read back at the end.
 *
 * Values name their writer and its sequence number: `<client>-<seq>`, seq counting from 0 per
 * client, so a value read back tells who wrote it and in which order.
 */

/** How a client writes: its acks level and whether the producer is idempotent. */
export interface ClientSpec {
  /** Value prefix and report name, e.g. `kafkajs`. */
  readonly client: string;
  readonly topic: string;
  readonly acks: 'all' | '1';
  readonly idempotent: boolean;
}

/** One acknowledged write. */
export interface AckedWrite {
  readonly client: string;
  readonly topic: string;
  readonly partition: number;
  /** -1 when the client did not say (librdkafka reports some idempotent deliveries without an offset). */
  readonly offset: number;
  readonly value: string;
}

/** One record as read (by the live consumer or the final read-back). */
export interface ReadRecord {
  readonly partition: number;
  readonly offset: number;
  readonly value: string;
}

/** The value a client writes as its `seq`-th record. */
export function valueFor(client: string, seq: number): string {
  return `${client}-${seq}`;
}

/** `{client, seq}` of a value written by {@link valueFor}, or undefined for anything else. */
export function parseValue(value: string): { client: string; seq: number } | undefined {
  const dash = value.lastIndexOf('-');
  if (dash <= 0) return undefined;
  const seq = Number(value.slice(dash + 1));
  if (!Number.isSafeInteger(seq) || seq < 0) return undefined;
  return { client: value.slice(0, dash), seq };
}

/** The record of one campaign's client operations. */
export class History {
  readonly specs = new Map<string, ClientSpec>();
  readonly acked: AckedWrite[] = [];
  /** client → values whose outcome is unknown. */
  readonly indeterminate = new Map<string, Set<string>>();
  /** client → values handed to the producer. */
  readonly attempted = new Map<string, number>();
  /** client → client-side errors seen (by message, counted), for the report. */
  readonly errors = new Map<string, Map<string, number>>();
  /**
   * Fatal client errors, whole and in order (`<ISO time> <client>: <message>`): an idempotent
   * producer that gives up (librdkafka's fatal OUT_OF_ORDER_SEQUENCE_NUMBER, for one) means the
   * cluster broke its idempotence contract, which the checker counts as a violation.
   */
  readonly fatalErrors: string[] = [];
  /** The live consumer's reads: `topic-partition` → offset → value (the first value seen there). */
  readonly observed = new Map<string, Map<number, string>>();
  /** Live reads that disagreed with an earlier live read at the same offset. */
  readonly observedConflicts: string[] = [];
  /** Times the live consumer read an offset at or below one it had read before (a reset or a rewind). */
  observedRewinds = 0;

  /** Declares a writer (before its first write). */
  register(spec: ClientSpec): void {
    this.specs.set(spec.client, spec);
    this.attempted.set(spec.client, 0);
    this.indeterminate.set(spec.client, new Set());
    this.errors.set(spec.client, new Map());
  }

  /** A writer hands `value` to its producer. */
  attempt(client: string): void {
    this.attempted.set(client, (this.attempted.get(client) ?? 0) + 1);
  }

  /** `value` was acknowledged at `partition`/`offset` (-1: at an offset the client did not tell). */
  ack(client: string, partition: number, offset: number, value: string): void {
    const spec = this.specs.get(client);
    if (spec === undefined) throw new Error(`unregistered client ${client}`);
    this.acked.push({ client, topic: spec.topic, partition, offset, value });
  }

  /** `value` failed or timed out: it may or may not be in the log. */
  fail(client: string, value: string, error: unknown): void {
    this.indeterminate.get(client)?.add(value);
    const message = (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).slice(0, 120);
    const byMessage = this.errors.get(client);
    if (byMessage !== undefined) byMessage.set(message, (byMessage.get(message) ?? 0) + 1);
  }

  /** The client's producer failed fatally (it is replaced; its outstanding writes are reported by {@link fail}). */
  fatal(client: string, message: string, atMs: number): void {
    this.fatalErrors.push(`${new Date(atMs).toISOString()} ${client}: ${message}`);
    this.fail(client, `${client}-fatal`, new Error(`fatal: ${message}`));
  }

  /** The live consumer read `record` from `topic`. */
  observe(topic: string, record: ReadRecord, lastOffsetRead: number | undefined): void {
    const key = `${topic}-${record.partition}`;
    let byOffset = this.observed.get(key);
    if (byOffset === undefined) this.observed.set(key, (byOffset = new Map()));
    if (lastOffsetRead !== undefined && record.offset <= lastOffsetRead) this.observedRewinds++;
    const earlier = byOffset.get(record.offset);
    if (earlier === undefined) byOffset.set(record.offset, record.value);
    else if (earlier !== record.value) this.observedConflicts.push(`${key}@${record.offset}: read ${earlier}, later ${record.value}`);
  }

  /** Acknowledged writes per client. */
  ackedCount(client: string): number {
    let count = 0;
    for (const write of this.acked) if (write.client === client) count++;
    return count;
  }
}
