/**
 * States of a transactional id at its transaction coordinator, Kafka's TransactionState
 * (TransactionMetadata.scala); the id of each state is the `transaction_status` byte of the
 * TransactionLogValue record, and its name is what DescribeTransactions and ListTransactions show.
 *
 * ```
 *                 AddPartitionsToTxn / AddOffsetsToTxn
 *   +-------+ -------------------------------------> +---------+ <-+ more partitions
 *   | Empty |                                         | Ongoing | --+
 *   +-------+ <--+                                    +---------+
 *     ^  | ^     | InitProducerId                       |   |  \  InitProducerId of a new producer,
 *     |  | |     | (epoch bump)              EndTxn     |   |   \ transaction timeout
 *     |  | |     |                           commit     |   |    v
 *     |  | |  +----------------+  +----------------+    |   |  +-------------------+ (in memory only:
 *     |  | +--| CompleteCommit |<-| PrepareCommit  |<---+   |  | PrepareEpochFence | never written)
 *     |  |    +----------------+  +----------------+        |  +-------------------+
 *     |  |         markers written ^                 EndTxn |    |
 *     |  |                                           abort  v    v
 *     |  |    +----------------+  +----------------+
 *     |  +----| CompleteAbort  |<-|  PrepareAbort  |
 *     |       +----------------+  +----------------+
 *     |  transactional.id.expiration.ms passed (Empty, CompleteCommit, CompleteAbort)
 *     v
 *   +------+
 *   | Dead |  (a tombstone is written; the id is forgotten)
 *   +------+
 * ```
 * Both Complete states behave as Empty for the next InitProducerId or AddPartitionsToTxn.
 *
 * Legal source states of each transition (asserted by {@link assertValidTransition}):
 * - Empty <- Empty, CompleteCommit, CompleteAbort
 * - Ongoing <- Ongoing, Empty, CompleteCommit, CompleteAbort
 * - PrepareCommit <- Ongoing
 * - PrepareAbort <- Ongoing, PrepareEpochFence
 * - CompleteCommit <- PrepareCommit
 * - CompleteAbort <- PrepareAbort
 * - Dead <- Empty, CompleteAbort, CompleteCommit
 * - PrepareEpochFence <- Ongoing
 */
export enum TransactionState {
  Empty = 0,
  Ongoing = 1,
  PrepareCommit = 2,
  PrepareAbort = 3,
  CompleteCommit = 4,
  CompleteAbort = 5,
  Dead = 6,
  PrepareEpochFence = 7,
}

const NAMES: Readonly<Record<TransactionState, string>> = {
  [TransactionState.Empty]: 'Empty',
  [TransactionState.Ongoing]: 'Ongoing',
  [TransactionState.PrepareCommit]: 'PrepareCommit',
  [TransactionState.PrepareAbort]: 'PrepareAbort',
  [TransactionState.CompleteCommit]: 'CompleteCommit',
  [TransactionState.CompleteAbort]: 'CompleteAbort',
  [TransactionState.Dead]: 'Dead',
  [TransactionState.PrepareEpochFence]: 'PrepareEpochFence',
};

const S = TransactionState;
const VALID_PREVIOUS_STATES: ReadonlyMap<TransactionState, ReadonlySet<TransactionState>> = new Map<TransactionState, ReadonlySet<TransactionState>>([
  [S.Empty, new Set<TransactionState>([S.Empty, S.CompleteCommit, S.CompleteAbort])],
  [S.Ongoing, new Set<TransactionState>([S.Ongoing, S.Empty, S.CompleteCommit, S.CompleteAbort])],
  [S.PrepareCommit, new Set<TransactionState>([S.Ongoing])],
  [S.PrepareAbort, new Set<TransactionState>([S.Ongoing, S.PrepareEpochFence])],
  [S.CompleteCommit, new Set<TransactionState>([S.PrepareCommit])],
  [S.CompleteAbort, new Set<TransactionState>([S.PrepareAbort])],
  [S.Dead, new Set<TransactionState>([S.Empty, S.CompleteAbort, S.CompleteCommit])],
  [S.PrepareEpochFence, new Set<TransactionState>([S.Ongoing])],
]);

/** Kafka's name of a state ("Ongoing"), as DescribeTransactions and ListTransactions answer it. */
export function transactionStateName(state: TransactionState): string {
  return NAMES[state];
}

/** The state of a name (ListTransactions `state_filters`); undefined for an unknown name. */
export function transactionStateFromName(name: string): TransactionState | undefined {
  for (const [state, stateName] of Object.entries(NAMES)) if (stateName === name) return Number(state) as TransactionState;
  return undefined;
}

/** The state of a `transaction_status` byte; undefined for an unknown id (a record of a newer coordinator). */
export function transactionStateFromId(id: number): TransactionState | undefined {
  return Number.isInteger(id) && id >= 0 && id <= 7 ? id as TransactionState : undefined;
}

/** Whether `from -> to` is a legal transition. */
export function isValidTransition(from: TransactionState, to: TransactionState): boolean {
  return VALID_PREVIOUS_STATES.get(to)!.has(from);
}

/** @throws Error (a bug) when `from -> to` is not a legal transition. */
export function assertValidTransition(transactionalId: string, from: TransactionState, to: TransactionState): void {
  if (!isValidTransition(from, to)) {
    throw new Error(`transactional id ${transactionalId}: illegal transition ${NAMES[from]} -> ${NAMES[to]}`);
  }
}

/** States whose transactional id may expire after transactional.id.expiration.ms (Kafka's isExpirationAllowed). */
export function isExpirationAllowed(state: TransactionState): boolean {
  return state === S.Empty || state === S.CompleteCommit || state === S.CompleteAbort;
}
