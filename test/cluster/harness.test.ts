import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { probeApiVersions, stopAllBrokerProcesses } from '../helpers/broker-process.js';
import { AckLedger } from './ack-ledger.js';
import { TestCluster } from './cluster.js';
import { LinkProxy } from '../../bench/jepsen/link-proxy.js';

afterAll(async () => {
  await stopAllBrokerProcesses();
});

async function echoServer(): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => socket.on('data', (data) => socket.write(data)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { server, port: (server.address() as { port: number }).port };
}

/** Connects to `port`, writes `text`, and resolves with what came back within `waitMs`, or 'closed'. */
function roundTrip(port: number, text: string, waitMs: number): Promise<string> {
  return new Promise((resolve) => {
    const socket: Socket = connect(port, '127.0.0.1');
    let received = '';
    const timer = setTimeout(() => { socket.destroy(); resolve(received); }, waitMs);
    socket.on('connect', () => socket.write(text));
    socket.on('data', (data) => {
      received += data.toString();
      if (received.length >= text.length) { clearTimeout(timer); socket.destroy(); resolve(received); }
    });
    socket.on('error', () => {});
    socket.on('close', () => { clearTimeout(timer); resolve(received === '' ? 'closed' : received); });
  });
}

describe('LinkProxy', () => {
  it('forwards, refuses while cut (reset), drops bytes while blackholed and forwards again once healed', async () => {
    const { server, port } = await echoServer();
    const proxy = await LinkProxy.start({ host: '127.0.0.1', port });
    try {
      expect(await roundTrip(proxy.port, 'hello', 2000)).toBe('hello');
      proxy.cut('reset');
      expect(await roundTrip(proxy.port, 'lost', 2000)).toBe('closed');
      proxy.heal();
      expect(await roundTrip(proxy.port, 'again', 2000)).toBe('again');
      proxy.cut('blackhole');
      expect(await roundTrip(proxy.port, 'void', 300)).toBe('');
      proxy.heal();
      expect(await roundTrip(proxy.port, 'back', 2000)).toBe('back');
    } finally {
      await proxy.close();
      server.close();
    }
  });
});

describe('AckLedger', () => {
  it('passes when every acknowledged write reads back at its offset, and names lost, changed, duplicated and reordered records', () => {
    const ledger = new AckLedger();
    ledger.ack('t', 0, 0, 'a');
    ledger.ack('t', 0, 1, 'b');
    ledger.ack('t', 1, 0, 'c');
    expect(ledger.size).toBe(3);
    expect(ledger.verify(new Map([
      ['t-0', [{ offset: 0, value: 'a' }, { offset: 1, value: 'b' }, { offset: 2, value: 'unacked' }]],
      ['t-1', [{ offset: 0, value: 'c' }]],
    ]))).toEqual([]);
    expect(ledger.verify(new Map([
      ['t-0', [{ offset: 0, value: 'x' }, { offset: 2, value: 'b' }, { offset: 1, value: 'b' }]],
    ]))).toEqual([
      't-0: offset 1 read after 2',
      't-0: value b at offsets 2 and 1',
      't-0: acknowledged a@0 reads back as x',
      't-1: acknowledged c@0 lost',
    ]);
    expect(() => ledger.ack('t', 0, 0, 'z')).toThrow(/two acknowledgements/);
  });
});

describe('TestCluster', () => {
  it('starts three KRaft-configured processes behind proxies, and a node cut off is unreachable until healed', async () => {
    const cluster = await TestCluster.start({ nodes: 3 });
    try {
      expect(cluster.nodes.map((n) => n.id)).toEqual([1, 2, 3]);
      expect(cluster.bootstrap.split(',')).toHaveLength(3);
      for (const node of cluster.nodes) {
        const versions = await probeApiVersions('127.0.0.1', node.clientProxy.port, 5000);
        expect(versions.length).toBeGreaterThan(0);
      }
      cluster.isolate(2, 'reset');
      await expect(probeApiVersions('127.0.0.1', cluster.node(2).clientProxy.port, 1000)).rejects.toThrow();
      cluster.heal();
      expect((await probeApiVersions('127.0.0.1', cluster.node(2).clientProxy.port, 5000)).length).toBeGreaterThan(0);
      await cluster.kill9(3);
      expect(cluster.node(3).process.running).toBe(false);
      await cluster.restart(3);
      expect((await probeApiVersions('127.0.0.1', cluster.node(3).clientProxy.port, 5000)).length).toBeGreaterThan(0);
    } finally {
      await cluster.close();
    }
  });
});
