/**
 * The client command handlers, loaded on first use: `tributary broker` never loads the client
 * library (host/clients/, about 70 modules), which keeps the broker's start-up short. Each
 * handler imports commands/client-command-handlers.js when called and delegates to it.
 */
import type { ClientCommandHandlers } from './client-commands.js';
import type { CliIo } from './output.js';

/** Every client command, so that all of them are registered before any handler is loaded. */
const HANDLER_NAMES: readonly (keyof ClientCommandHandlers)[] = [
  'topicCreate', 'topicList', 'topicDescribe', 'topicDelete', 'topicAlterConfig', 'topicAddPartitions', 'topicElectLeaders',
  'partitionsReassign', 'partitionsReassignments', 'produce', 'consume', 'groupList', 'groupDescribe', 'groupDelete', 'groupSeek', 'clusterInfo',
  'transactionsList', 'transactionsDescribe', 'transactionsFindHanging', 'transactionsAbort',
];

/** Handlers that import the real ones (built for `io` with the process deps) on first call. */
export function lazyClientCommandHandlers(io: CliIo): ClientCommandHandlers {
  let loaded: Promise<ClientCommandHandlers> | undefined;
  const load = (): Promise<ClientCommandHandlers> => {
    loaded ??= import('./commands/client-command-handlers.js').then((module) => module.createClientCommandHandlers(io));
    return loaded;
  };
  const handlers: Partial<Record<keyof ClientCommandHandlers, (...args: never[]) => Promise<void>>> = {};
  for (const name of HANDLER_NAMES) {
    handlers[name] = async (...args: never[]): Promise<void> => {
      const real = (await load())[name] as (...args: never[]) => Promise<void>;
      await real(...args);
    };
  }
  return handlers as ClientCommandHandlers;
}
