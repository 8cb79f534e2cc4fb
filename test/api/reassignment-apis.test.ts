/**
 * The client-facing AlterPartitionReassignments and ListPartitionReassignments handlers: they pass
 * the request to the cluster metadata (the controller, forwarded when not local) and its answer
 * back; without a reachable controller they answer NOT_CONTROLLER (41) at the top level.
 */
import { describe, expect, it } from 'vitest';
import type { ApiRequestContext } from '../../host/api/api-definition.js';
import { alterPartitionReassignmentsApi } from '../../host/api/alter-partition-reassignments-api.js';
import { listPartitionReassignmentsApi } from '../../host/api/list-partition-reassignments-api.js';

function context(metadata: object): ApiRequestContext {
  return { apiVersion: 0, broker: { metadata } } as unknown as ApiRequestContext;
}

describe('reassignment handlers', () => {
  it('AlterPartitionReassignments passes targets and cancels to the controller and answers its per-partition errors', async () => {
    const calls: unknown[] = [];
    const metadata = {
      alterPartitionReassignments: (topics: unknown) => {
        calls.push(topics);
        return Promise.resolve({ errorCode: 0, errorMessage: null, topics: [{ name: 't', partitions: [
          { partitionIndex: 0, errorCode: 0, errorMessage: null }, { partitionIndex: 1, errorCode: 85, errorMessage: 'none' },
        ] }] });
      },
    };
    const topics = [{ name: 't', partitions: [{ partitionIndex: 0, replicas: [2, 3, 4] }, { partitionIndex: 1, replicas: null }] }];
    const response = await alterPartitionReassignmentsApi.handle({ timeoutMs: 1_000, topics }, context(metadata));
    expect(calls).toEqual([topics]);
    expect(response).toEqual({ throttleTimeMs: 0, errorCode: 0, errorMessage: null, responses: [{ name: 't', partitions: [
      { partitionIndex: 0, errorCode: 0, errorMessage: null }, { partitionIndex: 1, errorCode: 85, errorMessage: 'none' },
    ] }] });
  });

  it('ListPartitionReassignments answers the ongoing moves; both answer NOT_CONTROLLER (41) without a controller', async () => {
    const ongoing = { name: 't', partitions: [{ partitionIndex: 0, replicas: [2, 3, 4, 1], addingReplicas: [4], removingReplicas: [1] }] };
    const metadata = { listPartitionReassignments: () => Promise.resolve({ errorCode: 0, errorMessage: null, topics: [ongoing] }) };
    expect(await listPartitionReassignmentsApi.handle({ timeoutMs: 1_000, topics: null }, context(metadata)))
      .toEqual({ throttleTimeMs: 0, errorCode: 0, errorMessage: null, topics: [ongoing] });
    expect((await listPartitionReassignmentsApi.handle({ timeoutMs: 1_000, topics: null }, context({}))).errorCode).toBe(41);
    expect((await alterPartitionReassignmentsApi.handle({ timeoutMs: 1_000, topics: [] }, context({}))).errorCode).toBe(41);
  });
});
