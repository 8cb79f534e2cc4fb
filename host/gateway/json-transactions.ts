/**
 * The transactional side of a `/json` session (KIP-98 over the JSON subprotocol; message shapes in
 * host/gateway/JSON-PROTOCOL.md): `initTransactions` opens the session's transactional Producer
 * for a `transactionalId`, then `beginTransaction`, `produce` (inside the transaction),
 * `sendOffsetsToTransaction`, `commitTransaction` and `abortTransaction` call that Producer's
 * methods of the same names, so the session is one Kafka transactional producer.
 *
 * Errors keep Kafka's names: a fenced producer answers PRODUCER_FENCED (90) (or
 * INVALID_PRODUCER_EPOCH, 47, as the broker said) and can only be closed with the session; a call
 * in the wrong state (begin twice, produce or commit outside a transaction, commit after a failed
 * record) answers INVALID_TXN_STATE (48), Kafka's code for an illegal transactional state.
 *
 * On session close an open transaction is aborted (best effort; otherwise the coordinator aborts it
 * after transaction.timeout.ms, or when another producer initializes the same transactional id).
 */
import { Producer } from '../clients/producer.js';
import { TransactionStateError } from '../clients/errors.js';
import type { TransportFactory } from '../clients/transport/transport.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { JsonProtocolError, type ClientMessage } from './json-messages.js';

export type TransactionMessage = Extract<
  ClientMessage,
  { op: 'initTransactions' | 'beginTransaction' | 'sendOffsetsToTransaction' | 'commitTransaction' | 'abortTransaction' }
>;

/** How a session's transactional Producer is built (the session's own client settings). */
export interface JsonTransactionsOptions {
  /** client.id of the Producer's requests. */
  clientId: string;
  /** The connections the Producer opens. */
  transportFactory: TransportFactory;
  /** Whether the Producer's Metadata requests may create missing topics. */
  allowAutoTopicCreation: boolean;
  /** request.timeout.ms of the Producer, ms; the Producer's default when absent. */
  requestTimeoutMs?: number;
}

/** A session's transactional producer: none until `initTransactions`, then one for the session's life. */
export class JsonTransactions {
  private producerValue: Producer | null = null;
  /** A transaction was begun and not yet committed or aborted. */
  private open = false;

  constructor(private readonly options: JsonTransactionsOptions) {}

  /** The transactional producer once `initTransactions` succeeded, else null (produce is then plain). */
  get producer(): Producer | null {
    return this.producerValue;
  }

  /** Performs one transaction operation; returns the reply (without `id`). @throws KafkaError, TransactionStateError, JsonProtocolError */
  async perform(message: TransactionMessage): Promise<Record<string, unknown>> {
    if (message.op === 'initTransactions') return this.initTransactions(message.transactionalId, message.transactionTimeoutMs);
    const producer = this.requireProducer(message.op);
    switch (message.op) {
      case 'beginTransaction':
        producer.beginTransaction();
        this.open = true;
        return { op: 'transactionBegun' };
      case 'sendOffsetsToTransaction':
        await producer.sendOffsetsToTransaction(message.offsets, { groupId: message.group });
        return { op: 'offsetsSentToTransaction', group: message.group };
      case 'commitTransaction':
        await producer.commitTransaction();
        this.open = false;
        return { op: 'transactionCommitted' };
      case 'abortTransaction':
        await producer.abortTransaction();
        this.open = false;
        return { op: 'transactionAborted' };
    }
  }

  /** Aborts an open transaction (best effort) and closes the producer. Never throws. */
  async close(): Promise<void> {
    const producer = this.producerValue;
    this.producerValue = null;
    if (producer === null) return;
    if (this.open) await producer.abortTransaction().catch(() => undefined);
    await producer.close().catch(() => undefined);
  }

  private async initTransactions(transactionalId: string, transactionTimeoutMs: number | undefined): Promise<Record<string, unknown>> {
    if (this.producerValue !== null) {
      throw JsonProtocolError.kafka(ErrorCode.INVALID_TXN_STATE, 'initTransactions was already called in this session (one transactional id per session)');
    }
    const producer = new Producer({
      bootstrapServers: ['in-process:1'],
      clientId: this.options.clientId,
      transportFactory: this.options.transportFactory,
      transactionalId,
      lingerMs: 0,
      allowAutoTopicCreation: this.options.allowAutoTopicCreation,
      ...(transactionTimeoutMs === undefined ? {} : { transactionTimeoutMs }),
      ...(this.options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: this.options.requestTimeoutMs }),
    });
    try {
      await producer.initTransactions();
    } catch (error) {
      await producer.close().catch(() => undefined);
      throw error;
    }
    this.producerValue = producer;
    return { op: 'transactionsInitialized', transactionalId };
  }

  private requireProducer(op: string): Producer {
    if (this.producerValue === null) throw JsonProtocolError.kafka(ErrorCode.INVALID_TXN_STATE, `${op} needs initTransactions first`);
    return this.producerValue;
  }
}

/** A TransactionStateError as the JSON error INVALID_TXN_STATE (48). */
export function transactionStateError(error: TransactionStateError): JsonProtocolError {
  return JsonProtocolError.kafka(ErrorCode.INVALID_TXN_STATE, error.message);
}
