/**
 * HTTP applications mounted on the gateway's uWebSockets.js app (the console under `/console`,
 * a metrics exporter under `/metrics`, ...), behind a transport-neutral seam: an application sees
 * a plain request (method, path, query, the headers it may need, the whole body) and returns a
 * plain response, and never sees uWebSockets.js. This file does the uWS part: it reads the
 * request's headers synchronously (uWS's HttpRequest is valid only during the callback), reads
 * the body with a byte cap (413 beyond), survives the client going away (onAborted) and writes
 * the answer corked.
 *
 * Browser checks, before the application runs:
 * - an `Origin` header that the listener's Origin policy refuses (websocket-origin-policy.ts, the
 *   rule of the WebSocket routes) gets `403 FORBIDDEN`: a page on another site can neither read
 *   from nor write to the broker through a mounted application;
 * - with `checkHost`, a `Host` that is not one of the listener's own names gets `403 FORBIDDEN`:
 *   a DNS-rebinding page (its own name resolved to 127.0.0.1) sends no Origin on same-origin GETs
 *   but cannot change the Host it sent (OriginPolicy.checkHost). For browser-facing applications;
 *   a Prometheus scrape by a DNS name must not be refused, so it is per mount.
 */
import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import { guardHttpHandler } from './http-server.js';
import type { NetworkLogger } from './network-types.js';
import type { OriginPolicy } from './websocket-origin-policy.js';

/** One HTTP request as an application sees it. */
export interface HttpAppRequest {
  /** Lower-case method: `get`, `head`, `post`, `put`, `delete`, ... */
  readonly method: string;
  /** The path without the query, e.g. `/console/api/topics`. */
  readonly path: string;
  /** The parsed query string. */
  readonly query: URLSearchParams;
  /** The `Content-Type` header ('' when absent). */
  readonly contentType: string;
  /** The whole body (empty for GET/HEAD), at most the mount's `maxBodyBytes`. */
  readonly body: Buffer;
  /** The peer as `host` (logs). */
  readonly peer: string;
}

/** The answer: a status code, headers and a body (a string is sent as UTF-8). */
export interface HttpAppResponse {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body: string | Uint8Array;
}

/** An application: answers a request, or rejects (a bug: logged, answered 500). */
export interface HttpApplication {
  handle(request: HttpAppRequest): HttpAppResponse | Promise<HttpAppResponse>;
  /** Releases what the application holds (timers, clients); called once, after the listener stopped. */
  close?(): Promise<void>;
}

/** Where an application is mounted and what the gateway checks for it. */
export interface HttpApplicationMount {
  /** A path prefix without a trailing slash, e.g. `/console`; `prefix` and `prefix/*` reach the application. */
  readonly prefix: string;
  readonly application: HttpApplication;
  /** Refuse a `Host` that is not the listener's own (DNS rebinding); for browser-facing applications. */
  readonly checkHost?: boolean;
  /** Largest request body, bytes (413 beyond); default 1 MiB. */
  readonly maxBodyBytes?: number;
}

/** The default body cap of a mount, bytes. */
export const DEFAULT_HTTP_APP_MAX_BODY_BYTES = 1024 * 1024;

const STATUS_TEXT: Readonly<Record<number, string>> = {
  200: 'OK', 201: 'Created', 204: 'No Content', 302: 'Found', 304: 'Not Modified', 400: 'Bad Request', 403: 'Forbidden',
  404: 'Not Found', 405: 'Method Not Allowed', 409: 'Conflict', 413: 'Payload Too Large', 415: 'Unsupported Media Type',
  500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout',
};

/**
 * Registers every mount (`prefix` and `prefix/*`, any method) on `app`, and `GET /` (and HEAD) answering a
 * 302 to `rootRedirect` when given. Call before the 404 fallback.
 */
export function registerHttpApplications(
  app: TemplatedApp,
  mounts: readonly HttpApplicationMount[],
  options: { originPolicy: OriginPolicy; logger: NetworkLogger; rootRedirect?: string },
): void {
  for (const mount of mounts) {
    const handler = guardHttpHandler((res: HttpResponse, req: HttpRequest) => serve(res, req, mount, options), options.logger);
    app.any(mount.prefix, handler);
    app.any(`${mount.prefix}/*`, handler);
  }
  const rootRedirect = options.rootRedirect;
  if (rootRedirect !== undefined) {
    const redirect = guardHttpHandler((res: HttpResponse) => {
      res.cork(() => {
        res.writeStatus('302 Found').writeHeader('Location', rootRedirect).writeHeader('Cache-Control', 'no-store').end();
      });
    }, options.logger);
    // HEAD too: monitoring probes and `curl -I` ask the root with it.
    app.get('/', redirect).head('/', redirect);
  }
}

function serve(
  res: HttpResponse,
  req: HttpRequest,
  mount: HttpApplicationMount,
  options: { originPolicy: OriginPolicy; logger: NetworkLogger },
): void {
  const method = req.getMethod();
  const path = req.getUrl();
  const query = new URLSearchParams(req.getQuery() ?? '');
  const contentType = req.getHeader('content-type');
  const originHeader = req.getHeader('origin');
  const hostHeader = req.getHeader('host');
  const contentLength = Number(req.getHeader('content-length') || '0');
  const peer = Buffer.from(res.getRemoteAddressAsText()).toString('utf8');
  const state = { aborted: false };
  res.onAborted(() => {
    state.aborted = true;
  });
  const origin = options.originPolicy.check(originHeader);
  if (!origin.allowed) {
    options.logger.warn({ event: 'http.refused', peer, path, reason: 'origin', origin: originHeader.slice(0, 200) }, `refusing ${path} from ${peer}: ${origin.reason}`);
    write(res, state, { status: 403, ...jsonBody({ error: 'FORBIDDEN', message: origin.reason }) }, method);
    return;
  }
  if (mount.checkHost === true) {
    const host = options.originPolicy.checkHost(hostHeader);
    if (!host.allowed) {
      options.logger.warn({ event: 'http.refused', peer, path, reason: 'host', host: hostHeader.slice(0, 200) }, `refusing ${path} from ${peer}: ${host.reason}`);
      write(res, state, { status: 403, ...jsonBody({ error: 'FORBIDDEN', message: host.reason }) }, method);
      return;
    }
  }
  const maxBodyBytes = mount.maxBodyBytes ?? DEFAULT_HTTP_APP_MAX_BODY_BYTES;
  const run = (body: Buffer): void => {
    let answer: HttpAppResponse | Promise<HttpAppResponse>;
    try {
      answer = mount.application.handle({ method, path, query, contentType, body, peer });
    } catch (error) {
      answer = Promise.reject(error);
    }
    Promise.resolve(answer).then(
      (response) => write(res, state, response, method),
      (error: unknown) => {
        options.logger.error({ event: 'http.handler_failed', peer, path, err: error }, 'HTTP application failed (bug); answering 500');
        write(res, state, { status: 500, ...jsonBody({ error: 'INTERNAL_ERROR' }) }, method);
      },
    );
  };
  if (method === 'get' || method === 'head' || !(contentLength > 0)) {
    run(Buffer.alloc(0));
    return;
  }
  if (contentLength > maxBodyBytes) {
    write(res, state, { status: 413, ...jsonBody({ error: 'PAYLOAD_TOO_LARGE', message: `the body is larger than ${maxBodyBytes} bytes` }) }, method, true);
    return;
  }
  readBody(res, maxBodyBytes, (body) => {
    if (body === null) write(res, state, { status: 413, ...jsonBody({ error: 'PAYLOAD_TOO_LARGE', message: `the body is larger than ${maxBodyBytes} bytes` }) }, method, true);
    else run(body);
  });
}

/** Collects the body (uWS's chunks are valid only during the callback: copied), null past the cap. */
function readBody(res: HttpResponse, maxBytes: number, done: (body: Buffer | null) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let finished = false;
  res.onData((chunk, isLast) => {
    if (finished) return;
    size += chunk.byteLength;
    if (size > maxBytes) {
      finished = true;
      done(null);
      return;
    }
    chunks.push(Buffer.from(new Uint8Array(chunk).slice()));
    if (isLast) {
      finished = true;
      done(Buffer.concat(chunks, size));
    }
  });
}

function write(res: HttpResponse, state: { aborted: boolean }, response: HttpAppResponse, method: string, close = false): void {
  if (state.aborted) return;
  state.aborted = true;
  res.cork(() => {
    res.writeStatus(`${response.status} ${STATUS_TEXT[response.status] ?? 'Unknown'}`);
    for (const [name, value] of Object.entries(response.headers ?? {})) res.writeHeader(name, value);
    // HEAD gets the headers without a body (see http-server.ts on endWithoutBody).
    res.end(method === 'head' ? undefined : response.body, close);
  });
}

/** A JSON body with its content type, `Cache-Control: no-store`. */
export function jsonBody(value: unknown): { headers: Record<string, string>; body: string } {
  return { headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }, body: JSON.stringify(value) };
}
