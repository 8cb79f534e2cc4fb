/**
 * The `tributary` command line: the commander program and its runner.
 *
 * Registered today: `broker`. The client-backed commands (topic, produce, consume, group,
 * cluster) are defined in client-commands.ts and appear once their handlers exist: pass them as
 * `clientHandlers`. Usage errors (unknown option, bad argument) exit 2 like configuration errors;
 * `--help` and `--version` exit 0.
 *
 * `tributary broker` (the quick start, timed from spawn to ready) does not import client-commands.ts
 * (the definitions of the client commands, ~20 KB): {@link runCli} registers them for any other
 * command line.
 */
import { Command, CommanderError } from 'commander';
import { TRIBUTARY_VERSION } from './version.js';
import { BrokerCommandDeps, defaultBrokerCommandDeps, registerBrokerCommand } from './broker-command.js';
import type { ClientCommandHandlers, registerClientCommands } from './client-commands.js';
import { CliIo, ExitCode, processIo } from './output.js';

export interface ProgramOptions {
  io?: CliIo;
  brokerDeps?: BrokerCommandDeps;
  /** Implemented client commands; the others are not registered. */
  clientHandlers?: Partial<ClientCommandHandlers>;
}

/**
 * Builds the program with the `broker` command and, given `registerClients` (client-commands.ts's
 * registerClientCommands), the client commands. Commander's own exits are turned into
 * CommanderError (see {@link runCli}).
 */
export function createProgram(options: ProgramOptions = {}, registerClients?: typeof registerClientCommands): Command {
  const io = options.io ?? processIo;
  const program = new Command()
    .name('tributary')
    .description('Tributary: a Kafka-compatible streaming platform')
    .version(TRIBUTARY_VERSION)
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    });
  registerBrokerCommand(program, options.brokerDeps ?? { ...defaultBrokerCommandDeps, io });
  registerClients?.(program, options.clientHandlers ?? {}, io);
  return program;
}

/**
 * Parses `argv` (process.argv shape) and runs the command. Usage errors exit 2, help/version 0.
 */
export async function runCli(argv: readonly string[], options: ProgramOptions = {}): Promise<void> {
  const io = options.io ?? processIo;
  const registerClients = argv[2] === 'broker' ? undefined : (await import('./client-commands.js')).registerClientCommands;
  const program = createProgram(options, registerClients);
  try {
    await program.parseAsync([...argv]);
  } catch (error) {
    if (error instanceof CommanderError) {
      io.exit(error.exitCode === 0 ? ExitCode.OK : ExitCode.USAGE);
      return;
    }
    throw error;
  }
}
