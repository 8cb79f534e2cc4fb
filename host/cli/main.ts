#!/usr/bin/env node
/**
 * Entry point of the `tributary` executable (package.json `bin`): `tributary --help`.
 *
 * Start-up matters here (`tributary broker` is timed from process spawn to the first answered
 * request): the client library loads only when a client command runs, the broker module only
 * when `broker` runs (host/cli/broker-command.ts).
 */
import { lazyClientCommandHandlers } from './lazy-client-handlers.js';
import { processIo } from './output.js';
import { runCli } from './program.js';

// A reader that goes away (`tributary cluster info | head -1`) makes writes to stdout fail with
// EPIPE; like other Unix tools, stop quietly with exit 0 instead of dying on the unhandled error.
// A command that listens itself (consume, to leave its group first) handles it instead.
const onStdoutError = (error: NodeJS.ErrnoException): void => {
  if (process.stdout.listeners('error').some((listener) => listener !== onStdoutError)) return;
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
};
process.stdout.on('error', onStdoutError);

await runCli(process.argv, { clientHandlers: lazyClientCommandHandlers(processIo) });
