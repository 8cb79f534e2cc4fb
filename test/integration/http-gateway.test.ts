import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker } from '../../host/broker.js';
import { TestWebSocket, UpgradeRefused } from '../network/websocket-test-client.js';
import { startTestBroker, type TestBroker } from './in-process-broker.js';

/** The HTTP status of a /kafka upgrade sent with `origin` (101 when it opened). */
async function upgradeStatus(port: number, origin: string): Promise<number> {
  try {
    const socket = await TestWebSocket.open(port, '/kafka', { origin });
    socket.destroy();
    return 101;
  } catch (error) {
    if (error instanceof UpgradeRefused) return error.status;
    throw error;
  }
}

describe('the broker\'s http.listeners', () => {
  let broker: TestBroker;
  beforeAll(async () => {
    broker = await startTestBroker({ 'http.listeners': '127.0.0.1:0' });
  });
  afterAll(async () => {
    await broker.close();
  });

  it('binds the WebSocket gateway and reports ready once the broker started', async () => {
    expect(broker.broker.httpListeners).toHaveLength(1);
    const { port } = broker.broker.httpListeners[0]!;
    expect(port).toBeGreaterThan(0);
    const health = await fetch(`http://127.0.0.1:${port}/health`);
    expect(health.status).toBe(200);
    const ready = await fetch(`http://127.0.0.1:${port}/ready`);
    expect(ready.status).toBe(200);
  });

  it('is disabled by the library default (no http.listeners)', async () => {
    const plain = await startTestBroker();
    try {
      expect(plain.broker.httpListeners).toEqual([]);
    } finally {
      await plain.close();
    }
  });

  it('still serves Kafka clients when the HTTP port is taken, and logs why', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const taken = (blocker.address() as { port: number }).port;
    const crowded = await startTestBroker({ 'http.listeners': `127.0.0.1:${taken}` }, { captureLogs: true });
    try {
      expect(crowded.broker.httpListeners).toEqual([]);
      expect(crowded.broker.port).toBeGreaterThan(0);
      expect(crowded.logLines.some((line) => line.event === 'listener.bind_failed')).toBe(true);
    } finally {
      await crowded.close();
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });

  it('refuses WebSocket upgrades from foreign pages with 403 unless http.allowed.origins lists them', async () => {
    const { port } = broker.broker.httpListeners[0]!;
    expect(await upgradeStatus(port, 'https://evil.example')).toBe(403);
    expect(await upgradeStatus(port, 'http://localhost:5173')).toBe(101);
    const listed = await startTestBroker({ 'http.listeners': '127.0.0.1:0', 'http.allowed.origins': 'https://app.example.com' });
    try {
      const listedPort = listed.broker.httpListeners[0]!.port;
      expect(await upgradeStatus(listedPort, 'https://app.example.com')).toBe(101);
      expect(await upgradeStatus(listedPort, 'https://evil.example')).toBe(403);
    } finally {
      await listed.close();
    }
  });

  it('refuses to start with an http.allowed.origins entry that is not an origin', async () => {
    await expect(startBroker({ logDirs: [], overrides: { 'http.allowed.origins': 'example.com' } }))
      .rejects.toThrow(/http\.allowed\.origins.*not an origin/);
  });
});
