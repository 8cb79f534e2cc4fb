import { afterEach, describe, expect, it } from 'vitest';
import type { NetworkLogger } from '../../host/network/network-types.js';
import { WebSocketGateway } from '../../host/network/websocket-gateway.js';
import { parseAllowedOrigin } from '../../host/config/allowed-origins.js';
import { OriginPolicy } from '../../host/network/websocket-origin-policy.js';
import { TestWebSocket, UpgradeRefused } from './websocket-test-client.js';

const gateways: WebSocketGateway[] = [];
const sockets: TestWebSocket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(gateways.splice(0).map((gateway) => gateway.stop(1000)));
});

interface LogLine {
  fields: Record<string, unknown>;
  message: string;
}

function recordingLogger(lines: LogLine[]): NetworkLogger {
  const record = (fields: object, message: string): void => void lines.push({ fields: fields as Record<string, unknown>, message });
  return { debug: record, info: record, warn: record, error: record };
}

async function startGateway(allowedOrigins?: string[]): Promise<{ port: number; logs: LogLine[] }> {
  const logs: LogLine[] = [];
  const gateway = new WebSocketGateway({
    host: '127.0.0.1',
    port: 0,
    handler: () => null,
    jsonSessions: null,
    logger: recordingLogger(logs),
    ...(allowedOrigins === undefined ? {} : { allowedOrigins }),
  });
  gateways.push(gateway);
  const { port } = await gateway.start();
  return { port, logs };
}

async function upgrade(port: number, origin?: string): Promise<number> {
  try {
    const socket = await TestWebSocket.open(port, '/kafka', origin === undefined ? {} : { origin });
    sockets.push(socket);
    return 101;
  } catch (error) {
    if (error instanceof UpgradeRefused) return error.status;
    throw error;
  }
}

describe('WebSocket gateway Origin check (http.allowed.origins)', () => {
  it('refuses an upgrade from a foreign page with 403 and logs why, by default', async () => {
    const { port, logs } = await startGateway();
    let refused: unknown;
    try {
      await TestWebSocket.open(port, '/kafka', { origin: 'https://evil.example' });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(UpgradeRefused);
    expect((refused as UpgradeRefused).status).toBe(403);
    expect(JSON.parse((refused as UpgradeRefused).body)).toMatchObject({ error: 'FORBIDDEN' });
    expect(logs.some((line) => line.fields['event'] === 'connection.refused' && line.fields['reason'] === 'origin')).toBe(true);
  });

  it('accepts clients without an Origin header and pages on localhost, 127.0.0.1 and [::1], any port', async () => {
    const { port } = await startGateway();
    expect(await upgrade(port)).toBe(101);
    for (const origin of ['http://localhost:3000', 'http://127.0.0.1:8000', 'http://[::1]:5173', 'https://app.localhost']) {
      expect(await upgrade(port, origin), origin).toBe(101);
    }
    // Look-alikes of local hosts and opaque origins are foreign.
    for (const origin of ['http://localhost.evil.example', 'http://127.0.0.1.evil.example', 'null', 'not an origin']) {
      expect(await upgrade(port, origin), origin).toBe(403);
    }
  });

  it('accepts listed origins, and every origin with *', async () => {
    const listed = await startGateway(['https://app.example.com', 'null']);
    expect(await upgrade(listed.port, 'https://APP.example.com:443')).toBe(101);
    expect(await upgrade(listed.port, 'null')).toBe(101);
    expect(await upgrade(listed.port, 'http://app.example.com')).toBe(403);
    const open = await startGateway(['*']);
    expect(await upgrade(open.port, 'https://evil.example')).toBe(101);
  });
});

describe('OriginPolicy', () => {
  it('accepts pages on the gateway\'s own bind host, but never trusts wildcard binds', () => {
    expect(new OriginPolicy({ gatewayHost: '192.168.1.5' }).check('http://192.168.1.5:3000')).toEqual({ allowed: true });
    expect(new OriginPolicy({ gatewayHost: 'broker.lan' }).check('https://broker.lan')).toEqual({ allowed: true });
    expect(new OriginPolicy({ gatewayHost: '0.0.0.0' }).check('http://0.0.0.0:3000').allowed).toBe(false);
    expect(new OriginPolicy({ gatewayHost: '::' }).check('http://192.168.1.5').allowed).toBe(false);
    expect(new OriginPolicy({ gatewayHost: 'fd00::5' }).check('http://[fd00::5]:8000')).toEqual({ allowed: true });
  });

  it('normalizes configured origins and refuses what is not one', () => {
    expect(parseAllowedOrigin(' HTTPS://App.Example.com:443/ ')).toBe('https://app.example.com');
    expect(parseAllowedOrigin('http://example.com:8080')).toBe('http://example.com:8080');
    expect(parseAllowedOrigin('*')).toBe('*');
    expect(parseAllowedOrigin('NULL')).toBe('null');
    expect(() => parseAllowedOrigin('example.com')).toThrow(/not an origin/);
    expect(() => parseAllowedOrigin('https://example.com/path')).toThrow(/not an origin/);
  });
});
