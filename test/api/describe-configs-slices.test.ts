/**
 * DescribeConfigs naming many resources (issue 15): described describe.configs.max.resources.per.turn
 * per event-loop turn, with the answer of one turn, in request order; a resource named a second
 * time answers INVALID_REQUEST (42) and is not described again.
 */
import { describe, expect, it } from 'vitest';
import type { ApiRequestContext } from '../../host/api/api-definition.js';
import { describeConfigsApi } from '../../host/api/describe-configs-api.js';
import { loadBrokerConfig } from '../../host/config/broker-config.js';
import type { DescribeConfigsRequest } from '../../host/protocol/generated/describe-configs.js';

function context(perTurn: number, defer?: (task: () => void) => void): ApiRequestContext {
  const config = { ...loadBrokerConfig({ overrides: { 'node.id': '1' } }), describeConfigsMaxResourcesPerTurn: perTurn };
  const topics = new Map([['a', { configs: new Map([['retention.ms', '1000']]) }], ['b', { configs: new Map() }]]);
  const metadata = { topic: (name: string) => topics.get(name) };
  return { apiVersion: 4, broker: { config, metadata, nodeId: 1, ...(defer === undefined ? {} : { defer }) } } as unknown as ApiRequestContext;
}

const request: DescribeConfigsRequest = {
  resources: [
    { resourceType: 2, resourceName: 'a', configurationKeys: null },
    { resourceType: 4, resourceName: '1', configurationKeys: ['log.retention.ms', 'num.partitions'] },
    { resourceType: 2, resourceName: 'missing', configurationKeys: null },
    { resourceType: 4, resourceName: '7', configurationKeys: null },
    { resourceType: 2, resourceName: 'b', configurationKeys: ['retention.ms'] },
    { resourceType: 9, resourceName: 'x', configurationKeys: null },
    { resourceType: 4, resourceName: '', configurationKeys: null },
  ],
  includeSynonyms: true,
  includeDocumentation: false,
};

describe('DescribeConfigs over many resources', () => {
  it('answers in slices, one per event-loop turn, what one turn answers, in request order', async () => {
    const turns: (() => void)[] = [];
    let turnCount = 0;
    const sliced = describeConfigsApi.handle(request, context(2, (task) => turns.push(task)));
    for (let i = 0; i < 20 && turns.length === 0; i++) await Promise.resolve();
    while (turns.length > 0) {
      turnCount++;
      turns.shift()!();
      for (let i = 0; i < 20 && turns.length === 0; i++) await Promise.resolve();
    }
    const whole = await describeConfigsApi.handle(request, context(100));
    expect(turnCount).toBe(3);
    expect(await sliced).toEqual(whole);
    expect((await sliced)!.results.map((r) => [r.resourceName, r.errorCode])).toEqual([['a', 0], ['1', 0], ['missing', 3], ['7', 42], ['b', 0], ['x', 42], ['', 0]]);
  });

  it('answers a resource named a second time INVALID_REQUEST (42) without describing it again', async () => {
    const twice: DescribeConfigsRequest = { ...request, resources: [request.resources[0]!, request.resources[1]!, request.resources[0]!, request.resources[1]!] };
    const response = await describeConfigsApi.handle(twice, context(100));
    expect(response!.results.map((r) => [r.resourceName, r.errorCode, r.configs.length > 0])).toEqual([['a', 0, true], ['1', 0, true], ['a', 42, false], ['1', 42, false]]);
  });
});
