/**
 * HTTP applications mounted on the gateway (network/http-applications.ts): what an application
 * is handed, and what the listener refuses before it runs (a foreign Origin, a foreign Host on a
 * browser-facing mount, a body over the cap).
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { HttpAppRequest } from '../../host/network/http-applications.js';
import type { NetworkLogger } from '../../host/network/network-types.js';
import { WebSocketGateway } from '../../host/network/websocket-gateway.js';
import { OriginPolicy } from '../../host/network/websocket-origin-policy.js';

const quiet: NetworkLogger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
const gateways: WebSocketGateway[] = [];

afterEach(async () => {
  await Promise.all(gateways.splice(0).map((gateway) => gateway.stop(1000)));
});

async function startGateway(seen: HttpAppRequest[], allowedOrigins: string[] = []): Promise<number> {
  const gateway = new WebSocketGateway({
    host: '127.0.0.1', port: 0, handler: () => null, jsonSessions: null, logger: quiet, allowedOrigins, rootRedirect: '/app/',
    httpApplications: [
      { prefix: '/app', checkHost: true, maxBodyBytes: 1024, application: { handle: (r) => {
        seen.push(r);
        return { status: 200, headers: { 'Content-Type': 'text/plain' }, body: `${r.method} ${r.path} ${r.query.get('q') ?? ''} ${r.body.toString()}` };
      } } },
      { prefix: '/open', application: { handle: () => ({ status: 200, body: 'open' }) } },
    ],
  });
  gateways.push(gateway);
  return (await gateway.start()).port;
}

function send(port: number, options: { method?: string; path: string; headers?: Record<string, string>; body?: string }): Promise<{ status: number; body: string; location?: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path, headers: options.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString(), ...(res.headers.location === undefined ? {} : { location: res.headers.location }) }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('HTTP applications on the gateway', () => {
  it('hands a mounted application the method, path, query and whole body, and redirects / to it', async () => {
    const seen: HttpAppRequest[] = [];
    const port = await startGateway(seen);
    expect(await send(port, { path: '/app/things?q=1' })).toEqual({ status: 200, body: 'get /app/things 1 ' });
    const body = 'x'.repeat(1000);
    expect((await send(port, { method: 'POST', path: '/app', headers: { 'Content-Type': 'application/json' }, body })).body).toBe(`post /app  ${body}`);
    expect(seen[1]!.contentType).toBe('application/json');
    expect(await send(port, { path: '/' })).toMatchObject({ status: 302, location: '/app/' });
    expect(await send(port, { method: 'HEAD', path: '/' })).toMatchObject({ status: 302, location: '/app/' });
    expect((await send(port, { path: '/elsewhere' })).status).toBe(404);
  });

  it('refuses a foreign Origin, a foreign Host on a browser-facing mount, and a body over the cap, before the application runs', async () => {
    const seen: HttpAppRequest[] = [];
    const port = await startGateway(seen, ['https://console.example.com']);
    expect((await send(port, { method: 'POST', path: '/app/x', headers: { Origin: 'https://evil.example' }, body: '{}' })).status).toBe(403);
    // A DNS-rebinding page: same-origin to the browser, so no Origin on a GET, but its own Host.
    expect((await send(port, { path: '/app/x', headers: { Host: 'evil.example:8080' } })).status).toBe(403);
    expect((await send(port, { path: '/open', headers: { Host: 'metrics.lan:8080' } })).status).toBe(200);
    expect((await send(port, { path: '/app/x', headers: { Host: 'console.example.com', Origin: 'https://console.example.com' } })).status).toBe(200);
    expect((await send(port, { path: '/app/x', headers: { Host: `localhost:${port}`, Origin: `http://localhost:${port}` } })).status).toBe(200);
    expect((await send(port, { method: 'POST', path: '/app/x', body: 'y'.repeat(2000) })).status).toBe(413);
    expect(seen.map((r) => r.path)).toEqual(['/app/x', '/app/x']);
  });
});

describe('OriginPolicy.checkHost', () => {
  it('allows loopback names, IP literals, the bind host and allowed origins\' hosts, and nothing else', () => {
    const policy = new OriginPolicy({ gatewayHost: 'broker1.lan', allowedOrigins: ['https://ops.example.com'] });
    for (const host of ['', 'localhost:8080', 'app.localhost', '127.0.0.1:8080', '[::1]:8080', '10.1.2.3:8080', 'broker1.lan:8080', 'ops.example.com']) {
      expect(policy.checkHost(host), host).toEqual({ allowed: true });
    }
    for (const host of ['evil.example', 'evil.example:8080', 'broker1.lan.evil.example']) expect(policy.checkHost(host).allowed, host).toBe(false);
    expect(new OriginPolicy({ gatewayHost: '0.0.0.0', allowedOrigins: ['*'] }).checkHost('anything.example')).toEqual({ allowed: true });
  });
});
