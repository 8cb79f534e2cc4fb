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

await runCli(process.argv, { clientHandlers: lazyClientCommandHandlers(processIo) });
