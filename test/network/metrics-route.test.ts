/**
 * `GET /metrics` over HTTP (http-server.ts serveMetrics): the text goes out chunk by chunk as the
 * route renders it, one per event-loop turn, and arrives whole; a render that fails before its
 * first chunk answers 500, after it cuts the connection (never a partial text with 200 that a
 * scraper would take for whole); a client gone away stops the render.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { NetworkLogger } from '../../host/network/network-types.js';
import type { MetricsRoute } from '../../host/network/http-server.js';
import { WebSocketGateway } from '../../host/network/websocket-gateway.js';

const gateways: WebSocketGateway[] = [];

afterEach(async () => {
  await Promise.all(gateways.splice(0).map((gateway) => gateway.stop(1000)));
});

async function serve(metrics: MetricsRoute): Promise<{ url: string; errors: string[] }> {
  const errors: string[] = [];
  const quiet = (): void => {};
  const logger: NetworkLogger = { debug: quiet, info: quiet, warn: quiet, error: (_fields, message) => errors.push(message) };
  const gateway = new WebSocketGateway({ host: '127.0.0.1', port: 0, handler: () => null, logger, metrics });
  gateways.push(gateway);
  const { port } = await gateway.start();
  return { url: `http://127.0.0.1:${port}/metrics`, errors };
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A route writing `chunks` chunks of `lines` lines, one per turn, then failing if `failAfter` chunks were written. */
function route(chunks: number, lines: number, failAfter?: number): MetricsRoute & { written: number } {
  const state = {
    contentType: 'text/plain; version=0.0.4; charset=utf-8',
    written: 0,
    async renderChunks(write: (chunk: string) => boolean): Promise<boolean> {
      for (let c = 0; c < chunks; c++) {
        if (failAfter === c) throw new Error('bug');
        let chunk = '';
        for (let l = 0; l < lines; l++) chunk += `series{chunk="${c}",line="${l}"} ${c * lines + l}\n`;
        if (!write(chunk)) return false;
        state.written++;
        await nextTurn();
      }
      return true;
    },
  };
  return state;
}

function expectedText(chunks: number, lines: number): string {
  let text = '';
  for (let c = 0; c < chunks; c++) for (let l = 0; l < lines; l++) text += `series{chunk="${c}",line="${l}"} ${c * lines + l}\n`;
  return text;
}

describe('GET /metrics', () => {
  it('sends the chunks as they are rendered and the scraper reads the whole text', async () => {
    const metrics = route(40, 2000);
    const { url, errors } = await serve(metrics);
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(metrics.contentType);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.text()).toBe(expectedText(40, 2000));
    expect(metrics.written).toBe(40);
    expect(errors).toEqual([]);
  });

  it('answers an empty render with an empty 200', async () => {
    const { url } = await serve(route(0, 0));
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
  });

  it('answers 500 when the render fails before its first chunk', async () => {
    const { url, errors } = await serve(route(3, 10, 0));
    const response = await fetch(url);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: 'INTERNAL_ERROR' });
    expect(errors).toHaveLength(1);
  });

  it('cuts the connection when the render fails after a chunk went out, so the scraper sees a failure', async () => {
    const { url, errors } = await serve(route(5, 10, 2));
    const response = await fetch(url);
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow();
    expect(errors).toHaveLength(1);
  });

  it('stops rendering when the scraper goes away', async () => {
    const metrics = route(100_000, 100);
    const { url } = await serve(metrics);
    const aborting = new AbortController();
    const response = await fetch(url, { signal: aborting.signal });
    const reader = response.body!.getReader();
    await reader.read();
    aborting.abort();
    const writtenAtAbort = metrics.written;
    for (let turn = 0; turn < 2000 && metrics.written < writtenAtAbort + 1000; turn++) await nextTurn();
    expect(metrics.written).toBeLessThan(writtenAtAbort + 1000);
    expect(metrics.written).toBeLessThan(100_000);
  });
});
