/**
 * Dynamic broker configs (KIP-226): which broker configs AlterConfigs / IncrementalAlterConfigs
 * may change at run time on a BROKER resource, per broker (`"<id>"`) or as the cluster-wide
 * default (`""`), and Kafka's validation of such a change. Facts from Kafka 3.9's
 * DynamicBrokerConfig.AllDynamicConfigs: SslConfigs.RECONFIGURABLE_CONFIGS (listener-prefixed
 * only), LogCleaner.ReconfigurableConfigs, DynamicLogConfig.ReconfigurableConfigs (the first
 * broker synonym of every topic config except message.format.version), DynamicThreadPool,
 * metric.reporters, DynamicListenerConfig, SocketServer, the producer-state configs and
 * DynamicRemoteLogConfig.
 *
 * Precedence of a broker config's value (DynamicBrokerConfig's header): DYNAMIC_BROKER_CONFIG
 * (this broker's id) > DYNAMIC_DEFAULT_BROKER_CONFIG ("") > STATIC_BROKER_CONFIG
 * (server.properties / --override) > DEFAULT_CONFIG.
 */
import { brokerConfigDef, brokerConfigDefByName } from './broker-config.js';
import { configValueProblem, suggestConfigNames } from './config-def.js';
import { kafkaTopicConfigs } from './kafka-config-catalog.js';

/** SslConfigs.RECONFIGURABLE_CONFIGS: dynamic only per listener (`listener.name.<l>.<config>`). */
const LISTENER_ONLY_SECURITY_CONFIGS = [
  'ssl.keystore.type', 'ssl.keystore.location', 'ssl.keystore.password', 'ssl.key.password', 'ssl.truststore.type',
  'ssl.truststore.location', 'ssl.truststore.password', 'ssl.keystore.certificate.chain', 'ssl.keystore.key',
  'ssl.truststore.certificates',
];

/** DynamicListenerConfig.ReconfigurableConfigs. */
const LISTENER_CONFIGS = [
  'advertised.listeners', 'listeners', 'listener.security.protocol.map',
  'principal.builder.class', 'ssl.protocol', 'ssl.provider', 'ssl.cipher.suites', 'ssl.enabled.protocols', 'ssl.keystore.type',
  'ssl.keystore.location', 'ssl.keystore.password', 'ssl.key.password', 'ssl.truststore.type', 'ssl.truststore.location',
  'ssl.truststore.password', 'ssl.keymanager.algorithm', 'ssl.trustmanager.algorithm', 'ssl.endpoint.identification.algorithm',
  'ssl.secure.random.implementation', 'ssl.client.auth', 'ssl.engine.factory.class',
  'sasl.mechanism.inter.broker.protocol', 'sasl.jaas.config', 'sasl.enabled.mechanisms', 'sasl.kerberos.service.name',
  'sasl.kerberos.kinit.cmd', 'sasl.kerberos.ticket.renew.window.factor', 'sasl.kerberos.ticket.renew.jitter',
  'sasl.kerberos.min.time.before.relogin', 'sasl.kerberos.principal.to.local.rules', 'sasl.login.refresh.window.factor',
  'sasl.login.refresh.window.jitter', 'sasl.login.refresh.min.period.seconds', 'sasl.login.refresh.buffer.seconds',
  'max.connections', 'max.connection.creation.rate', 'num.network.threads',
];

/** DynamicBrokerConfig.ClusterLevelListenerConfigs: listener configs that may also be cluster-wide. */
const CLUSTER_LEVEL_LISTENER_CONFIGS = ['max.connections', 'max.connection.creation.rate', 'num.network.threads'];

/** The broker configs of the topic configs (DynamicLogConfig.ReconfigurableConfigs), from the Kafka config catalog. */
function logConfigs(): string[] {
  return kafkaTopicConfigs()
    .filter((info) => info.name !== 'message.format.version' && (info.brokerSynonyms?.length ?? 0) > 0)
    .map((info) => info.brokerSynonyms![0]!);
}

let dynamicBrokerConfigs: ReadonlySet<string> | null = null;

/**
 * Every broker config Kafka lets change at run time (DynamicBrokerConfig.AllDynamicConfigs).
 * Built on first call (it reads the Kafka config catalog for the topic configs' synonyms).
 */
export function dynamicBrokerConfigNames(): ReadonlySet<string> {
  dynamicBrokerConfigs ??= allDynamicConfigs();
  return dynamicBrokerConfigs;
}

function allDynamicConfigs(): ReadonlySet<string> {
  return new Set([
    ...LISTENER_ONLY_SECURITY_CONFIGS,
    // LogCleaner.ReconfigurableConfigs
    'log.cleaner.threads', 'log.cleaner.dedupe.buffer.size', 'log.cleaner.io.buffer.load.factor', 'log.cleaner.io.buffer.size',
    'message.max.bytes', 'log.cleaner.io.max.bytes.per.second', 'log.cleaner.backoff.ms',
    ...logConfigs(),
    // DynamicThreadPool.ReconfigurableConfigs
    'num.io.threads', 'num.replica.fetchers', 'num.recovery.threads.per.data.dir', 'background.threads',
    'metric.reporters',
    ...LISTENER_CONFIGS,
    // SocketServer.ReconfigurableConfigs
    'max.connections.per.ip', 'max.connections.per.ip.overrides', 'max.connections', 'max.connection.creation.rate',
    // DynamicProducerStateManagerConfig
    'producer.id.expiration.ms', 'transaction.partition.verification.enable',
    // DynamicRemoteLogConfig.ReconfigurableConfigs
    'remote.log.index.file.cache.total.size.bytes', 'remote.fetch.max.wait.ms', 'remote.log.manager.copy.max.bytes.per.second',
    'remote.log.manager.fetch.max.bytes.per.second', 'remote.list.offsets.request.timeout.ms',
  ]);
}

/** DynamicBrokerConfig.PerBrokerConfigs: only on a broker id, never the cluster default. */
const PER_BROKER_CONFIGS: ReadonlySet<string> = new Set(
  [...LISTENER_ONLY_SECURITY_CONFIGS, ...LISTENER_CONFIGS].filter((name) => !CLUSTER_LEVEL_LISTENER_CONFIGS.includes(name)),
);

const LISTENER_CONFIG = /^listener\.name\.[^.]+\.(.+)$/;

/** A refused change: Kafka's error code (40 INVALID_CONFIG, 42 INVALID_REQUEST) and message. */
export interface DynamicConfigProblem {
  readonly errorCode: 40 | 42;
  readonly errorMessage: string;
}

/**
 * Kafka's DynamicBrokerConfig.validateConfigs for the configs a BROKER resource would hold after
 * the change (name -> text): in Kafka's order, the first problem found, or null.
 * - a name that is no broker config of Kafka's or Tributary's: INVALID_CONFIG (40) with a "did
 *   you mean" (Kafka ignores unknown names; a typo would silently do nothing)
 * - a config Kafka does not change at run time: INVALID_REQUEST (42) "Cannot update these configs
 *   dynamically: ..."
 * - an SSL store config without a listener prefix: INVALID_REQUEST "These security configs can be
 *   dynamically updated only per-listener using the listener prefix: ..."
 * - an invalid value: INVALID_REQUEST (Kafka turns the ConfigException into it, KAFKA-13609)
 * - a per-broker config on the cluster default (`perBroker` false): INVALID_REQUEST "Cannot update
 *   these configs at default cluster level, broker id must be specified: ..."
 */
export function dynamicBrokerConfigProblem(configs: ReadonlyMap<string, string>, perBroker: boolean): DynamicConfigProblem | null {
  const names = [...configs.keys()];
  const baseName = (name: string): string => LISTENER_CONFIG.exec(name)?.[1] ?? name;
  const unknown = names.find((name) => brokerConfigDef(baseName(name)) === undefined && !LISTENER_CONFIG.test(name));
  if (unknown !== undefined) {
    const suggestions = suggestConfigNames(unknown, brokerConfigDefByName().keys());
    const hint = suggestions.length > 0 ? ` Did you mean ${suggestions.join(' or ')}?` : '';
    return { errorCode: 40, errorMessage: `Unknown broker config name: ${unknown}.${hint}` };
  }
  const nonDynamic = names.filter((name) => !isDynamicBrokerConfig(name));
  if (nonDynamic.length > 0) {
    return { errorCode: 42, errorMessage: `Cannot update these configs dynamically: ${nonDynamic.join(', ')}` };
  }
  const unprefixed = names.filter((name) => LISTENER_ONLY_SECURITY_CONFIGS.includes(name));
  if (unprefixed.length > 0) {
    return { errorCode: 42, errorMessage: `These security configs can be dynamically updated only per-listener using the listener prefix: ${unprefixed.join(', ')}` };
  }
  for (const [name, value] of configs) {
    const def = brokerConfigDef(baseName(name));
    const problem = def === undefined ? null : configValueProblem(def, value);
    if (problem !== null) return { errorCode: 42, errorMessage: problem };
  }
  const perBrokerOnly = names.filter((name) => PER_BROKER_CONFIGS.has(name) ||
    (LISTENER_CONFIG.test(name) && !CLUSTER_LEVEL_LISTENER_CONFIGS.includes(baseName(name))));
  if (!perBroker && perBrokerOnly.length > 0) {
    return { errorCode: 42, errorMessage: `Cannot update these configs at default cluster level, broker id must be specified: ${perBrokerOnly.join(', ')}` };
  }
  return null;
}

/** True when Kafka lets `name` change at run time (DescribeConfigs' read_only is its negation). */
export function isDynamicBrokerConfig(name: string): boolean {
  return LISTENER_CONFIG.test(name) || dynamicBrokerConfigNames().has(name);
}
