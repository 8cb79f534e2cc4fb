/**
 * The one error type of host/config: a configuration the user wrote that Tributary refuses.
 *
 * Thrown at start-up (server.properties, `--override`), never on a client request path: client
 * input (CreateTopics, AlterConfigs) is answered with Kafka error codes by topic-config.ts.
 * The message always names the key, the bad value and what is accepted, so the CLI can print it
 * as is and exit with status 2.
 */
export class ConfigError extends Error {
  /** Kafka name of the offending config, when one key is at fault. */
  readonly key: string | undefined;
  /** The value as the user wrote it (after Java .properties unescaping), when one is at fault. */
  readonly value: string | undefined;
  /** What would have been accepted, e.g. `an integer >= 1`. */
  readonly accepted: string | undefined;

  constructor(message: string, details: { key?: string; value?: string; accepted?: string } = {}) {
    super(message);
    this.name = 'ConfigError';
    this.key = details.key;
    this.value = details.value;
    this.accepted = details.accepted;
  }
}
