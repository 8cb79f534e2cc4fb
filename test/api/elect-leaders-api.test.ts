/**
 * The client-facing ElectLeaders handler: v1+ passes the controller's answer through (top-level
 * error included), v0 (no top-level error field) gives a request-wide error to every partition and
 * elects the preferred replica only.
 */
import { describe, expect, it } from 'vitest';
import type { ApiRequestContext } from '../../host/api/api-definition.js';
import type { LeaderElectionResults } from '../../host/api/cluster-metadata.js';
import { electLeadersApi } from '../../host/api/elect-leaders-api.js';

function context(apiVersion: number, answer: LeaderElectionResults, calls: unknown[]): ApiRequestContext {
  const metadata = {
    electLeaders: (electionType: number, topicPartitions: unknown) => {
      calls.push({ electionType, topicPartitions });
      return Promise.resolve(answer);
    },
  };
  return { apiVersion, broker: { metadata } } as unknown as ApiRequestContext;
}

describe('ElectLeaders handler', () => {
  it('v2 answers the controller results and the election type asked for', async () => {
    const calls: unknown[] = [];
    const answer = { errorCode: 0, results: [{ topic: 't', partitions: [{ partitionId: 0, errorCode: 84, errorMessage: null }] }] };
    const response = await electLeadersApi.handle({ electionType: 1, topicPartitions: [{ topic: 't', partitions: [0] }], timeoutMs: 1 }, context(2, answer, calls));
    expect(calls).toEqual([{ electionType: 1, topicPartitions: [{ topic: 't', partitions: [0] }] }]);
    expect(response).toEqual({ throttleTimeMs: 0, errorCode: 0, replicaElectionResults: [{ topic: 't', partitionResult: [{ partitionId: 0, errorCode: 84, errorMessage: null }] }] });
  });

  it('v0 elects the preferred replica and gives a request-wide error (NOT_CONTROLLER 41) to every partition', async () => {
    const calls: unknown[] = [];
    const response = await electLeadersApi.handle({ electionType: 1, topicPartitions: [{ topic: 't', partitions: [0, 1] }], timeoutMs: 1 },
      context(0, { errorCode: 41, results: [] }, calls));
    expect(calls).toEqual([{ electionType: 0, topicPartitions: [{ topic: 't', partitions: [0, 1] }] }]);
    expect(response).toEqual({ throttleTimeMs: 0, replicaElectionResults: [{ topic: 't', partitionResult: [
      { partitionId: 0, errorCode: 41, errorMessage: null }, { partitionId: 1, errorCode: 41, errorMessage: null },
    ] }] });
  });
});
