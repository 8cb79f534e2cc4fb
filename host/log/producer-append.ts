/**
 * The idempotent-producer step of a leader append (Kafka's UnifiedLog.analyzeAndValidateProducerState):
 * the checks run on the batch summaries the WebAssembly core returned for the validated and
 * stamped batches, after the log's own checks and before anything is written, so a Produce walks
 * the batch headers once on the host (in Core.prepareAppend's result reading), not once more here.
 *
 * Order inside UnifiedLog.appendAsLeader, as in Kafka (LogValidator first, producer state second):
 * ```
 *   core.prepareAppend (framing, CRC, records, stamping) → size / control / compressed checks
 *     → producerState.checkAndPrepare(summaries)  error 45/47/59: nothing written
 *                                                 duplicate: original offsets, nothing written
 *     → write to the active segment → producerState.onAppended(summaries)
 * ```
 */
import type { BatchSummary } from '../wasm/core.js';
import { type AppendResult, LogErrorCode } from './log-results.js';
import type { AppendOrigin, ProducerBatchInfo, ProducerCheckResult } from './producer-state-manager.js';

/**
 * What a leader append consults and updates; ProducerStateManager implements it. Both calls get
 * the batches of one append in offset order with their stamped offsets (baseOffset from the log
 * end) and the maxTimestamp stored (the broker time under LogAppendTime).
 */
export interface ProducerAppendState {
  /** Checks without changing anything: error 45/47/48/52/59, a duplicate's original offsets, or NONE. */
  checkAndPrepare(batches: readonly ProducerBatchInfo[], origin?: AppendOrigin): ProducerCheckResult;
  /** Records the batches once they are written. */
  onAppended(batches: readonly ProducerBatchInfo[]): void;
}

/**
 * Runs the producer-state check on the summaries of a prepared leader append. Returns null when
 * the append may proceed, else the AppendResult to answer with: the check's error (offsets -1,
 * errorMessage set), or for a retried duplicate errorCode NONE with the original offsets and no
 * batches (nothing is written). `logAppendTimeMs` >= 0 for LogAppendTime topics, where the
 * duplicate is answered with the timestamp the original append stored.
 */
export function checkProducerAppend(
  producerState: ProducerAppendState,
  batches: readonly ProducerBatchInfo[],
  logAppendTimeMs: number,
  logStartOffset: number,
  origin: AppendOrigin = 'client',
): AppendResult | null {
  const check = producerState.checkAndPrepare(batches, origin);
  if (check.errorCode !== LogErrorCode.NONE) {
    return {
      errorCode: check.errorCode,
      ...(check.errorMessage !== undefined ? { errorMessage: check.errorMessage } : {}),
      baseOffset: -1, lastOffset: -1, logAppendTimeMs: -1, logStartOffset, batches: [],
    };
  }
  const duplicate = check.duplicateOf;
  if (duplicate === undefined) return null;
  return {
    errorCode: LogErrorCode.NONE,
    baseOffset: duplicate.baseOffset,
    lastOffset: duplicate.lastOffset,
    logAppendTimeMs: logAppendTimeMs >= 0 ? duplicate.timestamp : -1,
    logStartOffset,
    batches: [],
  };
}
