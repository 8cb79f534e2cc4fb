/**
 * What DescribeConfigs answers for TOPIC and BROKER resources, as Kafka's ConfigHelper does:
 * each config's effective value, its source, its synonyms (highest precedence first) and, on v3+,
 * its type and documentation.
 *
 * Sources and their order (Kafka's DynamicBrokerConfig): DYNAMIC_TOPIC_CONFIG (1, a topic
 * override) > DYNAMIC_BROKER_CONFIG (2, this broker's ConfigRecord) > DYNAMIC_DEFAULT_BROKER_CONFIG
 * (3, the cluster default "") > STATIC_BROKER_CONFIG (4, server.properties / --override) >
 * DEFAULT_CONFIG (5). A config's source is that of its first synonym.
 */
import type { BrokerConfig } from './broker-config.js';
import { brokerConfigDef, brokerConfigDefByName } from './broker-config.js';
import { ConfigSource, type ConfigSourceCode, ConfigTypeCode, formatConfigValue } from './config-def.js';
import { isDynamicBrokerConfig } from './dynamic-broker-configs.js';
import { topicConfigDefs } from './topic-config.js';

/** One synonym of a described config (DescribeConfigs v1+). */
export interface DescribedConfigSynonym {
  readonly name: string;
  readonly value: string | null;
  readonly source: ConfigSourceCode;
}

/** One config as DescribeConfigs answers it (all versions' fields; encoders pick theirs). */
export interface DescribedConfig {
  readonly name: string;
  /** null for sensitive configs and for unset configs without a default. */
  readonly value: string | null;
  readonly readOnly: boolean;
  /** v0 `IsDefault`: the value is the built-in default. */
  readonly isDefault: boolean;
  readonly configSource: ConfigSourceCode;
  readonly isSensitive: boolean;
  /** Where the value could come from, highest precedence first; empty unless asked for. */
  readonly synonyms: readonly DescribedConfigSynonym[];
  /** v3+ ConfigType code. */
  readonly configType: number;
  /** v3+ documentation; null unless asked for. */
  readonly documentation: string | null;
}

export interface DescribeOptions {
  /** Config names asked for; null/undefined = all. Unknown names are left out, as in Kafka. */
  names?: readonly string[] | null;
  /** DescribeConfigs v1+ IncludeSynonyms. */
  includeSynonyms?: boolean;
  /** DescribeConfigs v3+ IncludeDocumentation. */
  includeDocumentation?: boolean;
}

/**
 * Kafka's DynamicBrokerConfig.brokerConfigSynonyms: the broker configs that set the same thing,
 * highest precedence first (log.retention.ms, .minutes, .hours; log.roll.ms, .hours; ...).
 */
const BROKER_SYNONYM_GROUPS: readonly (readonly string[])[] = [
  ['log.roll.ms', 'log.roll.hours'],
  ['log.roll.jitter.ms', 'log.roll.jitter.hours'],
  ['log.flush.interval.ms', 'log.flush.scheduler.interval.ms'],
  ['log.retention.ms', 'log.retention.minutes', 'log.retention.hours'],
];

function brokerConfigSynonyms(name: string): readonly string[] {
  const group = BROKER_SYNONYM_GROUPS.find((names) => names.includes(name));
  if (group === undefined) return [name];
  // log.flush.interval.ms has the scheduler interval as its fallback, not the other way round.
  return name === 'log.flush.scheduler.interval.ms' ? [name] : group;
}

/**
 * Every value the broker configs `names` have, highest precedence first: per name its dynamic
 * per-broker value (left out when `perBroker` is false), dynamic default, static value and
 * default, each present only when set.
 */
export function brokerSynonymsOf(names: readonly string[], broker: BrokerConfig, perBroker = true): DescribedConfigSynonym[] {
  const synonyms: DescribedConfigSynonym[] = [];
  for (const name of names) {
    const def = brokerConfigDef(name);
    const hidden = def?.sensitive === true;
    const layers: [string | null | undefined, ConfigSourceCode][] = [
      [perBroker ? broker.dynamicBrokerConfigs.get(name) : undefined, ConfigSource.DYNAMIC_BROKER_CONFIG],
      [broker.dynamicDefaultConfigs.get(name), ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG],
      [broker.originals.get(name), ConfigSource.STATIC_BROKER_CONFIG],
      [def?.defaultValue, ConfigSource.DEFAULT_CONFIG],
    ];
    for (const [value, source] of layers) {
      if (value === undefined || value === null) continue;
      synonyms.push({ name, value: hidden ? null : value, source });
    }
  }
  return synonyms;
}

function wanted(name: string, options: DescribeOptions): boolean {
  return options.names === undefined || options.names === null || options.names.includes(name);
}

type Overrides = Readonly<Record<string, string>> | ReadonlyMap<string, string>;

function overrideOf(overrides: Overrides, name: string): string | undefined {
  if (overrides instanceof Map) return overrides.get(name);
  const record = overrides as Readonly<Record<string, string>>;
  return Object.prototype.hasOwnProperty.call(record, name) ? record[name] : undefined;
}

/**
 * What DescribeConfigs answers for a TOPIC resource: every topic config Kafka has, with its
 * effective value and source; never read-only, never sensitive. Synonyms in Kafka's order: the
 * topic override, then per broker synonym (highest precedence first) its dynamic, static and
 * default values, each in that synonym's own units (log.retention.hours stays in hours).
 */
export function describeTopicConfigs(overrides: Overrides, broker: BrokerConfig, options: DescribeOptions = {}): DescribedConfig[] {
  const described: DescribedConfig[] = [];
  for (const def of topicConfigDefs()) {
    if (!wanted(def.name, options)) continue;
    const override = overrideOf(overrides, def.name);
    const synonyms: DescribedConfigSynonym[] = [];
    if (override !== undefined) synonyms.push({ name: def.name, value: override, source: ConfigSource.DYNAMIC_TOPIC_CONFIG });
    synonyms.push(...brokerSynonymsOf(def.brokerSynonyms, broker));
    const configSource = synonyms[0]?.source ?? ConfigSource.DEFAULT_CONFIG;
    described.push({
      name: def.name,
      value: override ?? formatConfigValue(def.fromBroker(broker)),
      readOnly: false,
      isDefault: configSource === ConfigSource.DEFAULT_CONFIG,
      configSource,
      isSensitive: false,
      synonyms: options.includeSynonyms ? synonyms : [],
      configType: ConfigTypeCode[def.type],
      documentation: options.includeDocumentation ? def.doc : null,
    });
  }
  return described;
}

/**
 * What DescribeConfigs answers for this broker's BROKER resource: every broker config with its
 * effective text and source; read-only unless Kafka lets it change at run time
 * (dynamic-broker-configs.ts); PASSWORD values hidden.
 */
export function describeBrokerConfigs(broker: BrokerConfig, options: DescribeOptions = {}): DescribedConfig[] {
  return describeBrokerNames([...brokerConfigDefByName().keys()], broker, true, options);
}

/**
 * What DescribeConfigs answers for the cluster-default BROKER resource (name ""): the dynamic
 * default configs only, source DYNAMIC_DEFAULT_BROKER_CONFIG (Kafka's ConfigHelper).
 */
export function describeClusterDefaultBrokerConfigs(broker: BrokerConfig, options: DescribeOptions = {}): DescribedConfig[] {
  return describeBrokerNames([...broker.dynamicDefaultConfigs.keys()], broker, false, options);
}

function describeBrokerNames(names: readonly string[], broker: BrokerConfig, perBroker: boolean, options: DescribeOptions): DescribedConfig[] {
  const described: DescribedConfig[] = [];
  for (const name of names) {
    const def = brokerConfigDef(name);
    if (def === undefined || !wanted(name, options)) continue;
    const own = brokerSynonymsOf([name], broker, perBroker);
    // Kafka takes the source from the first of all synonyms (log.retention.hours set statically
    // makes log.retention.ms STATIC_BROKER_CONFIG) and the value from the config's own name.
    const all = brokerSynonymsOf(brokerConfigSynonyms(name), broker, perBroker);
    const configSource = all[0]?.source ?? ConfigSource.DEFAULT_CONFIG;
    const text = own[0]?.value ?? null;
    described.push({
      name,
      value: def.sensitive ? null : text,
      readOnly: !isDynamicBrokerConfig(name),
      isDefault: configSource === ConfigSource.DEFAULT_CONFIG,
      configSource,
      isSensitive: def.sensitive === true,
      synonyms: options.includeSynonyms ? all : [],
      configType: ConfigTypeCode[def.type],
      documentation: options.includeDocumentation ? def.doc : null,
    });
  }
  return described;
}
