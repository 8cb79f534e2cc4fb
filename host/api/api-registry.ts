/**
 * The handler registry: one {@link ApiDefinition} per API key. The ApiVersions answer is built
 * from it, so the broker advertises exactly what it handles (CLIENTS.md rule: never advertise a
 * version that is not implemented; @platformatic/kafka and Java use the highest advertised).
 */
import { API_INFO } from '../protocol/generated/api-keys.js';
import type { AnyApiDefinition } from './api-definition.js';

/** One ApiVersions entry. */
export interface ApiVersionRange {
  readonly apiKey: number;
  readonly minVersion: number;
  readonly maxVersion: number;
}

export class ApiRegistry {
  private readonly definitions = new Map<number, AnyApiDefinition>();

  /**
   * Adds a handler. Throws (a bug) for a duplicate api key or a range the generated codecs do not
   * cover.
   */
  register(definition: AnyApiDefinition): this {
    if (this.definitions.has(definition.apiKey)) {
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
    this.definitions.set(definition.apiKey, definition);
    return this;
  }

  get(apiKey: number): AnyApiDefinition | undefined {
    return this.definitions.get(apiKey);
  }

  /** Every registered range, by api key: the ApiVersions `api_keys` array. */
  apiVersions(): ApiVersionRange[] {
    return [...this.definitions.values()]
      .sort((a, b) => a.apiKey - b.apiKey)
      .map((d) => ({ apiKey: d.apiKey, minVersion: d.minVersion, maxVersion: d.maxVersion }));
  }
}
