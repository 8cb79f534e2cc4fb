/**
 * brokerHttpAddress / groupCoordinatorHttpAddress (host/clients/admin-http.ts): how the CLI turns
 * a broker's `http.listeners` (from DescribeConfigs) into an address to ask for lag in seconds.
 */
import { describe, expect, it } from 'vitest';
import type { Admin } from '../../host/clients/admin.js';
import { brokerHttpAddress, groupCoordinatorHttpAddress } from '../../host/clients/admin-http.js';

function fakeAdmin(httpListeners: string | null): { admin: Admin; asked: unknown[] } {
  const asked: unknown[] = [];
  const admin = {
    cluster: {
      brokers: new Map([[2, { nodeId: 2, host: 'broker-2.example', port: 9092, rack: null }]]),
      coordinator: async () => ({ nodeId: 2 }),
    },
    describeConfigs: async (options: { resources: unknown[] }) => {
      asked.push(...options.resources);
      return [{ resource: options.resources[0], configs: [{ name: 'http.listeners', value: httpListeners }] }];
    },
  } as unknown as Admin;
  return { admin, asked };
}

describe('the HTTP listener of a broker, from DescribeConfigs http.listeners', () => {
  it('uses the first entry, with the broker\'s own host for a wildcard bind', async () => {
    expect(await brokerHttpAddress(fakeAdmin('127.0.0.1:8081,10.0.0.1:8082').admin, 2)).toBe('127.0.0.1:8081');
    expect(await brokerHttpAddress(fakeAdmin('0.0.0.0:8080').admin, 2)).toBe('broker-2.example:8080');
    expect(await brokerHttpAddress(fakeAdmin(':8080').admin, 2)).toBe('broker-2.example:8080');
    expect(await brokerHttpAddress(fakeAdmin('[::]:8080').admin, 2)).toBe('broker-2.example:8080');
    expect(await brokerHttpAddress(fakeAdmin('[::1]:8080').admin, 2)).toBe('[::1]:8080');
  });

  it('is null without a listener, for port 0 and for a value that does not parse', async () => {
    for (const value of ['', null, '127.0.0.1:0', 'nonsense']) expect(await brokerHttpAddress(fakeAdmin(value).admin, 2), String(value)).toBeNull();
  });

  it('asks the group coordinator\'s BROKER resource', async () => {
    const { admin, asked } = fakeAdmin('0.0.0.0:8080');
    expect(await groupCoordinatorHttpAddress(admin, 'g')).toBe('broker-2.example:8080');
    expect(asked).toEqual([{ type: 'broker', name: '2', keys: ['http.listeners'] }]);
  });
});
