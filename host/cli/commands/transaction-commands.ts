/**
 * `tributary transactions list|describe|find-hanging|abort|describe-producers`: Kafka's
 * kafka-transactions.sh over ListTransactions (every broker), DescribeTransactions (each id's
 * coordinator), DescribeProducers (each partition's leader) and, for abort,
 * an InitProducerId with the transactional id (the coordinator fences the producer and aborts
 * its open transaction, as a restarted producer would).
 */
import { abortTransaction, describeProducers, describeTransactions, listTransactions } from '../../clients/admin-transactions.js';
import type {
  ClientCommandHandlers, ClientOptions, TransactionsDescribeProducersOptions, TransactionsFindHangingOptions, TransactionsListOptions,
} from '../client-commands.js';
import { printResult, type CliIo } from '../output.js';
import { withAdmin } from './client-session.js';

type TransactionHandlers = Pick<ClientCommandHandlers,
  'transactionsList' | 'transactionsDescribe' | 'transactionsFindHanging' | 'transactionsAbort' | 'transactionsDescribeProducers'>;

const LIST_COLUMNS = [
  { header: 'transactional id', value: 'transactionalId' }, { header: 'coordinator', value: 'coordinatorId' },
  { header: 'producer id', value: 'producerId' }, { header: 'state', value: 'state' },
] as const;

async function transactionsList(io: CliIo, options: TransactionsListOptions): Promise<void> {
  const listed = await withAdmin(options, 'list transactions', (admin) => listTransactions(admin.cluster, { states: options.state, producerIds: options.producerId }));
  printResult(io, { rows: listed, columns: LIST_COLUMNS }, options);
}

async function transactionsDescribe(io: CliIo, ids: string[], options: ClientOptions): Promise<void> {
  const described = await withAdmin(options, `describe transactions ${ids.join(', ')}`, (admin) => describeTransactions(admin.cluster, ids));
  const rows = described.map((txn) => ({
    ...txn,
    started: txn.transactionStartTimeMs < 0 ? '-' : new Date(txn.transactionStartTimeMs).toISOString(),
    topicPartitions: txn.partitions.map((p) => `${p.topic}-${p.partition}`).join(',') || '-',
  }));
  printResult(io, {
    rows,
    columns: [
      { header: 'transactional id', value: 'transactionalId' }, { header: 'coordinator', value: 'coordinatorId' },
      { header: 'producer id', value: 'producerId' }, { header: 'epoch', value: 'producerEpoch' }, { header: 'state', value: 'state' },
      { header: 'timeout ms', value: 'transactionTimeoutMs' }, { header: 'started', value: 'started' }, { header: 'partitions', value: 'topicPartitions' },
    ],
    json: described,
  }, options);
}

/** Ongoing transactions open longer than the threshold (the coordinators' view; ListTransactions v1's duration filter). */
async function transactionsFindHanging(io: CliIo, options: TransactionsFindHangingOptions): Promise<void> {
  const listed = await withAdmin(options, 'find hanging transactions', (admin) =>
    listTransactions(admin.cluster, { states: ['Ongoing', 'PrepareCommit', 'PrepareAbort'], minDurationMs: options.maxTransactionTimeout * 60_000 }));
  printResult(io, { rows: listed, columns: LIST_COLUMNS }, options);
}

async function transactionsAbort(io: CliIo, id: string, options: ClientOptions): Promise<void> {
  const fenced = await withAdmin(options, `abort the transaction of "${id}"`, (admin) => abortTransaction(admin.cluster, id));
  const rows = [{ transactionalId: id, result: 'ABORTING (producer fenced)', ...fenced }];
  printResult(io, { rows, columns: [{ header: 'transactional id', value: 'transactionalId' }, { header: 'result', value: 'result' }] }, options);
}

/** Every producer of the topic's partitions (or the ones named), from each partition's leader. */
async function transactionsDescribeProducers(io: CliIo, options: TransactionsDescribeProducersOptions): Promise<void> {
  const described = await withAdmin(options, `describe producers of ${options.topic}`, async (admin) => {
    const partitions = options.partition.length > 0 ? options.partition
      : ((await admin.describeTopics({ topics: [options.topic] }))[0]?.partitions ?? []).map((p) => p.partition);
    return describeProducers(admin.cluster, options.topic, partitions);
  });
  const rows = described.flatMap(({ partition, leaderId, producers }) => producers.map((p) => ({ topic: options.topic, partition, leaderId, ...p })));
  printResult(io, {
    rows,
    columns: [
      { header: 'partition', value: 'partition' }, { header: 'leader', value: 'leaderId' }, { header: 'producer id', value: 'producerId' },
      { header: 'epoch', value: 'producerEpoch' }, { header: 'last sequence', value: 'lastSequence' }, { header: 'last timestamp', value: 'lastTimestamp' },
      { header: 'coordinator epoch', value: 'coordinatorEpoch' }, { header: 'transaction start offset', value: 'currentTransactionStartOffset' },
    ],
  }, options);
}

/** The `tributary transactions ...` commands (list, describe, describe-producers, find-hanging, abort), printing through `io`. */
export function transactionHandlers(io: CliIo): TransactionHandlers {
  return {
    transactionsList: (options: TransactionsListOptions) => transactionsList(io, options),
    transactionsDescribe: (ids: string[], options: ClientOptions) => transactionsDescribe(io, ids, options),
    transactionsFindHanging: (options: TransactionsFindHangingOptions) => transactionsFindHanging(io, options),
    transactionsAbort: (id: string, options: ClientOptions) => transactionsAbort(io, id, options),
    transactionsDescribeProducers: (options: TransactionsDescribeProducersOptions) => transactionsDescribeProducers(io, options),
  };
}
