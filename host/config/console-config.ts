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
  { name: 'console.topics.page.size', type: 'INT', defaultValue: '50', min: 1,
    doc: 'Tributary-only: topics in a page of the console\'s topic list (GET /console/api/topics without limit; the console page asks for that), read from the broker\'s metadata and logs (partitions led by other brokers cost a ListOffsets to their leaders); a page also ends at console.topics.max.page.partitions partitions; a value above console.topics.max.page.size is taken as that.' },
  { name: 'console.topics.max.page.size', type: 'INT', defaultValue: '200', min: 1,
    doc: 'Tributary-only: the largest limit GET /console/api/topics accepts; a larger one answers HTTP 400 INVALID_REQUEST.' },
  { name: 'console.topics.max.page.partitions', type: 'INT', defaultValue: '5000', min: 1,
    doc: 'Tributary-only: a page of the console\'s topic list (GET /console/api/topics) ends before the topic that would take its partitions over this many (a page of one topic may have more; the answer\'s nextOffset is where the next page starts), and the page\'s work (and the console overview\'s partition counts) runs in slices of at most this many partitions (or topic names, when filtering) per event-loop turn, so neither holds the loop for long whatever the topics\' sizes.' },
];

/** The BrokerConfig fields these configs set. */
export interface ConsoleConfig {
  readonly consoleWriteEnable: boolean;
  /** console.topics.page.size. */
  readonly consoleTopicsPageSize: number;
  /** console.topics.max.page.size. */
  readonly consoleTopicsMaxPageSize: number;
  /** console.topics.max.page.partitions. */
  readonly consoleTopicsMaxPagePartitions: number;
}

/** The fields, from the parsed values. */
export function consoleConfig(get: <T extends ConfigValue>(name: string) => T): ConsoleConfig {
  return {
    consoleWriteEnable: get('console.write.enable'),
    consoleTopicsPageSize: get('console.topics.page.size'),
    consoleTopicsMaxPageSize: get('console.topics.max.page.size'),
    consoleTopicsMaxPagePartitions: get('console.topics.max.page.partitions'),
  };
}
