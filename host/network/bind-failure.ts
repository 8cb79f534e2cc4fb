/**
 * A listener that could not be bound: Node's listen() error (`code` EADDRINUSE / EACCES /
 * EADDRNOTAVAIL, `syscall: 'listen'`, `address`, `port`), found on the error or its causes. The
 * broker logs it as one line without a stack trace and the CLI names the listener and the
 * `--override listeners=...` that moves it (host/cli/listener-bind-error.ts).
 */

/** Node's fields on a failed listen(). */
export interface BindFailure {
  readonly code: string;
  readonly port: number;
  readonly address: string | undefined;
}

/** What each listen() error code means, as the end of "port N ...". */
export const BIND_FAILURE_REASONS: Record<string, string> = {
  EADDRINUSE: 'is already in use by another process',
  EACCES: 'needs privileges this process does not have (ports below 1024)',
  EADDRNOTAVAIL: 'is on an address this machine does not have',
};

/** The failed listen() behind `error` (or its cause), or null for another error. */
export function bindFailure(error: unknown): BindFailure | null {
  for (let current = error, depth = 0; current instanceof Error && depth < 4; current = current.cause, depth++) {
    const fields = current as Error & { code?: unknown; syscall?: unknown; port?: unknown; address?: unknown };
    if (typeof fields.code === 'string' && fields.code in BIND_FAILURE_REASONS && fields.syscall === 'listen' && typeof fields.port === 'number') {
      return { code: fields.code, port: fields.port, address: typeof fields.address === 'string' ? fields.address : undefined };
    }
  }
  return null;
}
