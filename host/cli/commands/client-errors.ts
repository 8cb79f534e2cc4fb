/**
 * Turns client-library failures into CliErrors that name the problem and the fix.
 */
import { ConnectionError, KafkaError, KafkaTimeoutError, UnsupportedVersionError } from '../../clients/errors.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { CliError } from '../output.js';

/** The fix to suggest for a Kafka error code. */
function fixFor(code: number): string {
  switch (code) {
    case ErrorCode.TOPIC_ALREADY_EXISTS:
      return 'pick another name, or add --if-not-exists to accept the existing topic';
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
      return 'check the topic name (tributary topic list) and the partition number (tributary topic describe TOPIC)';
    case ErrorCode.INVALID_PARTITIONS:
      return 'give a positive partition count; a topic can only grow (tributary topic add-partitions TOPIC --num N)';
    case ErrorCode.INVALID_REPLICATION_FACTOR:
      return 'use a replication factor no larger than the number of brokers (tributary cluster info), or -1 for the default';
    case ErrorCode.INVALID_CONFIG:
      return 'correct the config value (Kafka topic config names, e.g. retention.ms=86400000)';
    case ErrorCode.INVALID_TOPIC_EXCEPTION:
      return 'use up to 249 characters from [a-zA-Z0-9._-], not "." or ".."';
    case ErrorCode.NON_EMPTY_GROUP:
      return 'stop the group\'s consumers first (tributary group describe GROUP lists them), then run the command again';
    case ErrorCode.GROUP_ID_NOT_FOUND:
      return 'check the group id with tributary group list';
    case ErrorCode.MESSAGE_TOO_LARGE:
    case ErrorCode.RECORD_LIST_TOO_LARGE:
      return 'send smaller records, or raise max.message.bytes on the topic (tributary topic alter-config TOPIC --set max.message.bytes=N)';
    case ErrorCode.POLICY_VIOLATION:
      return 'the broker\'s message names the limit or policy and the config that raises it; ask for less (e.g. fewer partitions) or have the operator raise it';
    case ErrorCode.TOPIC_AUTHORIZATION_FAILED:
    case ErrorCode.GROUP_AUTHORIZATION_FAILED:
    case ErrorCode.CLUSTER_AUTHORIZATION_FAILED:
      return 'ask the cluster operator for the permission, or use another topic or group';
    case ErrorCode.NOT_ENOUGH_REPLICAS:
    case ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND:
      return 'lower min.insync.replicas on the topic, or produce with --acks 1';
    default:
      return 'check the broker log for details, then run the command again';
  }
}

/** Fix lines one command gives for Kafka error codes in place of the generic ones (code -> fix). */
export type FixOverrides = Readonly<Partial<Record<number, string>>>;

/**
 * A CliError for `error` raised while doing `what` against `servers` (already a CliError: as is);
 * `fixes` replaces the generic fix line for the Kafka error codes it names.
 */
export function toCliError(error: unknown, what: string, servers: string[], fixes: FixOverrides = {}): CliError {
  if (error instanceof CliError) return error;
  const list = servers.join(',');
  if (error instanceof ConnectionError) {
    return new CliError(
      `cannot ${what}: no broker reachable at ${list} (${error.message})`,
      `start one (tributary broker) or point --brokers at a running broker, e.g. --brokers 127.0.0.1:9092`,
    );
  }
  if (error instanceof KafkaTimeoutError) {
    return new CliError(`cannot ${what}: ${error.message}`, `check that the broker at ${list} is healthy (tributary cluster info), then retry`);
  }
  if (error instanceof UnsupportedVersionError) {
    return new CliError(`cannot ${what}: ${error.message}`, 'use a broker that supports the Kafka APIs this command needs (Kafka 2.1 or later)');
  }
  if (error instanceof KafkaError) {
    return new CliError(`cannot ${what}: ${error.message}`, fixes[error.errorCode] ?? fixFor(error.errorCode));
  }
  if (error instanceof RangeError) {
    return new CliError(`cannot ${what}: ${error.message}`, 'correct the arguments (add --help for usage)');
  }
  const message = error instanceof Error ? error.message : String(error);
  return new CliError(`cannot ${what}: ${message}`, 'run the command again; if it persists, report it as a bug');
}

/** Runs `body`, converting failures with toCliError (with the command's `fixes`). */
export async function explain<T>(what: string, servers: string[], body: () => Promise<T>, fixes: FixOverrides = {}): Promise<T> {
  try {
    return await body();
  } catch (error) {
    throw toCliError(error, what, servers, fixes);
  }
}
