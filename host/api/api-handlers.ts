/**
 * Every API the broker serves, registered in one place. The ApiVersions answer is built from this
 * registry, so adding a handler here is what advertises it.
 */
import { ApiRegistry } from './api-registry.js';
import { createApiVersionsApi } from './api-versions-api.js';
import { fetchApi } from './fetch-api.js';
import { listOffsetsApi } from './list-offsets-api.js';
import { metadataApi } from './metadata-api.js';
import { produceApi } from './produce-api.js';

/** A registry with every handler (CLIENTS.md Level A ranges). */
export function createApiRegistry(): ApiRegistry {
  const registry = new ApiRegistry();
  registry
    .register(produceApi)
    .register(fetchApi)
    .register(listOffsetsApi)
    .register(metadataApi)
    .register(createApiVersionsApi(registry));
  return registry;
}
