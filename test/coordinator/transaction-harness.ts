/** Shared set-up for the transaction coordinator tests: manual time, an in-memory __transaction_state, a scripted marker writer. */
import { InMemoryOffsetsTopic } from '../../host/coordinator/in-memory-offsets-topic.js';
import type { TransactionCoordinatorConfig } from '../../host/coordinator/transaction-coordinator-config.js';
import { TransactionCoordinator } from '../../host/coordinator/transaction-coordinator.js';
import type { TxnMarkerEntry, TxnMarkerWriter } from '../../host/coordinator/transaction-marker-channel-manager.js';
import { ManualTime } from '../../host/io/time.js';
import { ErrorCode } from '../../host/protocol/generated/error-codes.js';

/** Records every marker write; answers NONE unless `answer` says otherwise; `hold` keeps answers until `release`. */
export class ScriptedMarkerWriter implements TxnMarkerWriter {
  readonly writes: TxnMarkerEntry[] = [];
  answer: (entry: TxnMarkerEntry) => number[] = (entry) => entry.partitions.map(() => ErrorCode.NONE);
  hold = false;
  private held: (() => void)[] = [];

  writeMarkers(entry: TxnMarkerEntry): Promise<number[]> {
    this.writes.push(entry);
    const errors = this.answer(entry);
    if (!this.hold) return Promise.resolve(errors);
    return new Promise((resolve) => this.held.push(() => resolve(errors)));
  }

  /** Answers the held writes. */
  release(): void {
    this.hold = false;
    for (const answer of this.held.splice(0)) answer();
  }
}

export interface TxnHarness {
  time: ManualTime;
  log: InMemoryOffsetsTopic;
  writer: ScriptedMarkerWriter;
  coordinator: TransactionCoordinator;
  /** Producer ids handed out so far. */
  allocated: number[];
}

/** A started coordinator owning every partition of `log` (default: empty). */
export function newTxnHarness(config: Partial<TransactionCoordinatorConfig> = {}, log = new InMemoryOffsetsTopic(), time = new ManualTime(1_700_000_000_000)): TxnHarness {
  const allocated: number[] = [];
  let nextProducerId = 1000 + log.partitions().length * 100;
  const writer = new ScriptedMarkerWriter();
  const coordinator = new TransactionCoordinator({
    transactionLog: log,
    time,
    allocateProducerId: () => {
      const producerId = nextProducerId++;
      allocated.push(producerId);
      return Promise.resolve({ errorCode: ErrorCode.NONE, producerId });
    },
    markerWriter: writer,
    config: { transactionStateLogNumPartitions: 4, ...config },
  });
  coordinator.startup();
  for (let partition = 0; partition < coordinator.config.transactionStateLogNumPartitions; partition++) coordinator.onElection(partition, 1);
  return { time, log, writer, coordinator, allocated };
}

/** Lets resolved promises and their continuations run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
