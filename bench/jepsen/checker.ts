/**
 * The Jepsen-style check: a campaign's {@link History} against the topics read back from offset 0
 * to their ends after every fault healed. Per client it counts
 *
 * - `lost`: acknowledged values found nowhere in the topic;
 * - `ackedWithoutOffset`: acknowledged without an offset (librdkafka does so for idempotent batches
 *   it knows were persisted only because later ones were acknowledged): checked for presence only;
 * - `offsetChanged`: acknowledged at offset o, but o now holds another value (or nothing) — an
 *   offset that changed meaning (a lost value usually counts here too);
 * - `duplicated`: values present at more than one offset (idempotence must prevent it), except
 * - `resent`: duplicates whose copies the stored batch headers show under different producer ids
 *   or epochs (batch-provenance.ts): the client sent the value again after an epoch bump, which
 *   Kafka's idempotence does not cover (librdkafka#4953) — reported, allowed. Without a
 *   provenance every duplicate counts as `duplicated`;
 * - `reordered`: acknowledged writes of one partition whose offsets do not grow with the order the
 *   client wrote them (Kafka keeps per-partition order for an idempotent producer);
 * - `indeterminate` / `indeterminatePresent`: writes with an unknown outcome, and how many of them
 *   are in the log (both are allowed);
 *
 * and over every topic, `unexpected` values nobody wrote, the clients' fatal errors (`fatalErrors`:
 * an idempotent producer must not fail fatally across leader changes, restarts and partitions), and for the live consumer the offsets
 * whose value changed after it read them (`readerChanged`: a consumer reads only up to the high
 * watermark, which Kafka never takes back without unclean leader election).
 *
 * Kafka's promise, and so the verdict: for acks=all clients (min.insync.replicas=2), lost,
 * offsetChanged, and reordered must be 0, and duplicated too when idempotent; acks=1 clients may
 * lose acknowledged writes when a leader dies before its followers copied them: their figures are
 * reported, never a failure. The live consumer must see no changed offset, and no client may
 * report a fatal error.
 */
import { type BatchProvenance, describeOrigin } from './batch-provenance.js';
import { type ClientSpec, type History, parseValue, type ReadRecord } from './history.js';

export interface ClientReport {
  readonly spec: ClientSpec;
  readonly attempted: number;
  readonly acked: number;
  readonly ackedWithoutOffset: number;
  readonly indeterminate: number;
  readonly indeterminatePresent: number;
  readonly lost: number;
  readonly offsetChanged: number;
  readonly duplicated: number;
  /** Duplicates the client itself re-sent under another producer id or epoch (allowed). */
  readonly resent: number;
  readonly reordered: number;
  /** Client-side errors by message (count), most frequent first. */
  readonly errors: readonly [string, number][];
  /** Up to 10 examples of violations, human-readable. */
  readonly examples: readonly string[];
  /** Up to 10 examples of re-sent duplicates, with each copy's batch header. */
  readonly resentExamples: readonly string[];
}

export interface CheckReport {
  readonly clients: readonly ClientReport[];
  /** Records read back per topic. */
  readonly readBack: ReadonlyMap<string, number>;
  readonly unexpected: number;
  /** Records the live consumer read. */
  readonly readerObserved: number;
  /** Offsets whose value changed after the live consumer read them (or read twice, differently). */
  readonly readerChanged: number;
  readonly readerRewinds: number;
  /** Fatal client errors, whole (History.fatalErrors). */
  readonly fatalErrors: readonly string[];
  /** Every violation of Kafka's promises (empty when the campaign passes). */
  readonly violations: readonly string[];
}

/** Final contents: topic → partition → records in offset order. */
export type ReadBack = ReadonlyMap<string, ReadonlyMap<number, readonly ReadRecord[]>>;

const MAX_EXAMPLES = 10;

/**
 * Compares `history` with `readBack` (see the file header). `provenance` tells the batch header
 * behind a stored offset; without it no duplicate can count as re-sent.
 */
export function checkHistory(history: History, readBack: ReadBack, provenance?: BatchProvenance): CheckReport {
  // value → every (partition, offset) holding it, per topic; offset → value per topic-partition.
  const where = new Map<string, Map<string, { partition: number; offset: number }[]>>();
  const atOffset = new Map<string, Map<number, string>>();
  const readBackCounts = new Map<string, number>();
  let unexpected = 0;
  const unexpectedExamples: string[] = [];
  for (const [topic, partitions] of readBack) {
    const byValue = new Map<string, { partition: number; offset: number }[]>();
    where.set(topic, byValue);
    let count = 0;
    for (const [partition, records] of partitions) {
      const offsets = new Map<number, string>();
      atOffset.set(`${topic}-${partition}`, offsets);
      for (const record of records) {
        count++;
        offsets.set(record.offset, record.value);
        const list = byValue.get(record.value);
        if (list === undefined) byValue.set(record.value, [{ partition, offset: record.offset }]);
        else list.push({ partition, offset: record.offset });
        const parsed = parseValue(record.value);
        const spec = parsed === undefined ? undefined : history.specs.get(parsed.client);
        if (parsed === undefined || spec === undefined || spec.topic !== topic || parsed.seq >= (history.attempted.get(parsed.client) ?? 0)) {
          unexpected++;
          if (unexpectedExamples.length < MAX_EXAMPLES) unexpectedExamples.push(`${topic}-${partition}@${record.offset}: unexpected value ${record.value}`);
        }
      }
    }
    readBackCounts.set(topic, count);
  }

  const clients: ClientReport[] = [];
  const violations: string[] = [...unexpectedExamples];
  for (const spec of history.specs.values()) {
    const report = checkClient(history, spec, where.get(spec.topic) ?? new Map(), atOffset, provenance);
    clients.push(report);
    const strict = spec.acks === 'all';
    const failures: [string, number][] = strict
      ? [['lost', report.lost], ['offset changed', report.offsetChanged], ['reordered', report.reordered], ...(spec.idempotent ? [['duplicated', report.duplicated] as [string, number]] : [])]
      : [];
    for (const [what, count] of failures) if (count > 0) violations.push(`${spec.client} (acks=${spec.acks}): ${count} ${what}`);
    if (strict && failures.some(([, count]) => count > 0)) violations.push(...report.examples.map((example) => `  ${spec.client}: ${example}`));
  }

  let readerObserved = 0;
  let readerChanged = history.observedConflicts.length;
  for (const conflict of history.observedConflicts.slice(0, MAX_EXAMPLES)) violations.push(`live consumer: ${conflict}`);
  for (const [key, byOffset] of history.observed) {
    const final = atOffset.get(key);
    for (const [offset, value] of byOffset) {
      readerObserved++;
      const now = final?.get(offset);
      if (now !== value) {
        readerChanged++;
        if (readerChanged <= MAX_EXAMPLES) violations.push(`live consumer: read ${value} at ${key}@${offset}, now ${now ?? 'nothing'} there`);
      }
    }
  }
  if (unexpected > 0) violations.unshift(`${unexpected} unexpected values in the topics`);
  // An idempotent producer must survive leader changes, restarts and partitions (KIP-360): a fatal error is the cluster's fault.
  if (history.fatalErrors.length > 0) {
    violations.push(`${history.fatalErrors.length} fatal client error(s):`, ...history.fatalErrors.map((line) => `  ${line}`));
  }
  return { clients, readBack: readBackCounts, unexpected, readerObserved, readerChanged, readerRewinds: history.observedRewinds, fatalErrors: history.fatalErrors, violations };
}

function checkClient(
  history: History,
  spec: ClientSpec,
  where: ReadonlyMap<string, { partition: number; offset: number }[]>,
  atOffset: ReadonlyMap<string, ReadonlyMap<number, string>>,
  provenance: BatchProvenance | undefined,
): ClientReport {
  const examples: string[] = [];
  const resentExamples: string[] = [];
  const example = (text: string): void => {
    if (examples.length < MAX_EXAMPLES) examples.push(text);
  };
  let acked = 0;
  let ackedWithoutOffset = 0;
  let lost = 0;
  let offsetChanged = 0;
  let reordered = 0;
  const lastAckedByPartition = new Map<number, { seq: number; offset: number; value: string }>();
  const ackedWrites = history.acked.filter((write) => write.client === spec.client)
    .map((write) => ({ ...write, seq: parseValue(write.value)?.seq ?? -1 }))
    .sort((a, b) => a.seq - b.seq);
  for (const write of ackedWrites) {
    acked++;
    const found = where.get(write.value);
    if (found === undefined) {
      lost++;
      example(`acknowledged ${write.value} at ${write.topic}-${write.partition}@${write.offset} is lost`);
    }
    if (write.offset < 0) {
      ackedWithoutOffset++;
      continue;
    }
    const now = atOffset.get(`${write.topic}-${write.partition}`)?.get(write.offset);
    if (now !== write.value) {
      offsetChanged++;
      example(`acknowledged ${write.value} at ${write.topic}-${write.partition}@${write.offset}, which now holds ${now ?? 'nothing'}`);
    }
    const previous = lastAckedByPartition.get(write.partition);
    if (previous !== undefined && write.offset <= previous.offset) {
      reordered++;
      example(`${write.value} acknowledged at ${write.partition}@${write.offset}, at or before the earlier write ${previous.value}@${previous.offset}`);
    }
    lastAckedByPartition.set(write.partition, { seq: write.seq, offset: write.offset, value: write.value });
  }
  let duplicated = 0;
  let resent = 0;
  for (const [value, places] of where) {
    if (places.length > 1 && parseValue(value)?.client === spec.client) {
      const origins = places.map((p) => provenance?.(spec.topic, p.partition, p.offset));
      const described = places.map((p, i) => `${p.partition}@${p.offset}${provenance === undefined ? '' : ` [${describeOrigin(origins[i])}]`}`).join(' and ');
      if (underDistinctProducerEpochs(origins)) {
        resent++;
        if (resentExamples.length < MAX_EXAMPLES) resentExamples.push(`${value} at ${described}`);
      } else {
        duplicated++;
        example(`${value} at ${described}`);
      }
    }
  }
  const indeterminate = history.indeterminate.get(spec.client) ?? new Set<string>();
  let indeterminatePresent = 0;
  for (const value of indeterminate) if (where.has(value)) indeterminatePresent++;
  const errors = [...(history.errors.get(spec.client) ?? new Map<string, number>())].sort((a, b) => b[1] - a[1]);
  return {
    spec, attempted: history.attempted.get(spec.client) ?? 0, acked, ackedWithoutOffset, indeterminate: indeterminate.size, indeterminatePresent,
    lost, offsetChanged, duplicated, resent, reordered, errors, examples, resentExamples,
  };
}

/**
 * True when every copy's batch is known, idempotent, and no two share a (producerId,
 * producerEpoch): sequence numbers restart with each epoch, so only the client can have sent them.
 */
function underDistinctProducerEpochs(origins: readonly ({ producerId: number; producerEpoch: number } | undefined)[]): boolean {
  const seen = new Set<string>();
  for (const origin of origins) {
    if (origin === undefined || origin.producerId < 0) return false;
    const key = `${origin.producerId}/${origin.producerEpoch}`;
    if (seen.has(key)) return false;
    seen.add(key);
  }
  return true;
}

/** The report as text: one row per client, then the live consumer and the violations. */
export function formatCheckReport(report: CheckReport): string {
  const lines: string[] = [];
  const header = ['client', 'acks', 'idem', 'attempted', 'acked (no offset)', 'indeterminate (present)', 'lost', 'offset changed', 'dup (re-sent)', 'reordered'];
  const rows = report.clients.map((c) => [
    c.spec.client, c.spec.acks, c.spec.idempotent ? 'yes' : 'no', String(c.attempted), `${c.acked} (${c.ackedWithoutOffset})`,
    `${c.indeterminate} (${c.indeterminatePresent})`, String(c.lost), String(c.offsetChanged), `${c.duplicated} (${c.resent})`, String(c.reordered),
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const format = (cells: string[]): string => cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ');
  lines.push(format(header), ...rows.map(format));
  lines.push(`read back: ${[...report.readBack].map(([topic, count]) => `${topic} ${count}`).join(', ')}; unexpected values: ${report.unexpected}`);
  lines.push(`live consumer: ${report.readerObserved} offsets read, ${report.readerChanged} changed meaning afterwards, ${report.readerRewinds} rewinds (offset resets)`);
  for (const c of report.clients) {
    if (c.errors.length > 0) lines.push(`${c.spec.client} errors: ${c.errors.slice(0, 4).map(([message, count]) => `${count}× ${message}`).join('; ')}`);
    if (c.spec.acks === '1' && c.examples.length > 0) lines.push(...c.examples.slice(0, 3).map((e) => `  ${c.spec.client} (acks=1, allowed): ${e}`));
    lines.push(...c.resentExamples.slice(0, 3).map((e) => `  ${c.spec.client} (re-sent by the client under a new producer epoch, allowed): ${e}`));
  }
  lines.push(`fatal client errors: ${report.fatalErrors.length}`);
  lines.push(report.violations.length === 0 ? 'VERDICT: pass (0 acknowledged acks=all writes lost, changed, reordered or duplicated; no fatal client error)' : `VERDICT: FAIL\n${report.violations.join('\n')}`);
  return lines.join('\n');
}
