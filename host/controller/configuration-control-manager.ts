/**
 * ConfigurationControlManager (Kafka's name): dynamic config overrides of topics and brokers,
 * changed by AlterConfigs (replace all of a resource's overrides) and IncrementalAlterConfigs
 * (KIP-339: SET / DELETE / APPEND / SUBTRACT per config). A state machine without I/O: it
 * validates against the controller's latest state and returns one ConfigRecord per changed key
 * (null value = removed) with the per-resource answers; {@link ConfigurationControlManager.replay}
 * applies ConfigRecords. A deleted topic's overrides go with its RemoveTopicRecord.
 */
import { brokerConfigDef } from '../config/broker-config.js';
import { dynamicBrokerConfigProblem } from '../config/dynamic-broker-configs.js';
import { topicConfigDef, validateTopicConfigs } from '../config/topic-config.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { type ApiError, type ControllerResult, NONE, duplicateKeys, fail } from './controller-result.js';
import type { MetadataImage } from './metadata-image.js';
import { ConfigResourceType, type MetadataRecord, metadataRecord } from './metadata-records.js';

/** One resource of AlterConfigs: its configs replace all of its current overrides. */
export interface AlterConfigsRequest {
  /** ConfigResourceType.TOPIC (2) or ConfigResourceType.BROKER (4). */
  readonly resourceType: number;
  readonly resourceName: string;
  readonly configs: readonly { readonly name: string; readonly value: string | null }[];
}

/** Kafka's AlterConfigOp.OpType codes (IncrementalAlterConfigs, KIP-339). */
export const AlterConfigOp = { SET: 0, DELETE: 1, APPEND: 2, SUBTRACT: 3 } as const;

/** One resource of IncrementalAlterConfigs: each config is changed by its operation, the others are kept. */
export interface IncrementalAlterConfigsRequest {
  /** ConfigResourceType.TOPIC (2) or ConfigResourceType.BROKER (4). */
  readonly resourceType: number;
  readonly resourceName: string;
  readonly configs: readonly {
    readonly name: string;
    /** AlterConfigOp: SET 0, DELETE 1, APPEND 2, SUBTRACT 3. */
    readonly configOperation: number;
    readonly value: string | null;
  }[];
}

export interface AlterConfigsResult extends ApiError {
  readonly resourceType: number;
  readonly resourceName: string;
}


/** A config resource's identity within one request. */
function resourceKey(resource: { readonly resourceType: number; readonly resourceName: string }): string {
  return `${resource.resourceType}:${resource.resourceName}`;
}

export class ConfigurationControlManager {
  /** @param latest the controller's latest state (appended records included) */
  constructor(private readonly latest: () => MetadataImage) {}

  /** Applies a ConfigRecord to the latest state. */
  replay(record: MetadataRecord): void {
    this.latest().replay(record);
  }

  /**
   * Kafka's (legacy) AlterConfigs: each resource's configs replace all of its overrides (what is
   * not given returns to the default); one ConfigRecord per changed key (null value = removed).
   * - TOPIC (2): UNKNOWN_TOPIC_OR_PARTITION (3) for a missing topic; INVALID_CONFIG (40) with
   *   host/config/topic-config.ts's message for an unknown name or bad value (null values are
   *   ignored, as Kafka does for legacy AlterConfigs)
   * - BROKER (4): name "" (cluster default) or a registered broker's id, else INVALID_REQUEST (42);
   *   the configs become the resource's dynamic broker configs (KIP-226) when Kafka lets each
   *   change at run time, else INVALID_REQUEST "Cannot update these configs dynamically"; a bad
   *   value or a null one INVALID_REQUEST, as Kafka; a name that is no broker config
   *   INVALID_CONFIG (40) with a "did you mean" (host/config/dynamic-broker-configs.ts)
   * - any other resource type: INVALID_REQUEST (42); a resource given twice: INVALID_REQUEST (42)
   */
  alterConfigs(resources: readonly AlterConfigsRequest[], options: { validateOnly?: boolean } = {}): ControllerResult<AlterConfigsResult[]> {
    return this.alterResourceConfigs(resources, options.validateOnly ?? false, (resource, records) => {
      if (resource.resourceType === ConfigResourceType.TOPIC) return this.planTopicConfigs(resource, records);
      if (resource.resourceType === ConfigResourceType.BROKER) {
        const nulls = resource.configs.filter((c) => c.value === null).map((c) => c.name);
        if (nulls.length > 0) return fail(ErrorCode.INVALID_REQUEST, `Null value not supported for : ${nulls.join(', ')}`);
        return this.planBrokerConfigs(resource.resourceName, new Map(resource.configs.map((c) => [c.name, c.value!])), records);
      }
      return fail(ErrorCode.INVALID_REQUEST,
        `AlterConfigs is only supported for topics (2) and brokers (4), but resource type is ${resource.resourceType}.`);
    });
  }

  /**
   * Kafka's IncrementalAlterConfigs (KIP-339): per config SET (needs a value), DELETE (back to
   * the default), APPEND / SUBTRACT (LIST configs such as cleanup.policy: add missing elements to,
   * or remove elements from, the override or else the default); the result is validated as a
   * whole. Errors as {@link alterConfigs}, plus INVALID_CONFIG (40) for APPEND/SUBTRACT on a
   * non-LIST config, INVALID_REQUEST (42) for an unknown operation or a config named twice.
   */
  incrementalAlterConfigs(resources: readonly IncrementalAlterConfigsRequest[], options: { validateOnly?: boolean } = {}): ControllerResult<AlterConfigsResult[]> {
    return this.alterResourceConfigs(resources, options.validateOnly ?? false, (resource, records) => {
      const names = new Set<string>();
      for (const c of resource.configs) {
        if (names.has(c.name)) return fail(ErrorCode.INVALID_REQUEST, `Config ${c.name} appears more than once for the resource.`);
        names.add(c.name);
        if (!Object.values(AlterConfigOp).includes(c.configOperation as 0)) {
          return fail(ErrorCode.INVALID_REQUEST, `Unknown config operation ${c.configOperation} for ${c.name}.`);
        }
      }
      if (resource.resourceType === ConfigResourceType.BROKER) {
        const next = applyIncrementalOps(this.latest().brokerConfigs(resource.resourceName), resource.configs,
          (name) => brokerConfigDef(name));
        if ('errorCode' in next) return next;
        return this.planBrokerConfigs(resource.resourceName, next, records);
      }
      if (resource.resourceType !== ConfigResourceType.TOPIC) {
        return fail(ErrorCode.INVALID_REQUEST,
          `IncrementalAlterConfigs is only supported for topics (2) and brokers (4), but resource type is ${resource.resourceType}.`);
      }
      const topic = resource.resourceName;
      if (this.latest().topic(topic) === undefined) return fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `The topic '${topic}' does not exist.`);
      const next = applyIncrementalOps(this.latest().topicConfigs(topic), resource.configs, (name) => topicConfigDef(name), 'topic');
      if ('errorCode' in next) return next;
      const entries = [...next].map(([name, value]) => ({ name, value }));
      return this.planTopicConfigs({ resourceType: ConfigResourceType.TOPIC, resourceName: topic, configs: entries }, records);
    });
  }

  /**
   * The frame of AlterConfigs and IncrementalAlterConfigs: per resource in request order, a
   * resource given twice answers INVALID_REQUEST (42), any other is `plan`ned (ConfigRecords go
   * to `records`, null under validateOnly); the planned records go to the controller as one batch.
   */
  private alterResourceConfigs<R extends AlterConfigsRequest | IncrementalAlterConfigsRequest>(
    resources: readonly R[],
    validateOnly: boolean,
    plan: (resource: R, records: MetadataRecord[] | null) => ApiError,
  ): ControllerResult<AlterConfigsResult[]> {
    const duplicates = duplicateKeys(resources, resourceKey);
    const results: AlterConfigsResult[] = [];
    const records: MetadataRecord[] = [];
    for (const resource of resources) {
      const result = duplicates.has(resourceKey(resource))
        ? fail(ErrorCode.INVALID_REQUEST, 'The resource appears more than once in the request.')
        : plan(resource, validateOnly ? null : records);
      results.push({ ...result, resourceType: resource.resourceType, resourceName: resource.resourceName });
    }
    return { records, response: results };
  }

  /** TOPIC resource of AlterConfigs: validates, and appends ConfigRecords for the differences to `records` (null = validate only). */
  private planTopicConfigs(resource: AlterConfigsRequest, records: MetadataRecord[] | null): ApiError {
    const name = resource.resourceName;
    if (this.latest().topic(name) === undefined) return fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `The topic '${name}' does not exist.`);
    const validation = validateTopicConfigs(resource.configs, { nullValue: 'ignore' });
    if (validation.errors.length > 0) return fail(validation.errors[0]!.errorCode, validation.errors[0]!.errorMessage);
    if (records === null) return NONE;
    const current = this.latest().topicConfigs(name);
    const wanted = new Map(Object.entries(validation.overrides));
    for (const [k, v] of wanted) {
      if (current.get(k) !== v) records.push(metadataRecord('ConfigRecord', 0, { resourceType: ConfigResourceType.TOPIC, resourceName: name, name: k, value: v }));
    }
    for (const k of current.keys()) {
      if (!wanted.has(k)) records.push(metadataRecord('ConfigRecord', 0, { resourceType: ConfigResourceType.TOPIC, resourceName: name, name: k, value: null }));
    }
    return NONE;
  }

  /**
   * BROKER resource (name "" = cluster default, else a registered broker's id): `next` becomes the
   * resource's dynamic configs once validated as Kafka's DynamicBrokerConfig.validateConfigs does
   * (host/config/dynamic-broker-configs.ts); ConfigRecords for the differences go to `records`
   * (null = validate only).
   */
  private planBrokerConfigs(name: string, next: ReadonlyMap<string, string>, records: MetadataRecord[] | null): ApiError {
    if (name !== '') {
      if (!/^\d+$/.test(name)) return fail(ErrorCode.INVALID_REQUEST, `Node id must be an integer, but it is: ${name}`);
      if (this.latest().broker(Number(name)) === undefined) return fail(ErrorCode.INVALID_REQUEST, `Broker ${name} is not registered.`);
    }
    const problem = dynamicBrokerConfigProblem(next, name !== '');
    if (problem !== null) return fail(problem.errorCode, problem.errorMessage);
    if (records === null) return NONE;
    const current = this.latest().brokerConfigs(name);
    const record = (k: string, v: string | null): MetadataRecord =>
      metadataRecord('ConfigRecord', 0, { resourceType: ConfigResourceType.BROKER, resourceName: name, name: k, value: v });
    for (const [k, v] of next) if (current.get(k) !== v) records.push(record(k, v));
    for (const k of current.keys()) if (!next.has(k)) records.push(record(k, null));
    return NONE;
  }
}

/**
 * IncrementalAlterConfigs' operations on a resource's current configs (KIP-339): SET (needs a
 * value), DELETE, APPEND / SUBTRACT (LIST configs: add missing elements to, or remove elements
 * from, the current value or else the default). Returns the resulting configs, or the error:
 * INVALID_CONFIG (40) for a null SET value of a topic or APPEND/SUBTRACT on a non-LIST config,
 * INVALID_REQUEST (42) for a null value of a broker config (Kafka's "Null value not supported").
 */
function applyIncrementalOps(
  current: ReadonlyMap<string, string>,
  configs: IncrementalAlterConfigsRequest['configs'],
  defOf: (name: string) => { readonly type: string; readonly defaultValue: string | null } | undefined,
  scope: 'topic' | 'broker' = 'broker',
): Map<string, string> | ApiError {
  const next = new Map(current);
  for (const c of configs) {
    if (c.configOperation === AlterConfigOp.DELETE) {
      next.delete(c.name);
      continue;
    }
    if (c.value === null) {
      return scope === 'topic'
        ? fail(ErrorCode.INVALID_CONFIG, `Null value not supported for topic config ${c.name}; give a value.`)
        : fail(ErrorCode.INVALID_REQUEST, `Null value not supported for : ${c.name}`);
    }
    if (c.configOperation === AlterConfigOp.SET) {
      next.set(c.name, c.value);
      continue;
    }
    const def = defOf(c.name);
    if (def !== undefined && def.type !== 'LIST') {
      return fail(ErrorCode.INVALID_CONFIG, `Can't ${c.configOperation === AlterConfigOp.APPEND ? 'APPEND' : 'SUBTRACT'} to key ${c.name} because its type is not LIST.`);
    }
    const parts = (text: string | null | undefined): string[] => (text ?? '').split(',').map((p) => p.trim()).filter((p) => p.length > 0);
    const list = parts(next.get(c.name) ?? def?.defaultValue);
    for (const element of parts(c.value)) {
      const at = list.indexOf(element);
      if (c.configOperation === AlterConfigOp.APPEND && at < 0) list.push(element);
      if (c.configOperation === AlterConfigOp.SUBTRACT && at >= 0) list.splice(at, 1);
    }
    next.set(c.name, list.join(','));
  }
  return next;
}
