/**
 * The JSON subprotocol's message shapes (documented for users in host/gateway/JSON-PROTOCOL.md),
 * the validation of what clients send, and the error objects we answer with.
 *
 * Client messages are validated, never trusted: `parseClientMessage` turns a text message into a
 * typed request or a JsonProtocolError naming the offending field. It never throws.
 */
import { errorName } from '../protocol/generated/error-codes.js';

/** How keys, values and header values travel as JSON strings. */
export type JsonEncoding = 'utf8' | 'base64';

export interface JsonRecordInput {
  key: Uint8Array | null;
  value: Uint8Array | null;
  headers: { key: string; value: Uint8Array | null }[];
  partition?: number;
  timestamp?: number;
}

export type ClientMessage =
  | { op: 'produce'; id: JsonId; topic: string; records: JsonRecordInput[] }
  | {
      op: 'subscribe';
      id: JsonId;
      topics: string[];
      group: string | null;
      fromBeginning: boolean;
      credits: number;
      autoCommit: boolean;
      encoding: JsonEncoding;
      /** isolation.level: read_committed skips aborted and open transactions' records. */
      isolationLevel: 'read_uncommitted' | 'read_committed';
    }
  | { op: 'credit'; id: JsonId; n: number }
  | { op: 'commit'; id: JsonId }
  | { op: 'listTopics'; id: JsonId }
  | { op: 'unsubscribe'; id: JsonId }
  /** Opens the session's transactional producer (transactional.id; transaction.timeout.ms, ms). */
  | { op: 'initTransactions'; id: JsonId; transactionalId: string; transactionTimeoutMs?: number }
  | { op: 'beginTransaction'; id: JsonId }
  /** Offsets (next offset to read per partition) committed for `group` only if the transaction commits. */
  | { op: 'sendOffsetsToTransaction'; id: JsonId; group: string; offsets: { topic: string; partition: number; offset: number }[] }
  | { op: 'commitTransaction'; id: JsonId }
  | { op: 'abortTransaction'; id: JsonId };

/** The client's correlation id, echoed in the reply: a number or a string; null when absent. */
export type JsonId = number | string | null;

/** Largest credit grant in one message, and the most credits a subscription can hold. */
export const MAX_CREDITS = 1_000_000;
/** Most records in one produce message. */
export const MAX_RECORDS_PER_PRODUCE = 10_000;
/** Most topics in one subscription. */
export const MAX_TOPICS_PER_SUBSCRIPTION = 1_000;

/**
 * Error codes of the subprotocol itself (problems with the JSON message, not with Kafka). Kafka
 * errors keep Kafka's names (`UNKNOWN_TOPIC_OR_PARTITION`, ...) and carry `kafkaErrorCode`.
 */
export const JsonErrorCode = {
  /** The text is not JSON, or not a JSON object. */
  INVALID_JSON: 'INVALID_JSON',
  /** A field is missing, has the wrong type, or is out of range. */
  INVALID_MESSAGE: 'INVALID_MESSAGE',
  /** `op` names no operation. */
  UNKNOWN_OP: 'UNKNOWN_OP',
  /** credit / commit / unsubscribe without an active subscription. */
  NOT_SUBSCRIBED: 'NOT_SUBSCRIBED',
  /** subscribe while a subscription is active (unsubscribe first). */
  ALREADY_SUBSCRIBED: 'ALREADY_SUBSCRIBED',
  /** Too many operations in flight on this socket: wait for replies. */
  TOO_MANY_REQUESTS: 'TOO_MANY_REQUESTS',
  /** The session is closing (broker shutting down). */
  SESSION_CLOSING: 'SESSION_CLOSING',
} as const;

/** `{"code":..., "kafkaErrorCode":..., "message":...}`: the `error` member of an error reply. */
export interface JsonErrorObject {
  code: string;
  /** The Kafka error code when the error comes from Kafka, null for subprotocol errors. */
  kafkaErrorCode: number | null;
  message: string;
}

/** An error reply to send: thrown inside validation, otherwise passed around as a value. */
export class JsonProtocolError extends Error {
  constructor(readonly code: string, message: string, readonly kafkaErrorCode: number | null = null) {
    super(message);
    this.name = 'JsonProtocolError';
  }

  /** A Kafka error code as a JSON error (`UNKNOWN_TOPIC_OR_PARTITION`, 3). */
  static kafka(errorCode: number, message: string): JsonProtocolError {
    return new JsonProtocolError(errorName(errorCode) ?? `UNKNOWN_ERROR_CODE_${errorCode}`, message, errorCode);
  }

  toJSON(): JsonErrorObject {
    return { code: this.code, kafkaErrorCode: this.kafkaErrorCode, message: this.message };
  }
}

const OPS = new Set([
  'produce', 'subscribe', 'credit', 'commit', 'listTopics', 'unsubscribe',
  'initTransactions', 'beginTransaction', 'sendOffsetsToTransaction', 'commitTransaction', 'abortTransaction',
]);
const OP_LIST = [...OPS].join(', ');

/** Parses and validates one client message. Never throws. */
export function parseClientMessage(text: string): { message: ClientMessage } | { id: JsonId; error: JsonProtocolError } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { id: null, error: new JsonProtocolError(JsonErrorCode.INVALID_JSON, `not JSON: ${(error as Error).message}`) };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { id: null, error: new JsonProtocolError(JsonErrorCode.INVALID_JSON, 'a message is one JSON object, e.g. {"id":1,"op":"listTopics"}') };
  }
  const object = value as Record<string, unknown>;
  const rawId = object.id;
  let id: JsonId = null;
  if (typeof rawId === 'string' || (typeof rawId === 'number' && Number.isFinite(rawId))) id = rawId;
  else if (rawId !== undefined && rawId !== null) {
    return { id: null, error: invalid('"id" must be a number or a string') };
  }
  const op = object.op;
  if (typeof op !== 'string') return { id, error: invalid(`"op" is missing (one of ${OP_LIST})`) };
  if (!OPS.has(op)) return { id, error: new JsonProtocolError(JsonErrorCode.UNKNOWN_OP, `unknown op "${truncate(op)}" (one of ${OP_LIST})`) };
  try {
    return { message: parseOp(op, id, object) };
  } catch (error) {
    if (error instanceof JsonProtocolError) return { id, error };
    throw error;
  }
}

function parseOp(op: string, id: JsonId, object: Record<string, unknown>): ClientMessage {
  switch (op) {
    case 'produce': {
      const topic = requireString(object.topic, 'topic');
      const encoding = parseEncoding(object.encoding);
      if (!Array.isArray(object.records) || object.records.length === 0) throw invalid('"records" must be a non-empty array');
      if (object.records.length > MAX_RECORDS_PER_PRODUCE) throw invalid(`"records" holds ${object.records.length} records; at most ${MAX_RECORDS_PER_PRODUCE} per message`);
      const records = object.records.map((record, index) => parseRecord(record, index, encoding));
      return { op, id, topic, records };
    }
    case 'subscribe': {
      if (!Array.isArray(object.topics) || object.topics.length === 0) throw invalid('"topics" must be a non-empty array of topic names');
      if (object.topics.length > MAX_TOPICS_PER_SUBSCRIPTION) throw invalid(`"topics" holds ${object.topics.length} names; at most ${MAX_TOPICS_PER_SUBSCRIPTION}`);
      const topics = object.topics.map((topic, index) => requireString(topic, `topics[${index}]`));
      const group = object.group === undefined || object.group === null ? null : requireString(object.group, 'group');
      return {
        op,
        id,
        topics: [...new Set(topics)],
        group,
        fromBeginning: optionalBoolean(object.fromBeginning, 'fromBeginning', false),
        credits: object.credits === undefined ? 0 : requireInteger(object.credits, 'credits', 0, MAX_CREDITS),
        autoCommit: optionalBoolean(object.autoCommit, 'autoCommit', group !== null),
        encoding: parseEncoding(object.encoding),
        isolationLevel: parseIsolationLevel(object.isolationLevel),
      };
    }
    case 'credit':
      return { op, id, n: requireInteger(object.n, 'n', 1, MAX_CREDITS) };
    case 'initTransactions': {
      const transactionalId = requireString(object.transactionalId, 'transactionalId');
      if (object.transactionTimeoutMs === undefined || object.transactionTimeoutMs === null) return { op, id, transactionalId };
      return { op, id, transactionalId, transactionTimeoutMs: requireInteger(object.transactionTimeoutMs, 'transactionTimeoutMs', 1, 2 ** 31 - 1) };
    }
    case 'sendOffsetsToTransaction': {
      const group = requireString(object.group, 'group');
      if (!Array.isArray(object.offsets) || object.offsets.length === 0) throw invalid('"offsets" must be a non-empty array of {"topic","partition","offset"}');
      const offsets = object.offsets.map((entry: unknown, index) => {
        if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw invalid(`offsets[${index}] must be an object like {"topic":"t","partition":0,"offset":5}`);
        const fields = entry as Record<string, unknown>;
        return {
          topic: requireString(fields.topic, `offsets[${index}].topic`),
          partition: requireInteger(fields.partition, `offsets[${index}].partition`, 0, 2 ** 31 - 1),
          offset: requireInteger(fields.offset, `offsets[${index}].offset`, 0, Number.MAX_SAFE_INTEGER),
        };
      });
      return { op, id, group, offsets };
    }
    case 'commit':
    case 'listTopics':
    case 'unsubscribe':
    case 'beginTransaction':
    case 'commitTransaction':
    case 'abortTransaction':
      return { op, id };
    default:
      throw new JsonProtocolError(JsonErrorCode.UNKNOWN_OP, `unknown op "${op}"`);
  }
}

function parseRecord(value: unknown, index: number, encoding: JsonEncoding): JsonRecordInput {
  const where = `records[${index}]`;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid(`${where} must be an object like {"key":"k","value":"v"}`);
  const record = value as Record<string, unknown>;
  if (!('value' in record)) throw invalid(`${where}.value is missing (use null for a tombstone)`);
  const result: JsonRecordInput = {
    key: decodeBytes(record.key, `${where}.key`, encoding),
    value: decodeBytes(record.value, `${where}.value`, encoding),
    headers: [],
  };
  if (record.headers !== undefined && record.headers !== null) {
    if (typeof record.headers !== 'object' || Array.isArray(record.headers)) throw invalid(`${where}.headers must be an object of string (or null) values`);
    for (const [key, headerValue] of Object.entries(record.headers as Record<string, unknown>)) {
      result.headers.push({ key, value: decodeBytes(headerValue, `${where}.headers.${truncate(key)}`, encoding) });
    }
  }
  if (record.partition !== undefined && record.partition !== null) result.partition = requireInteger(record.partition, `${where}.partition`, 0, 2 ** 31 - 1);
  if (record.timestamp !== undefined && record.timestamp !== null) result.timestamp = requireInteger(record.timestamp, `${where}.timestamp`, 0, Number.MAX_SAFE_INTEGER);
  return result;
}

function decodeBytes(value: unknown, field: string, encoding: JsonEncoding): Uint8Array | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw invalid(`${field} must be a string or null`);
  if (encoding === 'utf8') return Buffer.from(value, 'utf8');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(value) || value.length % 4 !== 0) throw invalid(`${field} is not base64`);
  return Buffer.from(value, 'base64');
}

/** Bytes as a JSON string in `encoding` (UTF-8 decoding replaces invalid sequences with U+FFFD). */
export function encodeBytes(bytes: Uint8Array | null, encoding: JsonEncoding): string | null {
  if (bytes === null) return null;
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return buffer.toString(encoding === 'utf8' ? 'utf8' : 'base64');
}

function parseEncoding(value: unknown): JsonEncoding {
  if (value === undefined || value === null) return 'utf8';
  if (value === 'utf8' || value === 'base64') return value;
  throw invalid('"encoding" must be "utf8" or "base64"');
}

function requireString(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0) throw invalid(`"${field}" must be a non-empty string`);
  return value;
}

function requireInteger(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw invalid(`"${field}" must be an integer from ${min} to ${max}`);
  }
  return value;
}

function optionalBoolean(value: unknown, field: string, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') throw invalid(`"${field}" must be true or false`);
  return value;
}

function invalid(message: string): JsonProtocolError {
  return new JsonProtocolError(JsonErrorCode.INVALID_MESSAGE, message);
}

/** `"read_uncommitted"` (default) or `"read_committed"`. */
function parseIsolationLevel(value: unknown): 'read_uncommitted' | 'read_committed' {
  if (value === undefined || value === null || value === 'read_uncommitted') return 'read_uncommitted';
  if (value === 'read_committed') return 'read_committed';
  throw new JsonProtocolError(JsonErrorCode.INVALID_MESSAGE, '"isolationLevel" must be "read_uncommitted" or "read_committed"');
}

function truncate(text: string): string {
  return text.length > 64 ? `${text.slice(0, 64)}...` : text;
}
