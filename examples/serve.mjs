#!/usr/bin/env node
/**
 * A tiny static server for the example page: serves examples/ and dist/browser/ of this checkout
 * (nothing else) on 127.0.0.1. The tests start it on a free port; by hand:
 *
 *   npm run build && node examples/serve.mjs 8000
 *   open http://127.0.0.1:8000/examples/?gateway=ws://127.0.0.1:8080/kafka
 */
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SERVED = ['examples', path.join('dist', 'browser')];
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.map': 'application/json', '.css': 'text/css' };

/**
 * Starts the server. `port` 0 picks a free one.
 * @returns {Promise<{ url: string, port: number, close(): Promise<void> }>}
 */
export function serveExamples(port = 0, host = '127.0.0.1') {
  const server = createServer(async (request, response) => {
    const pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname);
    const relative = path.normalize(pathname.endsWith('/') ? `${pathname}index.html` : pathname).replace(/^[/\\]+/, '');
    if (request.method !== 'GET' || !SERVED.some((dir) => relative.startsWith(`${dir}${path.sep}`))) {
      response.writeHead(404).end('not found');
      return;
    }
    try {
      const body = await readFile(path.join(ROOT, relative));
      response.writeHead(200, { 'content-type': TYPES[path.extname(relative)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
      response.end(body);
    } catch {
      response.writeHead(404).end('not found');
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const bound = server.address();
      resolve({
        url: `http://${host}:${bound.port}`,
        port: bound.port,
        close: () => new Promise((done) => { server.closeAllConnections(); server.close(() => done()); }),
      });
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { url } = await serveExamples(Number(process.argv[2] ?? 8000));
  console.log(`example page: ${url}/examples/ (add ?gateway=ws://127.0.0.1:8080/kafka to pick the gateway)`);
}
