/**
 * Every API the broker serves, registered in one place. The ApiVersions answer is built from this
 * registry, so adding a handler here is what advertises it (CLIENTS.md "Level A" ranges; no SASL
 * or transaction APIs yet).
 */
import { alterConfigsApi } from './alter-configs-api.js';
import { ApiRegistry } from './api-registry.js';
import { createApiVersionsApi } from './api-versions-api.js';
import { createPartitionsApi } from './create-partitions-api.js';
import { createTopicsApi } from './create-topics-api.js';
import { deleteGroupsApi } from './delete-groups-api.js';
import { deleteRecordsApi } from './delete-records-api.js';
import { deleteTopicsApi } from './delete-topics-api.js';
import { describeConfigsApi } from './describe-configs-api.js';
import { describeGroupsApi } from './describe-groups-api.js';
import { fetchApi } from './fetch-api.js';
import { findCoordinatorApi } from './find-coordinator-api.js';
import { heartbeatApi } from './heartbeat-api.js';
import { initProducerIdApi } from './init-producer-id-api.js';
import { joinGroupApi } from './join-group-api.js';
import { leaveGroupApi } from './leave-group-api.js';
import { listGroupsApi } from './list-groups-api.js';
import { listOffsetsApi } from './list-offsets-api.js';
import { metadataApi } from './metadata-api.js';
import { offsetCommitApi } from './offset-commit-api.js';
import { offsetDeleteApi } from './offset-delete-api.js';
import { offsetFetchApi } from './offset-fetch-api.js';
import { produceApi } from './produce-api.js';
import { syncGroupApi } from './sync-group-api.js';

/** A registry with every handler. */
export function createApiRegistry(): ApiRegistry {
  const registry = new ApiRegistry();
  for (const definition of [
    produceApi, fetchApi, listOffsetsApi, metadataApi, offsetCommitApi, offsetFetchApi, findCoordinatorApi,
    joinGroupApi, heartbeatApi, leaveGroupApi, syncGroupApi, describeGroupsApi, listGroupsApi,
    createTopicsApi, deleteTopicsApi, deleteRecordsApi, initProducerIdApi, describeConfigsApi,
    alterConfigsApi, createPartitionsApi, deleteGroupsApi, offsetDeleteApi,
  ]) {
    registry.register(definition);
  }
  registry.register(createApiVersionsApi(registry));
  return registry;
}
