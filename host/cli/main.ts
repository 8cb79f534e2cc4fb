#!/usr/bin/env node
/**
 * Entry point of the `tributary` executable (package.json `bin`): `tributary --help`.
 */
import { runCli } from './program.js';

await runCli(process.argv);
