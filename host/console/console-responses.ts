/**
 * The console API's answers: JSON bodies, and errors as `{ error, code?, message }` with an HTTP
 * status. Kafka errors keep Kafka's names and codes (e.g. `TOPIC_ALREADY_EXISTS`, 36) so a user
 * can look them up; the status says who should act (4xx the request, 5xx the cluster).
 */
import { ConnectionError, KafkaError, KafkaTimeoutError } from '../clients/errors.js';
import { type HttpAppResponse, jsonBody } from '../network/http-applications.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { errorName } from '../protocol/generated/error-codes.js';

/** A request the console refuses (bad parameters, writes disabled): status and message. */
export class ConsoleRequestError extends Error {
  constructor(readonly status: number, readonly error: string, message: string) {
    super(message);
    this.name = 'ConsoleRequestError';
  }
}

/** 200 with `value` as JSON. */
export function ok(value: unknown): HttpAppResponse {
  return { status: 200, ...jsonBody(value) };
}

/** The answer for an error thrown by an API handler. Other errors are bugs: rethrown (500). */
export function errorResponse(error: unknown): HttpAppResponse {
  if (error instanceof ConsoleRequestError) return { status: error.status, ...jsonBody({ error: error.error, message: error.message }) };
  if (error instanceof KafkaError) {
    const body = { error: errorName(error.errorCode) ?? 'UNKNOWN_SERVER_ERROR', code: error.errorCode, message: error.message };
    return { status: statusForKafkaError(error.errorCode), ...jsonBody(body) };
  }
  if (error instanceof KafkaTimeoutError) return { status: 504, ...jsonBody({ error: 'REQUEST_TIMED_OUT', code: ErrorCode.REQUEST_TIMED_OUT, message: error.message }) };
  if (error instanceof ConnectionError) return { status: 502, ...jsonBody({ error: 'NETWORK_EXCEPTION', code: ErrorCode.NETWORK_EXCEPTION, message: error.message }) };
  throw error;
}

function statusForKafkaError(code: number): number {
  switch (code) {
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode.GROUP_ID_NOT_FOUND:
      return 404;
    case ErrorCode.TOPIC_ALREADY_EXISTS:
    case ErrorCode.NON_EMPTY_GROUP:
      return 409;
    case ErrorCode.TOPIC_AUTHORIZATION_FAILED:
    case ErrorCode.GROUP_AUTHORIZATION_FAILED:
    case ErrorCode.CLUSTER_AUTHORIZATION_FAILED:
      return 403;
    case ErrorCode.LEADER_NOT_AVAILABLE:
    case ErrorCode.NOT_LEADER_OR_FOLLOWER:
    case ErrorCode.COORDINATOR_NOT_AVAILABLE:
    case ErrorCode.COORDINATOR_LOAD_IN_PROGRESS:
    case ErrorCode.NOT_CONTROLLER:
    case ErrorCode.KAFKA_STORAGE_ERROR:
      return 503;
    default:
      return 400;
  }
}

/** An integer query parameter in [min, max], `fallback` when absent. @throws ConsoleRequestError 400 */
export function intParam(query: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const text = query.get(name);
  if (text === null || text === '') return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConsoleRequestError(400, 'INVALID_REQUEST', `${name} must be an integer between ${min} and ${max}, got "${text.slice(0, 40)}"`);
  }
  return value;
}

/** The JSON object in a request body. @throws ConsoleRequestError 415 / 400 */
export function jsonObject(contentType: string, body: Buffer): Record<string, unknown> {
  // Writes must say JSON: a cross-site form cannot send this type without a CORS preflight, which
  // is never answered.
  if (!/^application\/json\b/i.test(contentType)) {
    throw new ConsoleRequestError(415, 'UNSUPPORTED_MEDIA_TYPE', 'send the request body as Content-Type: application/json');
  }
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    throw new ConsoleRequestError(400, 'INVALID_REQUEST', 'the body is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ConsoleRequestError(400, 'INVALID_REQUEST', 'the body must be a JSON object');
  return value as Record<string, unknown>;
}
