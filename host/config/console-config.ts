/**
 * The web console's configs (Tributary-only). The console (host/console/) is served on
 * `http.listeners` under `/console`; it reads always, and writes (create/delete topics, add
 * partitions, produce, reset a group's offsets) only while `console.write.enable` is true. Kept
 * apart from broker-config.ts, which spreads these definitions into its list and these values
 * into the BrokerConfig.
 */
import type { ConfigDef, ConfigValue } from './config-def.js';

export const CONSOLE_CONFIG_DEFS: readonly ConfigDef[] = [
  { name: 'console.write.enable', type: 'BOOLEAN', defaultValue: 'false',
    doc: 'Tributary-only: lets the web console on http.listeners (/console) create and delete topics, add partitions, produce and reset offsets of empty groups; when false its write requests get HTTP 403 and the console is read-only.' },
];

/** The BrokerConfig fields these configs set. */
export interface ConsoleConfig {
  readonly consoleWriteEnable: boolean;
}

/** The fields, from the parsed values. */
export function consoleConfig(get: <T extends ConfigValue>(name: string) => T): ConsoleConfig {
  return { consoleWriteEnable: get('console.write.enable') };
}
