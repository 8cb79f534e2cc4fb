/**
 * The handler registry: one {@link ApiDefinition} per API key. The ApiVersions answer is built
 * from it, so the broker advertises exactly what it handles (CLIENTS.md rule: never advertise a
 * version that is not implemented; @platformatic/kafka and Java use the highest advertised).
 *
 * A handler is registered either loaded ({@link ApiRegistry.register}) or lazily
 * ({@link ApiRegistry.registerLazy}: its advertised range from a static table, its module imported
 * on first use or by {@link ApiRegistry.loadAll} right after the listeners bind). Importing every
 * handler and its generated codecs was ~100 ms of broker start-up (issue 5, W6). A lazy handler's
 * loaded definition must match its table row exactly (api key, name, range), else its load fails,
 * so the advertised ranges cannot drift from what is served.
 */
import { API_INFO } from '../protocol/generated/api-keys.js';
import type { AnyApiDefinition } from './api-definition.js';

/** One ApiVersions entry. */
export interface ApiVersionRange {
  readonly apiKey: number;
  readonly minVersion: number;
  readonly maxVersion: number;
}

/** A handler advertised before it is loaded: its table row and how to import it. */
export interface LazyApiEntry extends ApiVersionRange {
  /** Kafka's name (`Produce`), for logs; must equal the loaded definition's name. */
  readonly name: string;
  /** Imports the handler module; resolves to its definition. */
  load(): Promise<AnyApiDefinition>;
}

/** What the registry knows about one api key. */
interface Slot extends ApiVersionRange {
  readonly name: string;
  definition: AnyApiDefinition | undefined;
  readonly lazy: LazyApiEntry | undefined;
  loading: Promise<AnyApiDefinition> | undefined;
}

export class ApiRegistry {
  private readonly slots = new Map<number, Slot>();

  /**
   * Adds a loaded handler. Throws (a bug) for a duplicate api key or a range the generated codecs
   * do not cover.
   */
  register(definition: AnyApiDefinition): this {
    this.check(definition);
    this.slots.set(definition.apiKey, {
      apiKey: definition.apiKey, name: definition.name, minVersion: definition.minVersion, maxVersion: definition.maxVersion,
      definition, lazy: undefined, loading: undefined,
    });
    return this;
  }

  /**
   * Adds a handler by its table row, advertised at once and imported by {@link load}. Throws (a
   * bug) like {@link register}.
   */
  registerLazy(entry: LazyApiEntry): this {
    this.check(entry);
    this.slots.set(entry.apiKey, {
      apiKey: entry.apiKey, name: entry.name, minVersion: entry.minVersion, maxVersion: entry.maxVersion,
      definition: undefined, lazy: entry, loading: undefined,
    });
    return this;
  }

  /** The loaded handler of `apiKey`; undefined when none is registered or it is not loaded yet. */
  get(apiKey: number): AnyApiDefinition | undefined {
    return this.slots.get(apiKey)?.definition;
  }

  /** The advertised range and name of `apiKey` (loaded or not); undefined when none is registered. */
  range(apiKey: number): (ApiVersionRange & { readonly name: string }) | undefined {
    return this.slots.get(apiKey);
  }

  /**
   * The handler of `apiKey`, importing it on first call (one import per api key, shared by every
   * caller). Rejects when the import fails or the loaded definition differs from its table row (a
   * bug either way); the rejection is kept, so later calls fail at once instead of hanging.
   * Throws (a bug) for an api key that is not registered.
   */
  load(apiKey: number): Promise<AnyApiDefinition> {
    const slot = this.slots.get(apiKey);
    if (slot === undefined) throw new Error(`ApiRegistry: api key ${apiKey} is not registered`);
    if (slot.definition !== undefined) return Promise.resolve(slot.definition);
    slot.loading ??= slot.lazy!.load().then((definition) => {
      if (definition.apiKey !== slot.apiKey || definition.name !== slot.name ||
        definition.minVersion !== slot.minVersion || definition.maxVersion !== slot.maxVersion) {
        throw new Error(
          `ApiRegistry: the loaded handler ${definition.name} (key ${definition.apiKey}, ${definition.minVersion}-${definition.maxVersion}) ` +
          `differs from its table row ${slot.name} (key ${slot.apiKey}, ${slot.minVersion}-${slot.maxVersion})`,
        );
      }
      slot.definition = definition;
      return definition;
    });
    return slot.loading;
  }

  /** Api keys registered lazily and not loaded yet. */
  unloaded(): number[] {
    return [...this.slots.values()].filter((slot) => slot.definition === undefined).map((slot) => slot.apiKey);
  }

  /** Every registered range (loaded or not), by api key: the ApiVersions `api_keys` array. */
  apiVersions(): ApiVersionRange[] {
    return [...this.slots.values()]
      .sort((a, b) => a.apiKey - b.apiKey)
      .map((d) => ({ apiKey: d.apiKey, minVersion: d.minVersion, maxVersion: d.maxVersion }));
  }

  private check(definition: ApiVersionRange & { readonly name: string }): void {
    if (this.slots.has(definition.apiKey)) {
      throw new Error(`ApiRegistry: api key ${definition.apiKey} (${definition.name}) registered twice`);
    }
    const info = API_INFO.find((candidate) => candidate.apiKey === definition.apiKey);
    if (info === undefined || definition.minVersion < 0 || definition.maxVersion > info.generatedMaxVersion ||
      definition.minVersion > definition.maxVersion) {
      throw new Error(
        `ApiRegistry: ${definition.name} ${definition.minVersion}-${definition.maxVersion} is outside the generated codecs ` +
        `(0-${info?.generatedMaxVersion ?? -1})`,
      );
    }
  }
}
