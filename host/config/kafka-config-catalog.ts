/**
 * Every Kafka config name is known (issue 13): the generated table of Kafka's broker and topic
 * configs (generated/kafka-configs.ts, from Kafka's own ConfigDefs) turned into ConfigDefs for the
 * ones Tributary does not implement. Such a config is accepted with Kafka's type, default and
 * validator, so a Kafka `server.properties`, an `--override` or an admin tool's AlterConfigs load
 * as they would on Kafka; it has no effect, says why (`noEffect`), is logged once at start-up and
 * is described as such in DescribeConfigs documentation. Names that are not Kafka's are still
 * refused, with a "did you mean".
 *
 * The table (66 KB of JSON, about 360 configs) is read and parsed on first use, synchronously:
 * only when a config Tributary does not implement is met (set in server.properties, an override,
 * a dynamic or topic config, an unknown name to refuse with suggestions) or every config is
 * listed (DescribeConfigs, the config reference). The quick start sets none, so its start-up
 * never reads it (issue 10: its ready time does not get worse).
 */
import { fileURLToPath } from 'node:url';
import { readProgramFile } from '../io/program-files.js';
import type { ConfigDef, ConfigType } from './config-def.js';
import type { KafkaConfigInfo, KafkaConfigTables } from './generated/kafka-configs.js';

export type { KafkaConfigInfo };

/** generated/kafka-configs.json, beside this module in the sources (vitest) and in dist/ (tsc copies it). */
const TABLE_URL = new URL('./generated/kafka-configs.json', import.meta.url);

let tables: KafkaConfigTables | null = null;

/**
 * The generated table, read and parsed on the first call (then kept).
 * @throws Error (the file system's, or JSON's SyntaxError) when the installation lacks the file
 */
function kafkaConfigTables(): KafkaConfigTables {
  tables ??= JSON.parse(readProgramFile(fileURLToPath(TABLE_URL)).toString('utf8')) as KafkaConfigTables;
  return tables;
}

/** True once the table was read (tests of what start-up avoids). */
export function kafkaConfigCatalogLoaded(): boolean {
  return tables !== null;
}

/** Every broker config of Kafka (323 in Kafka 3.9), sorted by name. Reads the table on first use. */
export function kafkaBrokerConfigs(): readonly KafkaConfigInfo[] {
  return kafkaConfigTables().broker;
}

/** Every topic config of Kafka, sorted by name, with its broker synonyms. Reads the table on first use. */
export function kafkaTopicConfigs(): readonly KafkaConfigInfo[] {
  return kafkaConfigTables().topic;
}

/** Why a family of Kafka configs has no effect in Tributary, by name prefix (first match wins). */
const NO_EFFECT_REASONS: readonly (readonly [RegExp, string])[] = [
  [/^queued\.max\.requests$/, 'Tributary has no queue between network and request threads: connection.max.in.flight.requests and queued.max.request.bytes bound what is read but not answered'],
  [/^zookeeper\.|^zookeeper|\.zookeeper\.|^zk\./, 'Tributary has no ZooKeeper mode'],
  [/^(ssl|sasl|security\.|principal\.|ssl\.principal|connections\.max\.reauth|sasl\.server|authorizer|super\.users|allow\.everyone|delegation\.token|password\.encoder|listener\.name)/,
    'Tributary speaks PLAINTEXT only, without authentication or authorization'],
  [/^remote\.|^log\.local\.|^local\.|remote\.storage|^remote\.log/, 'Tributary has no tiered storage (KIP-405)'],
  [/^share\.|^group\.share\./, 'Tributary has no share groups (KIP-932)'],
  [/^transaction|^transactional|\.transaction\./, 'Tributary\'s transaction coordinator does not use it'],
  [/quota|throttl|^client\.quota|^replication\.quota|\.rate$|^producer\.id\.quota/, 'Tributary has no client or replication quotas'],
  [/^metric|^kafka\.metrics|^auto\.include\.jmx|^telemetry/, 'Tributary exports its metrics over HTTP, not through Kafka metric reporters'],
  [/^num\.|threads|^background\.threads|^socket\.(send|receive)\.buffer/, 'Node serves the broker from one event loop; thread counts and socket buffers do not apply'],
  [/^group\.consumer\.|^group\.coordinator\.|^group\.classic\./, 'Tributary runs the classic group protocol only (no KIP-848 consumer groups yet)'],
  [/^controller\.|^metadata\.|^eligible\.leader|^initial\.broker|^early\.start|^server\.max\.startup|^broker\.session|^migration|^sasl\.mechanism\.controller/,
    'the KRaft setting is not used by Tributary\'s controller'],
];

/** The reason a Kafka config Tributary does not implement has no effect. */
export function noEffectReason(name: string): string {
  for (const [pattern, reason] of NO_EFFECT_REASONS) if (pattern.test(name)) return reason;
  return 'Tributary does not implement it';
}

/**
 * Kafka validators that are classes of their own rather than ConfigDef's atLeast / between / in
 * (the generator records only those): ThrottledReplicaListValidator and MetadataVersionValidator.
 */
const CUSTOM_CHECKS: Readonly<Record<string, Pick<ConfigDef, 'check' | 'accepted'>>> = {
  'leader.replication.throttled.replicas': throttledReplicas(),
  'follower.replication.throttled.replicas': throttledReplicas(),
  'message.format.version': metadataVersion(),
  'log.message.format.version': metadataVersion(),
  'inter.broker.protocol.version': metadataVersion(),
};

function throttledReplicas(): Pick<ConfigDef, 'check' | 'accepted'> {
  return {
    accepted: 'a comma-separated list of partitionId:brokerId, or *',
    check: (value) => {
      const items = value as readonly string[];
      if (items.length === 1 && items[0] === '*') return null;
      const bad = items.find((item) => !/^\d+:\d+$/.test(item));
      return bad === undefined ? null : `${JSON.stringify(bad)} is not partitionId:brokerId`;
    },
  };
}

function metadataVersion(): Pick<ConfigDef, 'check' | 'accepted'> {
  return {
    accepted: 'a Kafka version such as 3.9 or 3.9-IV0',
    check: (value) => (/^\d+\.\d+(\.\d+)?(-IV\d+)?$/.test(String(value)) ? null : 'not a Kafka metadata version'),
  };
}

/** Kafka's ConfigDef type as ours. */
function configType(type: KafkaConfigInfo['type']): ConfigType {
  return type;
}

/** A ConfigDef with Kafka's type, default and validator, marked `noEffect`. */
export function noEffectConfigDef(info: KafkaConfigInfo, reason: string = noEffectReason(info.name)): ConfigDef {
  return {
    name: info.name,
    type: configType(info.type),
    defaultValue: info.defaultValue,
    ...(info.min !== undefined ? { min: info.min } : {}),
    ...(info.max !== undefined ? { max: info.max } : {}),
    ...(info.oneOf !== undefined ? { oneOf: info.oneOf } : {}),
    ...(info.nonEmpty ? { nonEmpty: true } : {}),
    ...(info.alsoAccepts !== undefined ? { alsoAccepts: info.alsoAccepts } : {}),
    ...(info.type === 'PASSWORD' ? { sensitive: true } : {}),
    ...CUSTOM_CHECKS[info.name],
    noEffect: reason,
    doc: `No effect in Tributary (${reason}). Kafka: ${info.doc}`,
  };
}

/**
 * ConfigDefs for the Kafka configs of `table` that `implemented` does not define, in the table's
 * order, each marked `noEffect`.
 */
export function kafkaOnlyConfigDefs(table: readonly KafkaConfigInfo[], implemented: Iterable<{ readonly name: string }>): ConfigDef[] {
  const known = new Set([...implemented].map((def) => def.name));
  return table.filter((info) => !known.has(info.name)).map((info) => noEffectConfigDef(info));
}


/**
 * Kafka accepts per-listener overrides `listener.name.<listener>.<config>` (KIP-103 and later) for
 * security and socket settings; Tributary accepts them without effect, like ZooKeeper's keys.
 */
export const LISTENER_PREFIXED_CONFIG = /^listener\.name\.[^.]+\..+$/;
