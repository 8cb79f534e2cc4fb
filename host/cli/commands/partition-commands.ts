/**
 * `tributary partitions reassign|reassignments`: Kafka's kafka-reassign-partitions.sh
 * (--execute, --cancel, --list) over AlterPartitionReassignments and ListPartitionReassignments
 * (KIP-455). A reassignment is accepted at once and finishes in the background, once the new
 * replicas caught up; `reassignments` shows what is still moving.
 */
import { ErrorCode, errorName } from '../../protocol/generated/error-codes.js';
import type { ClientCommandHandlers, PartitionsReassignOptions, PartitionsReassignmentsOptions } from '../client-commands.js';
import { CliError, printResult, type CliIo } from '../output.js';
import { withAdmin } from './client-session.js';

type PartitionsHandlers = Pick<ClientCommandHandlers, 'partitionsReassign' | 'partitionsReassignments'>;

/** Moves (or cancels the moves of) partitions of one topic; any error but NONE fails the command. */
async function partitionsReassign(io: CliIo, options: PartitionsReassignOptions): Promise<void> {
  const replicas = options.cancel ? null : options.replicas!;
  const results = await withAdmin(options, `reassign partitions of "${options.topic}"`, (admin) => admin.alterPartitionReassignments({
    reassignments: options.partition.map((partition) => ({ topic: options.topic, partition, replicas })),
  }));
  const rows = results.map((r) => ({
    topic: r.topic, partition: r.partition, replicas: replicas ?? '-',
    status: r.errorCode === ErrorCode.NONE ? (options.cancel ? 'CANCELLED' : 'REASSIGNING') : errorName(r.errorCode) ?? `ERROR_${r.errorCode}`,
    message: r.errorMessage,
  }));
  printResult(io, {
    rows,
    columns: [
      { header: 'topic', value: 'topic' }, { header: 'partition', value: 'partition' }, { header: 'replicas', value: 'replicas' },
      { header: 'status', value: 'status' },
    ],
    json: rows,
  }, options);
  const failed = results.filter((r) => r.errorCode !== ErrorCode.NONE);
  if (failed.length > 0) {
    const cancelFix = 'nothing is moving there: see tributary partitions reassignments';
    throw new CliError(
      `not reassigned: ${failed.map((f) => `${f.topic}-${f.partition} (${errorName(f.errorCode) ?? f.errorCode}${f.errorMessage === null ? '' : `: ${f.errorMessage}`})`).join(', ')}`,
      failed.every((f) => f.errorCode === ErrorCode.NO_REASSIGNMENT_IN_PROGRESS) ? cancelFix
        : failed.every((f) => f.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) ? 'name an existing topic and partition (see tributary topic describe)'
          : 'name registered brokers, each once (see tributary cluster info)',
    );
  }
}

/** The moves in flight: the replicas while moving (old and new), and which are being added and removed. */
async function partitionsReassignments(io: CliIo, options: PartitionsReassignmentsOptions): Promise<void> {
  const ongoing = await withAdmin(options, 'list partition reassignments', async (admin) => {
    if (options.topic.length === 0) return admin.listPartitionReassignments();
    const described = await admin.describeTopics({ topics: options.topic });
    return admin.listPartitionReassignments({ topics: described.map((d) => ({ topic: d.name, partitions: d.partitions.map((p) => p.partition) })) });
  });
  printResult(io, {
    rows: ongoing,
    columns: [
      { header: 'topic', value: 'topic' }, { header: 'partition', value: 'partition' }, { header: 'replicas', value: 'replicas' },
      { header: 'adding', value: 'addingReplicas' }, { header: 'removing', value: 'removingReplicas' },
    ],
  }, options);
}

export function partitionsHandlers(io: CliIo): PartitionsHandlers {
  return {
    partitionsReassign: (options: PartitionsReassignOptions) => partitionsReassign(io, options),
    partitionsReassignments: (options: PartitionsReassignmentsOptions) => partitionsReassignments(io, options),
  };
}
