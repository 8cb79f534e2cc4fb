#!/usr/bin/env node
/**
 * Entry point of the `tributary` executable (package.json `bin`): `tributary --help`.
 */
import { createClientCommandHandlers } from './commands/client-command-handlers.js';
import { processIo } from './output.js';
import { runCli } from './program.js';

await runCli(process.argv, { clientHandlers: createClientCommandHandlers(processIo) });
