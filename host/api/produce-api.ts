/**
 * Produce (api key 0), v0-8: record batches into partition logs.
 *
 * ```
 * Produce Request (Version: 0-2) => acks timeout_ms [topic_data]
 * Produce Request (Version: 3-7) => transactional_id acks timeout_ms [topic_data]
 *   topic_data => name [partition_data]
 *     partition_data => index records
 * Produce Response (Version: 0) => [responses]
 * Produce Response (Version: 1)   => [responses] throttle_time_ms
 * Produce Response (Version: 2-4) => ... adds log_append_time_ms
 * Produce Response (Version: 5-7) => ... adds log_start_offset
 * Produce Response (Version: 8)   => ... adds record_errors and error_message (KIP-467)
 *   responses => name [partition_responses]
 *     partition_responses => index error_code base_offset log_append_time_ms log_start_offset
 *                            [record_errors => batch_index batch_index_error_message] error_message
 * ```
 * Version notes that matter:
 * - MinVersion must be advertised as 0: librdkafka 2.0.2 sends gzip/snappy/lz4 only if a Produce
 *   version in [0, 0] is "supported" (CLIENTS.md L2). No client sends v0-2 to us: they carry
 *   legacy message sets (magic 0/1), which are refused with UNSUPPORTED_FOR_MESSAGE_FORMAT (43)
 *   and never stored (we store magic-2 batches only; kafkajs and @platformatic/kafka cannot mix).
 * - v3+ (KIP-98): exactly one magic-2 batch per partition, else INVALID_RECORD (87), as Kafka.
 *   transactional_id is present: a transactional batch in a request without one is refused with
 *   TRANSACTIONAL_ID_AUTHORIZATION_FAILED (53), as Kafka; the partition's producer state checks
 *   the rest (an epoch fenced by the coordinator 47, a plain batch inside an open transaction 48).
 * - v7 (KIP-110) allows zstd batches; the log stores them as received unless the topic's
 *   compression.type names another codec (host/log/batch-recompression.ts).
 * - acks=0: no response at all, ever (kafka-python and Java match responses FIFO; an extra one
 *   breaks them); the request is still fully processed, in order.
 * - Per-partition errors: a bad CRC in one partition fails only that partition with
 *   CORRUPT_MESSAGE (2); MESSAGE_TOO_LARGE (10) above max.message.bytes; idempotent retries are
 *   acknowledged with the original offsets, OUT_OF_ORDER_SEQUENCE_NUMBER (45) for gaps (the
 *   partition's ProducerStateManager, recovered across restarts).
 * - v8 (KIP-467): a batch refused for per-record reasons (INVALID_RECORD 87: a keyless record on
 *   a compacted topic; INVALID_TIMESTAMP 32: a timestamp out of range) lists each refused record's
 *   index in its batch with a message (record_errors), and every error carries error_message, as
 *   Kafka's LogValidator / ReplicaManager answer (host/log/record-validation.ts).
 * - A partition of an unknown topic answers UNKNOWN_TOPIC_OR_PARTITION (3) and nothing is created,
 *   as Kafka's KafkaApis.handleProduceRequest (`metadataCache.contains` fails): clients learn
 *   partitions from Metadata, which is where auto-creation happens (auto-topic-creation.ts).
 * - The partitions refused before the log are logged as one `request.refused` warn line per
 *   request (the first refusal and the count), not one per partition (issue 15: a request may name
 *   100,000 partitions).
 * - The answer is built in slices of produce.response.max.partitions.per.turn partitions, one per
 *   event-loop turn, after the append (itself sliced by request.max.partitions.per.turn): a
 *   request naming 50,000 unknown topics answered all of them in the turn it arrived (issue 15).
 */
import { ApiKey } from '../protocol/generated/api-keys.js';
import { ErrorCode, errorName } from '../protocol/generated/error-codes.js';
import {
  decodeProduceRequest,
  encodeProduceResponse,
  type PartitionProduceResponseInit,
  type ProduceRequest,
  type ProduceResponseInit,
} from '../protocol/generated/produce.js';
import { logRefusedRequest } from '../observability/logger.js';
import type { ProducePartitionData, ProducePartitionResult } from '../replication/replica-manager.js';
import { BatchAttributes, BatchLayout, MAGIC_V2, RECORD_BATCH_OVERHEAD } from '../wasm/batch-layout.js';
import { defineApi, type ApiRequestContext } from './api-definition.js';
import { nextTurn } from './request-slices.js';

const { BATCH_LENGTH: LENGTH_OFFSET, MAGIC: MAGIC_OFFSET, ATTRIBUTES: ATTRIBUTES_OFFSET, LOG_OVERHEAD } = BatchLayout;

interface Slot {
  topic: string;
  partition: number;
  /** Set when the partition was refused before reaching the log. */
  errorCode: number | null;
  reason: string | null;
  /** Index into the entries handed to the replica manager. */
  entryIndex: number;
}

export const produceApi = defineApi<ProduceRequest, ProduceResponseInit>({
  apiKey: ApiKey.Produce,
  name: 'Produce',
  minVersion: 0,
  maxVersion: 8,
  decode: decodeProduceRequest,
  encode: encodeProduceResponse,
  async handle(request, context) {
    const { broker, apiVersion } = context;
    // In the request's turn, before the append (appends keep the order requests came in): the
    // known topics' partitions are checked; an unknown topic is only noted, its partitions are
    // answered below, in slices.
    const known = request.topicData.map((topicData) => broker.metadata.topic(topicData.name) !== undefined);
    const slots: Slot[] = [];
    const entries: ProducePartitionData[] = [];
    request.topicData.forEach((topicData, t) => {
      if (!known[t]) return;
      for (const partitionData of topicData.partitionData) {
        const slot: Slot = { topic: topicData.name, partition: partitionData.index, errorCode: null, reason: null, entryIndex: -1 };
        slots.push(slot);
        const problem = checkRecords(partitionData.records, apiVersion, apiVersion >= 3 ? request.transactionalId : null);
        if (problem !== null) {
          slot.errorCode = problem.errorCode;
          slot.reason = problem.reason;
          continue;
        }
        slot.entryIndex = entries.length;
        entries.push({ topic: topicData.name, partition: partitionData.index, records: partitionData.records });
      }
    });
    const results = entries.length === 0
      ? []
      : await broker.replicaManager.appendRecords({ requiredAcks: request.acks, timeoutMs: request.timeoutMs, entries });

    const byTopic = new Map<string, PartitionProduceResponseInit[]>();
    const refusals = new PartitionRefusals();
    let slotIndex = 0;
    let inTurn = 0;
    const perTurn = broker.defer === undefined ? Number.POSITIVE_INFINITY : broker.config.produceResponseMaxPartitionsPerTurn;
    for (const [t, topicData] of request.topicData.entries()) {
      let list = byTopic.get(topicData.name);
      if (list === undefined) {
        list = [];
        byTopic.set(topicData.name, list);
      }
      for (const partitionData of topicData.partitionData) {
        // Issue 15: a request naming 50,000 unknown topics answered them all in one turn.
        if (++inTurn > perTurn) {
          inTurn = 1;
          await nextTurn(broker.defer);
        }
        list.push(known[t]
          ? partitionAnswer(slots[slotIndex++]!, results, broker, refusals)
          : unknownTopicAnswer(topicData.name, partitionData.index, broker, refusals));
      }
    }
    refusals.log(context);
    if (request.acks === 0) return null;
    return {
      responses: [...byTopic].map(([name, partitionResponses]) => ({ name, partitionResponses })),
      throttleTimeMs: 0,
    };
  },
});

type ProduceBroker = ApiRequestContext['broker'];

/**
 * A partition of an unknown topic: UNKNOWN_TOPIC_OR_PARTITION, counted per request but not per
 * topic (as in Kafka, whose topic meters only see partitions that reach the log: a client naming
 * made-up topics must not take their places).
 */
function unknownTopicAnswer(topic: string, partition: number, broker: ProduceBroker, refusals: PartitionRefusals): PartitionProduceResponseInit {
  const reason = `topic ${topic} does not exist`;
  refusals.add(topic, partition, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, reason);
  broker.requestMetrics?.recordError(ApiKey.Produce, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  return { index: partition, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, baseOffset: -1, logAppendTimeMs: -1, logStartOffset: -1, errorMessage: reason };
}

/** A known topic's partition: refused by the frame checks, or what its append answered. */
function partitionAnswer(
  slot: Slot, results: readonly ProducePartitionResult[], broker: ProduceBroker, refusals: PartitionRefusals,
): PartitionProduceResponseInit {
  const { topicMetrics, requestMetrics } = broker;
  if (slot.errorCode !== null) {
    refusals.add(slot.topic, slot.partition, slot.errorCode, slot.reason);
    topicMetrics?.recordProduce(slot.topic, slot.errorCode, 0, 0);
    requestMetrics?.recordError(ApiKey.Produce, slot.errorCode);
    return { index: slot.partition, errorCode: slot.errorCode, baseOffset: -1, logAppendTimeMs: -1, logStartOffset: -1, errorMessage: slot.reason };
  }
  const result = results[slot.entryIndex]!;
  // Records appended: the stamped offsets are contiguous; a retried duplicate wrote nothing.
  const appended = result.errorCode === ErrorCode.NONE && result.appendedBytes > 0 ? result.lastOffset - result.baseOffset + 1 : 0;
  topicMetrics?.recordProduce(slot.topic, result.errorCode, appended, result.appendedBytes);
  if (result.errorCode !== ErrorCode.NONE) requestMetrics?.recordError(ApiKey.Produce, result.errorCode);
  const answer: PartitionProduceResponseInit = {
    index: slot.partition,
    errorCode: result.errorCode,
    baseOffset: result.baseOffset,
    logAppendTimeMs: result.logAppendTimeMs,
    logStartOffset: result.logStartOffset,
  };
  if (result.errorCode !== ErrorCode.NONE) {
    answer.errorMessage = result.errorMessage;
    if (result.recordErrors !== undefined) answer.recordErrors = result.recordErrors.map(toBatchIndexAndErrorMessage);
    refusals.add(slot.topic, slot.partition, result.errorCode, result.errorMessage);
  }
  return answer;
}

/**
 * The per-partition checks Kafka's ProduceRequest.validateRecords makes before the log sees the
 * bytes: magic 2 only, exactly one batch for v3+, transactional batches only with a transactional_id.
 *
 * Cost: a frame check, not a second validation. For the only well-formed v3+ shape (one batch
 * filling the blob) it reads three fields of the first header (magic, batchLength, attributes)
 * and stops; it goes on only to count the batches of a blob holding several. It stays ahead of
 * the log because its answers (43 for legacy magic, 87 for several batches, 53 transactional without id)
 * take precedence over the core's CORRUPT_MESSAGE for such requests, as in Kafka, where
 * ProduceRequest validates before the log. Everything else (CRC, records, producer state) is
 * checked once, in the append, on the core's batch summaries.
 */
function checkRecords(records: Uint8Array | null, apiVersion: number, transactionalId: string | null): { errorCode: number; reason: string } | null {
  if (records === null || records.length === 0) {
    // Kafka's ProduceRequest.validateRecords: "must have at least one record batch per partition".
    return { errorCode: ErrorCode.INVALID_RECORD, reason: `Produce requests with version ${apiVersion} must have at least one record batch per partition` };
  }
  if (records.length <= MAGIC_OFFSET) return { errorCode: ErrorCode.CORRUPT_MESSAGE, reason: 'records shorter than a batch header' };
  const magic = records[MAGIC_OFFSET]!;
  if (magic !== MAGIC_V2) {
    return {
      errorCode: magic < MAGIC_V2 ? ErrorCode.UNSUPPORTED_FOR_MESSAGE_FORMAT : ErrorCode.CORRUPT_MESSAGE,
      reason: magic < MAGIC_V2
        ? `legacy message sets (magic ${magic}) are not supported: only RecordBatch v2 (magic 2, Produce v3+) is stored`
        : `unknown record batch magic ${magic}`,
    };
  }
  // Byte reads instead of a Buffer view: no object per request on the hot path.
  let batches = 0;
  let transactional = false;
  for (let position = 0; position + LOG_OVERHEAD <= records.length;) {
    const at = position + LENGTH_OFFSET;
    const length = (records[at]! << 24) | (records[at + 1]! << 16) | (records[at + 2]! << 8) | records[at + 3]!;
    const size = LOG_OVERHEAD + length;
    if (size < RECORD_BATCH_OVERHEAD || position + size > records.length) break; // the log reports CORRUPT_MESSAGE
    // The flag is in the attributes' low byte (int16 big-endian: the second byte).
    if ((records[position + ATTRIBUTES_OFFSET + 1]! & BatchAttributes.TRANSACTIONAL_FLAG_MASK) !== 0) transactional = true;
    batches++;
    position += size;
  }
  if (apiVersion >= 3 && batches > 1) {
    return { errorCode: ErrorCode.INVALID_RECORD, reason: `Produce v${apiVersion} must carry exactly one record batch per partition, got ${batches}` };
  }
  if (transactional && transactionalId === null) {
    return { errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, reason: 'a transactional batch in a request without transactional_id' };
  }
  return null;
}

function toBatchIndexAndErrorMessage(error: { batchIndex: number; message: string }): { batchIndex: number; batchIndexErrorMessage: string } {
  return { batchIndex: error.batchIndex, batchIndexErrorMessage: error.message };
}

/**
 * The partitions of one request answered with an error, logged as one `request.refused` warn line
 * (the first refusal, named, and how many partitions in all): a request naming 100,000 unknown
 * topics gives one line, not 100,000 (issue 15).
 */
class PartitionRefusals {
  private count = 0;
  private first: { topic: string; partition: number; errorCode: number; reason: string | null } | null = null;

  add(topic: string, partition: number, errorCode: number, reason: string | null): void {
    this.count++;
    this.first ??= { topic, partition, errorCode, reason };
  }

  log(context: ApiRequestContext): void {
    const first = this.first;
    if (first === null) return;
    const error = errorName(first.errorCode) ?? String(first.errorCode);
    logRefusedRequest(context.logger, {
      peer: context.peer,
      api: 'Produce',
      apiKey: context.apiKey,
      apiVersion: context.apiVersion,
      correlationId: context.correlationId,
      clientId: context.clientId,
      errorCode: first.errorCode,
      error,
    }, `${first.topic}-${first.partition}: ${first.reason ?? error}` + (this.count > 1 ? ` (and ${this.count - 1} other partition(s) refused in this request)` : ''));
  }
}
