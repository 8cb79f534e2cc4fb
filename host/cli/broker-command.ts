/**
 * `tributary broker [--config FILE] [--override key=value ...]`: loads and validates the broker
 * configuration (a bad one prints the key, the value and what is accepted, and exits 2), starts
 * the broker from host/broker.ts, and on SIGTERM/SIGINT stops it cleanly and exits 0 (a second
 * signal during the stop exits 1 at once).
 *
 * host/broker.ts is the composition root (another module); it is imported dynamically so that the
 * CLI builds and reports clearly before it exists. Its contract:
 * `startBroker({ config: BrokerConfig, logger }): Promise<{ listeners: {name, host, port}[]; stop(): Promise<void> }>`.
 */
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { BrokerConfig, loadBrokerConfig, noEffectReasonOf, parseOverrides } from '../config/broker-config.js';
import { CreateLoggerOptions, Logger, LogEvent, createLogger } from '../observability/logger.js';
import { listenerBindError } from './listener-bind-error.js';
import { CliError, CliIo, ExitCode, processIo, runCliAction } from './output.js';

/** A started broker as host/broker.ts returns it. */
export interface RunningBroker {
  /** The bound listeners (port 0 in the config is the real port here). */
  readonly listeners: readonly { name: string; host: string; port: number }[];
  /** Stops accepting, finishes in-flight requests, flushes, writes clean-shutdown checkpoints. */
  stop(): Promise<void>;
}

/** What host/broker.ts exports. */
export interface BrokerModule {
  /**
   * Starts the broker. `signal` aborts a start-up still in progress (a SIGTERM while it waits for
   * the controller quorum): it then stops what was started and rejects (StartupAbortedError).
   */
  startBroker(options: { config: BrokerConfig; logger: Logger; signal?: AbortSignal }): Promise<RunningBroker>;
}

/** dist/host/broker.js, next to this file's folder. */
export const BROKER_MODULE_URL: URL = new URL('../broker.js', import.meta.url);

/**
 * Imports the broker module.
 * @throws CliError when the module file is missing (a build without host/broker.ts), fails to
 *   load, or does not export `startBroker`
 */
export async function loadBrokerModule(url: URL = BROKER_MODULE_URL): Promise<BrokerModule> {
  const path = fileURLToPath(url);
  let loaded: Partial<BrokerModule>;
  try {
    loaded = (await import(url.href)) as Partial<BrokerModule>;
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { url?: string };
    const missingItself = failure.code === 'ERR_MODULE_NOT_FOUND' &&
      (failure.url === url.href || failure.message.includes(path));
    if (missingItself) {
      throw new CliError(
        `this build has no broker: ${path} does not exist`,
        'build a version of Tributary that includes host/broker.ts (npm run build), then run tributary broker again',
      );
    }
    throw new CliError(
      `the broker module ${path} failed to load: ${failure.message}`,
      'rebuild with npm run build; if it persists, report it as a bug',
    );
  }
  if (typeof loaded.startBroker !== 'function') {
    throw new CliError(
      `${path} does not export startBroker()`,
      'rebuild with npm run build so that dist/ matches the sources',
    );
  }
  return loaded as BrokerModule;
}

export interface BrokerCommandOptions {
  /** Path of a server.properties file. */
  config?: string;
  /** `key=value` strings; later ones win, and all win over the file. */
  override?: readonly string[];
}

/** The seams of the command, replaced in tests. */
export interface BrokerCommandDeps {
  io: CliIo;
  loadModule: () => Promise<BrokerModule>;
  createLogger: (options: CreateLoggerOptions) => Logger;
  /** Subscribes to a process signal. */
  onSignal: (signal: 'SIGTERM' | 'SIGINT', handler: () => void) => void;
}

export const defaultBrokerCommandDeps: BrokerCommandDeps = {
  io: processIo,
  loadModule: () => loadBrokerModule(),
  createLogger,
  onSignal: (signal, handler) => {
    process.on(signal, handler);
  },
};

/**
 * Loads the config, starts the broker and arranges the signal-driven stop. Resolves once the
 * broker is running; the process then lives on the broker's sockets until a signal. Resolves null
 * (after exiting 0) when a signal stopped the broker during start-up.
 * @throws ConfigError for a bad configuration (exit 2 through runCliAction)
 * @throws CliError when the broker module is missing or the broker fails to start (exit 1)
 */
export async function runBrokerCommand(
  options: BrokerCommandOptions,
  deps: BrokerCommandDeps = defaultBrokerCommandDeps,
): Promise<RunningBroker | null> {
  const overrides = parseOverrides(options.override ?? []);
  const config = loadBrokerConfig({ ...(options.config === undefined ? {} : { file: options.config }), overrides });
  const logger = deps.createLogger({ level: config.logLevel });
  const cliLogger = logger.child({ component: 'cli' });
  cliLogger.info(
    { event: LogEvent.ConfigLoaded, file: options.config ?? null, overrides: Object.keys(overrides) },
    'broker configuration loaded',
  );
  // One line per Kafka config that has no effect here, with the reason (issue 13).
  for (const name of config.ignoredConfigs) {
    const reason = noEffectReasonOf(name);
    cliLogger.warn({ event: LogEvent.ConfigIgnored, config: name, reason }, `config ${name} has no effect in Tributary: ${reason}`);
  }
  const brokerModule = await deps.loadModule();

  let broker: RunningBroker | undefined;
  let stopRequested: string | undefined;
  const startAbort = new AbortController();
  const stop = (signal: string): void => {
    if (stopRequested !== undefined) {
      cliLogger.warn({ event: 'signal.received', signal }, `${signal} again while stopping: exiting without a clean stop`);
      deps.io.exit(ExitCode.FAILURE);
      return;
    }
    stopRequested = signal;
    cliLogger.info({ event: 'signal.received', signal }, `${signal} received: stopping the broker`);
    if (broker) finishStop(broker);
    // Otherwise start-up is in progress: abort its waits (a lone voter waits for a quorum that
    // may never come); it stops what it started and rejects, and the catch below exits 0.
    else startAbort.abort();
  };
  const finishStop = (running: RunningBroker): void => {
    running.stop().then(
      () => deps.io.exit(ExitCode.OK),
      (error: unknown) => {
        cliLogger.error({ event: LogEvent.BrokerFailed, err: error }, 'the broker failed to stop cleanly');
        deps.io.exit(ExitCode.FAILURE);
      },
    );
  };
  deps.onSignal('SIGTERM', () => stop('SIGTERM'));
  deps.onSignal('SIGINT', () => stop('SIGINT'));

  try {
    broker = await brokerModule.startBroker({ config, logger, signal: startAbort.signal });
  } catch (error) {
    if (stopRequested !== undefined) {
      // Start-up ended because of the signal (or failed while stopping): nothing is left running.
      cliLogger.info({ event: LogEvent.BrokerStopped }, 'stopped during start-up');
      deps.io.exit(ExitCode.OK);
      return null;
    }
    // A listener whose port cannot be bound: one sentence, no stack trace.
    const bindError = listenerBindError(error, config);
    if (bindError !== null) throw bindError;
    cliLogger.error({ event: LogEvent.BrokerFailed, err: error }, 'the broker failed to start');
    const message = error instanceof Error ? error.message : String(error);
    throw new CliError(
      `the broker failed to start: ${message}`,
      'read the log lines above; a port in use needs another listeners=, a data directory problem another log.dirs=',
    );
  }
  if (stopRequested !== undefined) finishStop(broker);
  return broker;
}

/** Adds the `broker` command to the program. */
export function registerBrokerCommand(program: Command, deps: BrokerCommandDeps = defaultBrokerCommandDeps): Command {
  return program
    .command('broker')
    .description('run a Kafka-compatible broker (single node, embedded controller) until SIGTERM/SIGINT')
    .option('-c, --config <file>', 'a server.properties file (Kafka syntax and config names)')
    .option('-o, --override <key=value...>', 'set a broker config, e.g. --override num.partitions=3 (wins over --config)')
    .addHelpText('after', '\nExamples:\n  tributary broker\n  tributary broker --config server.properties --override listeners=PLAINTEXT://0.0.0.0:9092\n')
    .action(async (options: BrokerCommandOptions) => {
      await runCliAction(deps.io, async () => {
        await runBrokerCommand(options, deps);
      });
    });
}
