/**
 * Polls `probe` every `intervalMs` until it returns a value other than undefined, and resolves with
 * it. For tests on the real clock (real sockets, processes): the deadline is a bound against
 * hanging, not a timing assertion.
 * @throws Error naming `what` once `timeoutMs` has passed
 */
export async function waitFor<T>(what: string, probe: () => T | undefined, timeoutMs = 20_000, intervalMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
