/**
 * Opening clients for one CLI command: connect fast (an unreachable broker is reported at once),
 * run, always close.
 */
import { Admin } from '../../clients/admin.js';
import type { ClientOptions } from '../client-commands.js';
import { explain, type FixOverrides } from './client-errors.js';

/** Connect timeout of CLI clients, ms. */
export const CLI_CONNECT_TIMEOUT_MS = 5_000;
/** Request timeout of CLI clients, ms. */
export const CLI_REQUEST_TIMEOUT_MS = 15_000;

/**
 * Runs `body` with a connected Admin; failures become CliErrors describing `what`, with the
 * command's own fix lines from `fixes` (Kafka error code -> fix) where it has them.
 */
export async function withAdmin<T>(options: ClientOptions, what: string, body: (admin: Admin) => Promise<T>, fixes: FixOverrides = {}): Promise<T> {
  const admin = new Admin({
    bootstrapServers: options.bootstrapServer,
    clientId: 'tributary-cli',
    connectTimeoutMs: CLI_CONNECT_TIMEOUT_MS,
    requestTimeoutMs: CLI_REQUEST_TIMEOUT_MS,
  });
  try {
    return await explain(what, options.bootstrapServer, async () => {
      await admin.connect();
      return body(admin);
    }, fixes);
  } finally {
    await admin.close();
  }
}
