/**
 * Errors the client library throws (rejects with). Protocol errors stay values inside the
 * library; they become exceptions only at the public surface, carrying the Kafka error code so
 * callers can branch on it (`error.errorCode === ErrorCode.TOPIC_ALREADY_EXISTS`).
 */
import { errorName, isRetriable } from '../protocol/generated/error-codes.js';

/** A Kafka error code returned by a broker (ErrorCode.*), with where it happened. */
export class KafkaError extends Error {
  /** Kafka error code (e.g. 3 UNKNOWN_TOPIC_OR_PARTITION). */
  readonly errorCode: number;
  /** Kafka's name for the code, e.g. `UNKNOWN_TOPIC_OR_PARTITION`. */
  readonly errorName: string;
  /** Whether Kafka marks the code retriable (a retry may succeed). */
  readonly retriable: boolean;

  /**
   * @param errorCode Kafka error code
   * @param context what was being done, e.g. `CreateTopics "orders"`
   * @param brokerMessage the response's error message field, when the broker sent one
   */
  constructor(errorCode: number, context: string, brokerMessage?: string | null) {
    const name = errorName(errorCode) ?? `UNKNOWN_ERROR_CODE_${errorCode}`;
    super(`${context}: ${name} (${errorCode})${brokerMessage ? `: ${brokerMessage}` : ''}`);
    this.name = 'KafkaError';
    this.errorCode = errorCode;
    this.errorName = name;
    this.retriable = isRetriable(errorCode);
  }
}

/**
 * The connection to a broker failed or closed (connect refused, reset, closed while requests were
 * in flight). Always retriable: the request may or may not have reached the broker.
 */
export class ConnectionError extends Error {
  readonly retriable = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ConnectionError';
  }
}

/** A request or an operation did not complete in time (request.timeout.ms, max.block.ms, ...). */
export class KafkaTimeoutError extends Error {
  readonly retriable = true;
  constructor(message: string) {
    super(message);
    this.name = 'KafkaTimeoutError';
  }
}

/** The broker does not support any version of an API that this client can send. */
export class UnsupportedVersionError extends Error {
  readonly retriable = false;
  readonly errorCode = 35;
  constructor(message: string) {
    super(message);
    this.name = 'UnsupportedVersionError';
  }
}

/** A response could not be decoded (a broker bug or a corrupted stream): the connection is closed. */
export class ProtocolDecodeError extends Error {
  readonly retriable = true;
  constructor(message: string) {
    super(message);
    this.name = 'ProtocolDecodeError';
  }
}

/** The client was closed while the operation was pending, or used after close(). */
export class ClientClosedError extends Error {
  readonly retriable = false;
  constructor(message = 'the client is closed') {
    super(message);
    this.name = 'ClientClosedError';
  }
}

/**
 * A transactional producer was fenced: another producer initialized the same transactional.id
 * (PRODUCER_FENCED 90, or INVALID_PRODUCER_EPOCH 47 from older APIs). Fatal: the producer can
 * only be closed; its open transaction is aborted by the coordinator.
 */
export class ProducerFencedError extends KafkaError {
  constructor(errorCode: number, context: string) {
    super(errorCode, context);
    this.name = 'ProducerFencedError';
  }
}

/**
 * A transactional producer's call made in the wrong state (send() outside a transaction,
 * commitTransaction() without one, anything after a fatal error), or a transaction that must be
 * aborted because one of its records failed (`abortable`). Kafka's IllegalStateException /
 * TransactionAbortableException.
 */
export class TransactionStateError extends Error {
  readonly retriable = false;
  constructor(message: string, readonly abortable = false, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TransactionStateError';
  }
}

/** True for errors a retry may fix (retriable Kafka codes, connection failures, timeouts). */
export function isRetriableError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { retriable?: unknown }).retriable === true;
}
