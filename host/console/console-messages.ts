/**
 * The console's message browser and produce form, through the client library (ListOffsets,
 * Fetch, Produce):
 *
 *   GET  /console/api/topics/<name>/messages?partition=&limit=[&offset=|&timestamp=]
 *        the newest `limit` records of the partition, or `limit` records from `offset`, or from
 *        the first offset whose timestamp is >= `timestamp` (ms); answered newest first
 *   POST /console/api/topics/<name>/messages  {partition?, key?, value, headers?: [{key, value}]}  (write)
 *
 * Records travel as base64 (keys, values and header values are bytes; the page shows them as
 * text, JSON or hex). A browse is bounded: at most MAX_BROWSE_RECORDS records, MAX_BROWSE_BYTES
 * fetched, MAX_BROWSE_POLLS polls, and at most MAX_CONCURRENT_BROWSES at once (503 beyond).
 */
import type { Admin } from '../clients/admin.js';
import type { Browse, BrowsedRecord } from './console-api-types.js';
import type { ConsumerRecord } from '../clients/consumer.js';
import type { Producer } from '../clients/producer.js';
import type { ConsoleClients } from './console-clients.js';
import { ConsoleRequestError, intParam } from './console-responses.js';

export const MAX_BROWSE_RECORDS = 500;
/** Bytes one browse may fetch in all (and per fetch). */
export const MAX_BROWSE_BYTES = 4 * 1024 * 1024;
const MAX_BROWSE_POLLS = 20;
const POLL_TIMEOUT_MS = 250;
const MAX_CONCURRENT_BROWSES = 4;

let browsesInFlight = 0;

/** Reads one partition's records as described in the file header. */
export async function browseMessages(clients: ConsoleClients, topic: string, query: URLSearchParams): Promise<Browse> {
  const partition = intParam(query, 'partition', 0, 0, 1_000_000);
  const limit = intParam(query, 'limit', 50, 1, MAX_BROWSE_RECORDS);
  const [low, high] = await partitionBounds(clients.admin, topic, partition);
  let start: number;
  if (query.get('timestamp') !== null && query.get('timestamp') !== '') {
    const timestamp = intParam(query, 'timestamp', 0, 0, Number.MAX_SAFE_INTEGER);
    const [found] = await clients.admin.listOffsets({ topic, partitions: [partition], spec: { timestamp } });
    start = found === undefined || found.offset < 0 ? high : found.offset;
  } else if (query.get('offset') !== null && query.get('offset') !== '') {
    start = Math.max(low, intParam(query, 'offset', 0, 0, Number.MAX_SAFE_INTEGER));
  } else {
    start = Math.max(low, high - limit);
  }
  const end = Math.min(high, start + limit);
  const records = start >= end ? [] : await readRange(clients, topic, partition, start, end);
  return {
    topic, partition, logStartOffset: low, highWatermark: high, startOffset: start, endOffset: end,
    records: records.reverse().map(toBrowsed),
  };
}

async function partitionBounds(admin: Admin, topic: string, partition: number): Promise<[number, number]> {
  const [earliest, latest] = await Promise.all([
    admin.listOffsets({ topic, partitions: [partition], spec: 'earliest' }),
    admin.listOffsets({ topic, partitions: [partition], spec: 'latest' }),
  ]);
  return [earliest[0]?.offset ?? 0, latest[0]?.offset ?? 0];
}

/** Records with offsets in [start, end) (fewer when compaction removed some), oldest first. */
async function readRange(clients: ConsoleClients, topic: string, partition: number, start: number, end: number): Promise<ConsumerRecord[]> {
  if (browsesInFlight >= MAX_CONCURRENT_BROWSES) throw new ConsoleRequestError(503, 'TOO_MANY_BROWSES', `at most ${MAX_CONCURRENT_BROWSES} message browses run at once; retry`);
  browsesInFlight++;
  const consumer = clients.browsingConsumer(Math.min(MAX_BROWSE_BYTES, 1024 * 1024));
  try {
    const tp = { topic, partition };
    consumer.assign([tp]);
    consumer.seek(tp, start);
    const records: ConsumerRecord[] = [];
    let bytes = 0;
    let next = start;
    for (let poll = 0; poll < MAX_BROWSE_POLLS && next < end && bytes < MAX_BROWSE_BYTES; poll++) {
      for (const record of await consumer.poll(POLL_TIMEOUT_MS)) {
        if (record.offset < next || record.offset >= end) continue;
        records.push(record);
        bytes += recordBytes(record);
        next = record.offset + 1;
      }
      // Compaction or aborted transactions leave gaps: the position tells how far the fetch went.
      next = Math.max(next, await consumer.position(tp));
    }
    return records;
  } finally {
    browsesInFlight--;
    await consumer.close().catch(() => undefined);
  }
}

function recordBytes(record: ConsumerRecord): number {
  let bytes = (record.key?.length ?? 0) + (record.value?.length ?? 0);
  for (const header of record.headers) bytes += header.key.length + (header.value?.length ?? 0);
  return bytes;
}

function toBrowsed(record: ConsumerRecord): BrowsedRecord {
  return {
    offset: record.offset,
    timestamp: record.timestamp,
    timestampType: record.timestampType === 1 ? 'LogAppendTime' : 'CreateTime',
    key: record.key === null ? null : Buffer.from(record.key).toString('base64'),
    value: record.value === null ? null : Buffer.from(record.value).toString('base64'),
    headers: record.headers.map((h) => ({ key: h.key, value: h.value === null ? null : Buffer.from(h.value).toString('base64') })),
    sizeBytes: recordBytes(record),
  };
}

/** Produces one record from `{partition?, key?, value, headers?}` (text, UTF-8); answers its offset. */
export async function produceMessage(producer: Producer, topic: string, body: Record<string, unknown>): Promise<object> {
  const key = optionalText(body['key'], 'key');
  const value = optionalText(body['value'], 'value');
  const partition = body['partition'] === undefined || body['partition'] === null || body['partition'] === '' ? undefined : Number(body['partition']);
  if (partition !== undefined && (!Number.isSafeInteger(partition) || partition < 0)) throw new ConsoleRequestError(400, 'INVALID_REQUEST', 'partition must be an integer >= 0');
  const headersInput = body['headers'] ?? [];
  if (!Array.isArray(headersInput)) throw new ConsoleRequestError(400, 'INVALID_REQUEST', 'headers must be a list of {key, value}');
  const headers = headersInput.map((header: unknown) => {
    const h = header as { key?: unknown; value?: unknown };
    if (typeof h?.key !== 'string') throw new ConsoleRequestError(400, 'INVALID_REQUEST', 'every header needs a string key');
    return { key: h.key, value: optionalText(h.value, 'header value') };
  });
  const [metadata] = await producer.send({ topic, messages: [{ key, value, headers, ...(partition === undefined ? {} : { partition }) }] });
  return { topic, partition: metadata!.partition, offset: metadata!.offset, timestamp: metadata!.timestamp };
}

function optionalText(value: unknown, name: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new ConsoleRequestError(400, 'INVALID_REQUEST', `${name} must be a string`);
  return value;
}
