/**
 * The client-backed commands of `tributary` (rpk-like): their names, arguments and options, with
 * typed option objects. Only the *definitions* live here: a command is registered only when a
 * handler for it is given, so the CLI never offers a command that does nothing. The engineer who
 * implements them (over host/clients/) supplies {@link ClientCommandHandlers} to
 * {@link registerClientCommands} in program.ts.
 *
 * ```
 * tributary topic create TOPIC [-p N] [-r N] [-c key=value ...] [--if-not-exists]
 * tributary topic list [--internal]
 * tributary topic describe TOPIC...
 * tributary topic delete TOPIC...
 * tributary topic alter-config TOPIC [--set key=value ...] [--delete key ...]
 * tributary topic add-partitions TOPIC --num N
 * tributary topic elect-leaders TOPIC... [--unclean] [--partition N...]
 * tributary partitions reassign --topic TOPIC --partition N... (--replicas ID,ID,... | --cancel)
 * tributary partitions reassignments [--topic TOPIC...]
 * tributary produce TOPIC [-k DELIM] [-p N] [--acks -1|0|1] [-H key=value ...] [-z CODEC]
 * tributary consume TOPIC [-g GROUP] [--from beginning|end|offset:N|timestamp:MS] [-p N ...] [-n COUNT] [-f FORMAT]
 *                         (--from-beginning, -o OFFSET, --timestamp MS are the long spellings of --from)
 * tributary group list | describe GROUP... | delete GROUP... | seek GROUP --to earliest|latest|OFFSET|@TIMESTAMP [-t TOPIC]
 * tributary cluster info
 * tributary transactions list [--state STATE...] [--producer-id ID...]
 * tributary transactions describe TRANSACTIONAL_ID...
 * tributary transactions find-hanging [--max-transaction-timeout MINUTES]
 * tributary transactions abort TRANSACTIONAL_ID
 * tributary transactions describe-producers --topic TOPIC [--partition N...]
 * ```
 * Every one takes `-b, --bootstrap-server host:port[,host:port]` (alias `--brokers`, default
 * 127.0.0.1:9092) and `--json`.
 */
import { Command, InvalidArgumentError } from 'commander';
import { CliError, CliIo, ExitCode, runCliAction } from './output.js';

/** Options every client command takes. */
export interface ClientOptions {
  /** `host:port` entries, in the order given. */
  bootstrapServer: string[];
  /** Print one JSON document instead of a table. */
  json: boolean;
}

export interface TopicCreateOptions extends ClientOptions {
  /** -1 = the broker's num.partitions. */
  partitions: number;
  /** -1 = the broker's default.replication.factor. */
  replicationFactor: number;
  /** Topic config overrides, Kafka names. */
  config: Record<string, string>;
  ifNotExists: boolean;
}
export interface TopicListOptions extends ClientOptions {
  /** Include internal topics such as __consumer_offsets. */
  internal: boolean;
}
export interface TopicAlterConfigOptions extends ClientOptions {
  set: Record<string, string>;
  delete: string[];
}
export interface TopicAddPartitionsOptions extends ClientOptions {
  /** Partitions to add (not the new total). */
  num: number;
}
export interface ProduceOptions extends ClientOptions {
  /** Each stdin line is KEY<delim>VALUE; absent = the line is the value, key null. */
  keyDelimiter?: string;
  /** Absent = the partitioner picks. */
  partition?: number;
  acks: -1 | 0 | 1;
  headers: Record<string, string>;
  compression: 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';
}
export type ConsumeFormat = 'value' | 'key-value' | 'json';

/**
 * `--format`: a named format, or a template where %t topic, %p partition, %o offset, %k key,
 * %v value, %T timestamp (ms), %h headers (k=v,...), %% a percent sign, and \n \t \\ escapes
 * (e.g. '%k %v\n'). A template without a trailing newline prints records back to back.
 */
export function consumeFormatOption(text: string): string {
  if (['value', 'key-value', 'json'].includes(text) || text.includes('%')) return text;
  throw new InvalidArgumentError("expected value, key-value, json, or a template such as '%k %v\\n'");
}

/** `--from beginning|end|offset:N|timestamp:MS` as the equivalent consume options. */
export function consumeFromOption(text: string): Pick<ConsumeOptions, 'fromBeginning' | 'offset' | 'timestamp'> {
  if (text === 'beginning') return { fromBeginning: true };
  if (text === 'end') return { fromBeginning: false };
  const offset = /^offset:(\d+)$/.exec(text);
  if (offset !== null) return { fromBeginning: false, offset: Number(offset[1]) };
  const timestamp = /^timestamp:(\d+)$/.exec(text);
  if (timestamp !== null) return { fromBeginning: false, timestamp: Number(timestamp[1]) };
  throw new InvalidArgumentError('expected beginning, end, offset:N or timestamp:MS');
}
export interface ConsumeOptions extends ClientOptions {
  /** Absent = assign partitions directly, commit nothing. */
  group?: string;
  fromBeginning: boolean;
  /** Start offset in each partition. */
  offset?: number;
  /** Start at the first record with timestamp >= this (ms since epoch). */
  timestamp?: number;
  /** Partitions to read; empty = all. */
  partition: number[];
  /** Stop after this many records; absent = until interrupted. */
  count?: number;
  /** A ConsumeFormat name or a template (see consumeFormatOption). */
  format: ConsumeFormat | string;
}
export interface GroupDescribeOptions extends ClientOptions {
  /**
   * `host:port` of the broker's HTTP listener (http.listeners), where it serves the lag in seconds
   * and the status it computes (`GET /consumer-lag`); default the first broker's host, port 8080.
   */
  http?: string;
}

export interface GroupSeekOptions extends ClientOptions {
  to: { kind: 'earliest' } | { kind: 'latest' } | { kind: 'offset'; offset: number } | { kind: 'timestamp'; timestampMs: number };
  /** Topics to reset; empty = every topic the group has committed offsets for. */
  topic: string[];
}

export interface TopicElectLeadersOptions extends ClientOptions {
  /** Elect a live out-of-sync replica where no in-sync one can lead (may lose records); default: the preferred replica. */
  unclean: boolean;
  /** Partitions of every named topic; empty = all of them. */
  partition: number[];
}

export interface PartitionsReassignOptions extends ClientOptions {
  topic: string;
  /** Partitions of `topic` to move (at least one). */
  partition: number[];
  /** Target broker ids, preferred leader first; absent with --cancel. */
  replicas?: number[];
  /** Cancel the moves in flight instead (back to the original replicas). */
  cancel: boolean;
}
export interface PartitionsReassignmentsOptions extends ClientOptions {
  /** Only these topics; empty = every topic. */
  topic: string[];
}
/** tributary transactions list. */
export interface TransactionsListOptions extends ClientOptions {
  /** Only these states (Kafka's names: Empty, Ongoing, PrepareCommit, ...); empty = all. */
  state: string[];
  /** Only these producer ids; empty = all. */
  producerId: number[];
}
/** tributary transactions describe-producers. */
export interface TransactionsDescribeProducersOptions extends ClientOptions {
  /** The topic whose partitions' leaders are asked (DescribeProducers). */
  topic: string;
  /** Only these partitions; empty = every partition of the topic. */
  partition: number[];
}
/** tributary transactions find-hanging. */
export interface TransactionsFindHangingOptions extends ClientOptions {
  /** Ongoing transactions open longer than this many minutes are reported (kafka-transactions' default 15). */
  maxTransactionTimeout: number;
}

/** One function per command; each prints its result and throws CliError on failure. */
export interface ClientCommandHandlers {
  topicCreate(topic: string, options: TopicCreateOptions): Promise<void>;
  topicList(options: TopicListOptions): Promise<void>;
  topicDescribe(topics: string[], options: ClientOptions): Promise<void>;
  topicDelete(topics: string[], options: ClientOptions): Promise<void>;
  topicAlterConfig(topic: string, options: TopicAlterConfigOptions): Promise<void>;
  topicAddPartitions(topic: string, options: TopicAddPartitionsOptions): Promise<void>;
  topicElectLeaders(topics: string[], options: TopicElectLeadersOptions): Promise<void>;
  partitionsReassign(options: PartitionsReassignOptions): Promise<void>;
  partitionsReassignments(options: PartitionsReassignmentsOptions): Promise<void>;
  produce(topic: string, options: ProduceOptions): Promise<void>;
  consume(topic: string, options: ConsumeOptions): Promise<void>;
  groupList(options: ClientOptions): Promise<void>;
  groupDescribe(groups: string[], options: GroupDescribeOptions): Promise<void>;
  groupDelete(groups: string[], options: ClientOptions): Promise<void>;
  groupSeek(group: string, options: GroupSeekOptions): Promise<void>;
  clusterInfo(options: ClientOptions): Promise<void>;
  transactionsList(options: TransactionsListOptions): Promise<void>;
  transactionsDescribe(transactionalIds: string[], options: ClientOptions): Promise<void>;
  transactionsFindHanging(options: TransactionsFindHangingOptions): Promise<void>;
  transactionsAbort(transactionalId: string, options: ClientOptions): Promise<void>;
  transactionsDescribeProducers(options: TransactionsDescribeProducersOptions): Promise<void>;
}

/** Parses a decimal integer option in [min, max]; commander reports the failure (exit 2). */
export function integerOption(min: number, max = Number.MAX_SAFE_INTEGER): (text: string) => number {
  return (text) => {
    if (!/^[+-]?\d+$/.test(text.trim()) || Number(text) < min || Number(text) > max) {
      throw new InvalidArgumentError(`expected an integer between ${min} and ${max}`);
    }
    return Number(text);
  };
}

/** Accumulates repeated/variadic `key=value` options into a record (last one wins). */
export function keyValueOption(text: string, previous: Record<string, string> = {}): Record<string, string> {
  const equals = text.indexOf('=');
  if (equals <= 0) throw new InvalidArgumentError(`expected key=value, e.g. retention.ms=86400000`);
  return { ...previous, [text.slice(0, equals)]: text.slice(equals + 1) };
}

function collect<T>(parse: (text: string) => T): (text: string, previous: T[] | undefined) => T[] {
  return (text, previous) => [...(previous ?? []), parse(text)];
}

function bootstrapServers(text: string): string[] {
  const servers = text.split(',').map((item) => item.trim()).filter((item) => item !== '');
  if (servers.length === 0 || servers.some((server) => !/^(\[[^\]]+\]|[^:\s]+):\d+$/.test(server))) {
    throw new InvalidArgumentError('expected host:port[,host:port...], e.g. 127.0.0.1:9092');
  }
  return servers;
}

/** `--replicas 2,3,4`: distinct broker ids, preferred leader first. */
function brokerIdList(text: string): number[] {
  const ids = text.split(',').map((item) => item.trim());
  if (ids.length === 0 || ids.some((id) => !/^\d+$/.test(id)) || new Set(ids).size !== ids.length) {
    throw new InvalidArgumentError('expected distinct broker ids separated by commas, e.g. 2,3,4');
  }
  return ids.map(Number);
}

function seekTarget(text: string): GroupSeekOptions['to'] {
  if (text === 'earliest' || text === 'latest') return { kind: text };
  if (/^\d+$/.test(text)) return { kind: 'offset', offset: Number(text) };
  if (/^@\d+$/.test(text)) return { kind: 'timestamp', timestampMs: Number(text.slice(1)) };
  throw new InvalidArgumentError('expected earliest, latest, an offset, or @TIMESTAMP_MS');
}

function withClientOptions(command: Command): Command {
  return command
    .option('-b, --bootstrap-server <host:port,...>', 'brokers to connect to', bootstrapServers, ['127.0.0.1:9092'])
    .option('--brokers <host:port,...>', 'same as --bootstrap-server', bootstrapServers)
    .option('--json', 'print one JSON document instead of a table', false)
    .hook('preAction', (_command, action) => {
      // --brokers is another spelling of --bootstrap-server: handlers see only bootstrapServer.
      const brokers = action.getOptionValue('brokers') as string[] | undefined;
      if (brokers !== undefined) {
        action.setOptionValue('bootstrapServer', brokers);
        action.setOptionValue('brokers', undefined);
      }
    });
}

type Handler<K extends keyof ClientCommandHandlers> = ClientCommandHandlers[K] | undefined;

/**
 * Registers the commands that have a handler (and their parent `topic`/`group`/`cluster` when at
 * least one child has one). Commands without a handler are not registered at all.
 */
export function registerClientCommands(program: Command, handlers: Partial<ClientCommandHandlers>, io: CliIo): void {
  const run = (body: () => Promise<void>): Promise<void> => runCliAction(io, body);
  const group = (name: string, description: string, keys: (keyof ClientCommandHandlers)[]): Command | undefined =>
    keys.some((key) => handlers[key] !== undefined) ? program.command(name).description(description) : undefined;
  const context: RegistrationContext = { program, handlers, run, group };
  registerTopicCommands(context);
  registerPartitionsCommands(context);
  registerRecordCommands(context);
  registerGroupCommands(context);
  registerClusterCommands(context);
  registerTransactionsCommands(context);
}

/** What each family of commands registers with. */
interface RegistrationContext {
  readonly program: Command;
  readonly handlers: Partial<ClientCommandHandlers>;
  /** Runs an action's body with the CLI's error handling and exit codes. */
  readonly run: (body: () => Promise<void>) => Promise<void>;
  /** The parent command `name`, registered when at least one of `keys` has a handler. */
  readonly group: (name: string, description: string, keys: (keyof ClientCommandHandlers)[]) => Command | undefined;
}

/** `topic create|list|describe|delete|alter-config|add-partitions|elect-leaders`. */
function registerTopicCommands({ handlers, run, group }: RegistrationContext): void {
  const topic = group('topic', 'create, list, describe, delete and configure topics', [
    'topicCreate', 'topicList', 'topicDescribe', 'topicDelete', 'topicAlterConfig', 'topicAddPartitions', 'topicElectLeaders',
  ]);
  const topicCreate: Handler<'topicCreate'> = handlers.topicCreate;
  if (topic && topicCreate) {
    withClientOptions(topic.command('create').description('create a topic').argument('<topic>'))
      .option('-p, --partitions <n>', 'partitions (-1 = broker num.partitions)', integerOption(-1, 2147483647), -1)
      .option('-r, --replication-factor <n>', 'replicas (-1 = broker default.replication.factor)', integerOption(-1, 32767), -1)
      .option('-c, --config <key=value...>', 'topic config, e.g. retention.ms=86400000', keyValueOption, {})
      .option('--if-not-exists', 'succeed if the topic already exists', false)
      .action((name: string, options: TopicCreateOptions) => run(() => topicCreate(name, options)));
  }
  const topicList: Handler<'topicList'> = handlers.topicList;
  if (topic && topicList) {
    withClientOptions(topic.command('list').description('list topics with partition counts'))
      .option('-i, --internal', 'include internal topics', false)
      .action((options: TopicListOptions) => run(() => topicList(options)));
  }
  const topicDescribe: Handler<'topicDescribe'> = handlers.topicDescribe;
  if (topic && topicDescribe) {
    withClientOptions(topic.command('describe').description('partitions, leaders, offsets and configs of topics').argument('<topics...>'))
      .action((names: string[], options: ClientOptions) => run(() => topicDescribe(names, options)));
  }
  const topicDelete: Handler<'topicDelete'> = handlers.topicDelete;
  if (topic && topicDelete) {
    withClientOptions(topic.command('delete').description('delete topics and their data').argument('<topics...>'))
      .action((names: string[], options: ClientOptions) => run(() => topicDelete(names, options)));
  }
  const topicAlterConfig: Handler<'topicAlterConfig'> = handlers.topicAlterConfig;
  if (topic && topicAlterConfig) {
    withClientOptions(topic.command('alter-config').description('set or remove topic config overrides').argument('<topic>'))
      .option('-s, --set <key=value...>', 'set a topic config', keyValueOption, {})
      .option('-d, --delete <key...>', 'remove an override (back to the broker default)', collect((text: string) => text), [])
      .action((name: string, options: TopicAlterConfigOptions) => run(() => topicAlterConfig(name, options)));
  }
  const topicAddPartitions: Handler<'topicAddPartitions'> = handlers.topicAddPartitions;
  if (topic && topicAddPartitions) {
    withClientOptions(topic.command('add-partitions').description('add partitions to a topic').argument('<topic>'))
      .requiredOption('-n, --num <n>', 'how many partitions to add', integerOption(1, 2147483647))
      .action((name: string, options: TopicAddPartitionsOptions) => run(() => topicAddPartitions(name, options)));
  }
  const topicElectLeaders: Handler<'topicElectLeaders'> = handlers.topicElectLeaders;
  if (topic && topicElectLeaders) {
    withClientOptions(topic.command('elect-leaders').description('move leadership to the preferred replicas (or, --unclean, revive offline partitions)').argument('<topics...>'))
      .option('--unclean', 'elect a live out-of-sync replica where no in-sync replica can lead (may lose records)', false)
      .option('--partition <n...>', 'only these partitions', collect(integerOption(0, 2147483647)), [])
      .action((names: string[], options: TopicElectLeadersOptions) => run(() => topicElectLeaders(names, options)));
  }
}

/** `partitions reassign|reassignments` (kafka-reassign-partitions.sh --execute / --cancel / --list). */
function registerPartitionsCommands({ handlers, run, group }: RegistrationContext): void {
  const partitions = group('partitions', 'move partitions between brokers', ['partitionsReassign', 'partitionsReassignments']);
  const reassign: Handler<'partitionsReassign'> = handlers.partitionsReassign;
  if (partitions && reassign) {
    withClientOptions(partitions.command('reassign').description('move partitions to new replicas (or --cancel the moves in flight)'))
      .requiredOption('-t, --topic <topic>', 'the topic')
      .requiredOption('-p, --partition <n...>', 'the partitions to move', collect(integerOption(0, 2147483647)))
      .option('-r, --replicas <ids>', 'target broker ids, preferred leader first, e.g. 2,3,4', brokerIdList)
      .option('--cancel', 'cancel the moves in flight (back to the original replicas)', false)
      .action((options: PartitionsReassignOptions) => run(() => {
        if ((options.replicas === undefined) === !options.cancel) {
          throw new CliError('give either --replicas or --cancel', 'e.g. --replicas 2,3,4', ExitCode.USAGE);
        }
        return reassign(options);
      }));
  }
  const reassignments: Handler<'partitionsReassignments'> = handlers.partitionsReassignments;
  if (partitions && reassignments) {
    withClientOptions(partitions.command('reassignments').description('list the partition moves in flight'))
      .option('-t, --topic <topic...>', 'only these topics', collect((text: string) => text), [])
      .action((options: PartitionsReassignmentsOptions) => run(() => reassignments(options)));
  }
}

/** `transactions list|describe|find-hanging|abort|describe-producers` (kafka-transactions.sh). */
function registerTransactionsCommands({ handlers, run, group }: RegistrationContext): void {
  const transactions = group('transactions', 'list, describe and abort transactions',
    ['transactionsList', 'transactionsDescribe', 'transactionsFindHanging', 'transactionsAbort', 'transactionsDescribeProducers']);
  if (transactions === undefined) return;
  const list: Handler<'transactionsList'> = handlers.transactionsList;
  if (list) {
    withClientOptions(transactions.command('list').description('every transactional id with its producer id and state'))
      .option('--state <state...>', 'only these states (Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort)', collect((text: string) => text), [])
      .option('--producer-id <id...>', 'only these producer ids', collect(integerOption(0)), [])
      .action((options: TransactionsListOptions) => run(() => list(options)));
  }
  const describe: Handler<'transactionsDescribe'> = handlers.transactionsDescribe;
  if (describe) {
    withClientOptions(transactions.command('describe').description('state, partitions, timeout and producer of transactional ids').argument('<transactional-ids...>'))
      .action((ids: string[], options: ClientOptions) => run(() => describe(ids, options)));
  }
  const findHanging: Handler<'transactionsFindHanging'> = handlers.transactionsFindHanging;
  if (findHanging) {
    withClientOptions(transactions.command('find-hanging').description('transactions open longer than --max-transaction-timeout minutes'))
      .option('--max-transaction-timeout <minutes>', 'report transactions open longer than this', integerOption(0), 15)
      .action((options: TransactionsFindHangingOptions) => run(() => findHanging(options)));
  }
  const abort: Handler<'transactionsAbort'> = handlers.transactionsAbort;
  if (abort) {
    withClientOptions(transactions.command('abort').description('abort the open transaction of a transactional id (fences its producer)').argument('<transactional-id>'))
      .action((id: string, options: ClientOptions) => run(() => abort(id, options)));
  }
  const describeProducers: Handler<'transactionsDescribeProducers'> = handlers.transactionsDescribeProducers;
  if (describeProducers) {
    withClientOptions(transactions.command('describe-producers').description('the producers a partition leader knows, with their open transaction\'s start offset'))
      .requiredOption('-t, --topic <topic>', 'the topic')
      .option('--partition <n...>', 'only these partitions', collect(integerOption(0, 2147483647)), [])
      .action((options: TransactionsDescribeProducersOptions) => run(() => describeProducers(options)));
  }
}

/** `produce` and `consume`. */
function registerRecordCommands({ program, handlers, run }: RegistrationContext): void {
  const produce: Handler<'produce'> = handlers.produce;
  if (produce) {
    withClientOptions(program.command('produce').description('produce stdin lines as records').argument('<topic>'))
      .option('-k, --key-delimiter <delim>', 'split each line into KEY<delim>VALUE')
      .option('-p, --partition <n>', 'write to this partition (default: the partitioner picks)', integerOption(0, 2147483647))
      .option('--acks <acks>', 'acknowledgements: -1 (all), 0 or 1', integerOption(-1, 1), -1)
      .option('-H, --header <key=value...>', 'a record header', keyValueOption, {})
      .option('-z, --compression <codec>', 'none, gzip, snappy, lz4 or zstd', (text: string) => {
        if (!['none', 'gzip', 'snappy', 'lz4', 'zstd'].includes(text)) {
          throw new InvalidArgumentError('expected none, gzip, snappy, lz4 or zstd');
        }
        return text;
      }, 'none')
      .action((name: string, options: Omit<ProduceOptions, 'headers'> & { header: Record<string, string> }) => {
        const { header, ...rest } = options;
        return run(() => produce(name, { ...rest, headers: header }));
      });
  }

  const consume: Handler<'consume'> = handlers.consume;
  if (consume) {
    withClientOptions(program.command('consume').description('print records of a topic').argument('<topic>'))
      .option('-g, --group <group>', 'consume as a member of this group and commit offsets')
      .option('--from-beginning', 'start at the earliest offset when there is no committed offset', false)
      .option('-o, --offset <offset>', 'start at this offset', integerOption(0))
      .option('--timestamp <ms>', 'start at the first record with a timestamp >= ms', integerOption(0))
      .option('-p, --partition <n...>', 'read only these partitions', collect(integerOption(0, 2147483647)), [])
      .option('--from <where>', 'beginning, end, offset:N or timestamp:MS', consumeFromOption)
      .option('-n, --count <n>', 'exit after this many records', integerOption(1))
      .option('-f, --format <format>', "value, key-value, json, or a template such as '%k %v\\n'", consumeFormatOption, 'value')
      .action((name: string, options: ConsumeOptions & { from?: ReturnType<typeof consumeFromOption> }) => {
        const { from, ...rest } = options;
        if (from !== undefined && (rest.fromBeginning || rest.offset !== undefined || rest.timestamp !== undefined)) {
          return run(() => {
            throw new CliError('--from cannot be combined with --from-beginning, --offset or --timestamp', 'give the start position once, e.g. --from offset:42', ExitCode.USAGE);
          });
        }
        return run(() => consume(name, from === undefined ? rest : { ...rest, ...from }));
      });
  }
}

/** `group list|describe|delete|seek`. */
function registerGroupCommands({ handlers, run, group }: RegistrationContext): void {
  const groupCommand = group('group', 'list, describe, delete and reset consumer groups', [
    'groupList', 'groupDescribe', 'groupDelete', 'groupSeek',
  ]);
  const groupList: Handler<'groupList'> = handlers.groupList;
  if (groupCommand && groupList) {
    withClientOptions(groupCommand.command('list').description('list consumer groups and their states'))
      .action((options: ClientOptions) => run(() => groupList(options)));
  }
  const groupDescribe: Handler<'groupDescribe'> = handlers.groupDescribe;
  if (groupCommand && groupDescribe) {
    withClientOptions(groupCommand.command('describe').description('members, assignments, committed offsets, lag in offsets and seconds, status').argument('<groups...>'))
      .option('--http <host:port>', 'the coordinator\'s http.listeners address, for lag in seconds and status (default: found from the coordinator, DescribeConfigs http.listeners)')
      .action((names: string[], options: GroupDescribeOptions) => run(() => groupDescribe(names, options)));
  }
  const groupDelete: Handler<'groupDelete'> = handlers.groupDelete;
  if (groupCommand && groupDelete) {
    withClientOptions(groupCommand.command('delete').description('delete empty groups and their offsets').argument('<groups...>'))
      .action((names: string[], options: ClientOptions) => run(() => groupDelete(names, options)));
  }
  const groupSeek: Handler<'groupSeek'> = handlers.groupSeek;
  if (groupCommand && groupSeek) {
    withClientOptions(groupCommand.command('seek').description('reset committed offsets of an empty group').argument('<group>'))
      .requiredOption('--to <target>', 'earliest, latest, an offset, or @TIMESTAMP_MS', seekTarget)
      .option('-t, --topic <topic...>', 'only these topics', collect((text: string) => text), [])
      .action((name: string, options: GroupSeekOptions) => run(() => groupSeek(name, options)));
  }
}

/** `cluster info`. */
function registerClusterCommands({ handlers, run, group }: RegistrationContext): void {
  const clusterInfo: Handler<'clusterInfo'> = handlers.clusterInfo;
  const cluster = group('cluster', 'cluster metadata', ['clusterInfo']);
  if (cluster && clusterInfo) {
    withClientOptions(cluster.command('info').description('cluster id, controller and brokers'))
      .action((options: ClientOptions) => run(() => clusterInfo(options)));
  }

}
