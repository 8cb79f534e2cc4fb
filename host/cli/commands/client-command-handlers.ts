/**
 * The implemented client commands (host/clients/ underneath), as the ClientCommandHandlers that
 * program.ts registers.
 */
import { createInterface } from 'node:readline';
import type { ClientCommandHandlers } from '../client-commands.js';
import type { CliIo } from '../output.js';
import { clusterInfoHandler } from './cluster-command.js';
import { consumeHandler, type ConsumeDeps } from './consume-command.js';
import { groupHandlers } from './group-commands.js';
import { partitionsHandlers } from './partition-commands.js';
import { produceHandler, type ProduceDeps } from './produce-command.js';
import { topicHandlers } from './topic-commands.js';
import { transactionHandlers } from './transaction-commands.js';

export type ClientCommandDeps = ProduceDeps & ConsumeDeps;

/** Lines of process.stdin, SIGINT/SIGTERM as the interrupt, and an 'error' of process.stdout (EPIPE) as its close. */
export const processClientCommandDeps: ClientCommandDeps = {
  lines: () => createInterface({ input: process.stdin, crlfDelay: Infinity }),
  onInterrupt(stop) {
    const handler = (): void => stop();
    process.once('SIGINT', handler);
    process.once('SIGTERM', handler);
    return () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    };
  },
  onOutputClosed(stop) {
    // Without a listener the stream's EPIPE 'error' is an uncaught exception with a stack trace.
    // Any write error means nobody reads what we print any more, so every error stops the consumer.
    const handler = (): void => stop();
    process.stdout.on('error', handler);
    // Left attached on unregister as a no-op sink: writes still queued may fail after the consumer stopped.
    return () => {
      process.stdout.off('error', handler);
      process.stdout.on('error', () => undefined);
    };
  },
};

export function createClientCommandHandlers(io: CliIo, deps: ClientCommandDeps = processClientCommandDeps): ClientCommandHandlers {
  return {
    ...topicHandlers(io),
    ...groupHandlers(io),
    ...partitionsHandlers(io),
    ...transactionHandlers(io),
    produce: produceHandler(io, deps),
    consume: consumeHandler(io, deps),
    clusterInfo: clusterInfoHandler(io),
  };
}
