/**
 * A broker that cannot bind one of its `listeners` (a port in use, or a privileged port) stops at
 * start-up; this turns Node's bind error (`code` EADDRINUSE / EACCES / EADDRNOTAVAIL with
 * `syscall: 'listen'`, `address` and `port`) into one sentence naming the listener, its port and
 * the `--override listeners=...` that moves it, instead of a stack trace.
 */
import type { BrokerConfig } from '../config/broker-config.js';
import type { Listener } from '../config/listeners.js';
import { bindFailure, BIND_FAILURE_REASONS } from '../network/bind-failure.js';
import { CliError } from './output.js';

function formatListener(listener: Listener, port = listener.port): string {
  const host = listener.host.includes(':') ? `[${listener.host}]` : listener.host;
  return `${listener.name}://${host}:${port}`;
}

/**
 * The CliError for a listener that could not be bound, or null when `error` is not a bind
 * failure of one of `config.listeners`.
 */
export function listenerBindError(error: unknown, config: Pick<BrokerConfig, 'listeners'>): CliError | null {
  const failure = bindFailure(error);
  if (failure === null) return null;
  const listener = config.listeners.find((l) => l.port === failure.port);
  if (listener === undefined) return null;
  const other = failure.port >= 65535 ? failure.port - 1 : failure.port + 1;
  const moved = config.listeners.map((l) => (l === listener ? formatListener(l, other) : formatListener(l))).join(',');
  return new CliError(
    `listener ${listener.name} cannot listen on ${formatListener(listener).split('://')[1]}: port ${failure.port} ${BIND_FAILURE_REASONS[failure.code]} (${failure.code})`,
    failure.code === 'EADDRINUSE'
      ? `stop what uses port ${failure.port}, or give the listener another port, e.g. --override listeners=${moved}`
      : `give the listener another address or port, e.g. --override listeners=${moved}`,
  );
}
