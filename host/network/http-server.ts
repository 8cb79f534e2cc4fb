/**
 * The gateway's plain HTTP routes, on the same uWebSockets.js app as its WebSocket routes:
 *
 * - `GET /health` (and `HEAD`): `200 {"status":"UP"}` whenever the process answers at all
 *   (liveness: a supervisor restarts the process when this stops answering).
 * - `GET /ready` (and `HEAD`): `200 {"status":"READY"}` once the broker has loaded its logs and
 *   accepts requests, `503 {"status":"NOT_READY"}` before that and while it stops (readiness: a
 *   load balancer sends traffic only to ready brokers). It is also `503 {"status":"NOT_READY",
 *   "reasons":[{"logDir":...,"condition":"LOG_DIR_FULL"|"LOG_DIR_OFFLINE","error":...}]}` while a
 *   log directory is full (an append failed with ENOSPC; back to 200 once an append succeeds) or
 *   offline (a disk error; until restart). `/health` stays 200 meanwhile: the process is alive.
 *   An `isReady` callback that throws counts as not ready (and is logged: it is a bug).
 * - `GET /metrics`: the Prometheus text exposition of the broker's metrics, when a
 *   {@link MetricsRoute} is given (host/metrics/prometheus-registry.ts), else 404. The text is
 *   sent as it is formatted, one chunk per event-loop turn (chunked transfer encoding), never
 *   held whole; a render that fails before its first chunk answers 500, after it closes the
 *   connection (the scraper sees a cut answer, not a partial text taken for whole), and is logged
 *   (it is a bug).
 * - `GET /consumer-lag` (`?group=ID` for one group): `200 {"groups":[...]}`, the consumer lag
 *   and status of the groups this broker coordinates (host/metrics/consumer-lag-monitor.ts's
 *   GroupLagReport), when a `consumerLag` callback is given, else 404. A named group without a
 *   report here adds a `note`: this broker is not its coordinator, or has not sampled it yet.
 *   Without `group` the answer is one page (`?offset=N`, the index of its first group, default 0):
 *   groups in id order until their partitions reach consumer.lag.max.page.partitions (a group
 *   with more is a page of its own), and `nextOffset`, where the next page starts, null after the
 *   last. 1,000 groups of 500 partitions were one 75 MB string built in one turn.
 * - anything else that is not a WebSocket upgrade: `404 {"error":"NOT_FOUND","path":...}`.
 *
 * Responses are JSON (but `/metrics`), `Cache-Control: no-store` (probes must never see a cached
 * answer). `/health` and `/ready` answer synchronously inside the uWS callback; `/metrics`
 * renders asynchronously, so it watches for the client going away (onAborted) and stops
 * rendering when it does.
 */
import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import type { NetworkLogger } from './network-types.js';
import { pageByPartitions } from './partition-pages.js';

/** What `/metrics` serves: an exposition text rendered on each scrape. */
export interface MetricsRoute {
  /** The Content-Type of the text, e.g. `text/plain; version=0.0.4; charset=utf-8`. */
  readonly contentType: string;
  /**
   * Renders the text, handing it to `write` in chunks whose concatenation is the whole text (one
   * chunk per event-loop turn of rendering); `write` returns false to stop (the client went
   * away). Resolves false when stopped. Rejects on a bug.
   */
  renderChunks(write: (chunk: string) => boolean): Promise<boolean>;
}

/** One reason `/ready` answers 503 although the broker started, e.g. a full log directory. */
export interface NotReadyReason {
  /** The log directory concerned. */
  readonly logDir: string;
  /** `LOG_DIR_FULL` (ENOSPC on append) or `LOG_DIR_OFFLINE` (disk error, until restart). */
  readonly condition: string;
  /** The error's message, e.g. `ENOSPC: write /data/t-0/...log`. */
  readonly error?: string;
}

export interface HttpRoutesOptions {
  /** True once the broker accepts requests; called on every `/ready` probe. */
  isReady: () => boolean;
  /** Conditions that make a started broker not ready (empty: none); called on every `/ready` probe. */
  notReadyReasons?: () => readonly NotReadyReason[];
  logger: NetworkLogger;
  /** `/metrics`; absent: 404. */
  metrics?: MetricsRoute;
  /** `/consumer-lag`: the groups' lag reports (all, in group id order, or the one named; JSON-ready values); absent: 404. */
  consumerLag?: (groupId: string | null) => readonly LagReportLike[];
  /** consumer.lag.max.page.partitions: partitions of one `/consumer-lag` page (default {@link DEFAULT_CONSUMER_LAG_MAX_PAGE_PARTITIONS}). */
  consumerLagMaxPagePartitions?: number;
}

/** A group's lag report as the route pages it: its partitions count towards the page's bound. */
export interface LagReportLike {
  readonly partitions?: readonly unknown[];
}

/** consumer.lag.max.page.partitions default. */
export const DEFAULT_CONSUMER_LAG_MAX_PAGE_PARTITIONS = 5000;

/**
 * One page of `reports` from index `offset`: reports until their partitions reach
 * `maxPartitions` (at least one report), and the index of the next page's first (null after the last).
 */
export function lagReportPage<T extends LagReportLike>(reports: readonly T[], offset: number, maxPartitions: number): { groups: T[]; nextOffset: number | null } {
  const { page, nextOffset } = pageByPartitions(reports, offset, Number.POSITIVE_INFINITY, maxPartitions, (report) => report.partitions?.length ?? 0);
  return { groups: page, nextOffset };
}

/** Registers `/health`, `/ready` and the 404 fallback. Call after the WebSocket routes. */
export function registerHttpRoutes(app: TemplatedApp, options: HttpRoutesOptions): void {
  const health = (res: HttpResponse, req: HttpRequest): void => {
    answer(res, req, '200 OK', { status: 'UP' });
  };
  const ready = (res: HttpResponse, req: HttpRequest): void => {
    let isReady = false;
    let reasons: readonly NotReadyReason[] = [];
    try {
      isReady = options.isReady();
      reasons = options.notReadyReasons?.() ?? [];
    } catch (error) {
      isReady = false;
      options.logger.error({ event: 'callback.failed', err: error }, 'isReady callback failed (bug); answering not ready');
    }
    if (isReady && reasons.length === 0) answer(res, req, '200 OK', { status: 'READY' });
    else answer(res, req, '503 Service Unavailable', reasons.length === 0 ? { status: 'NOT_READY' } : { status: 'NOT_READY', reasons });
  };
  const notFound = (res: HttpResponse, req: HttpRequest): void => {
    answer(res, req, '404 Not Found', { error: 'NOT_FOUND', path: req.getUrl() });
  };
  app.get('/health', guardHttpHandler(health, options.logger)).head('/health', guardHttpHandler(health, options.logger));
  app.get('/ready', guardHttpHandler(ready, options.logger)).head('/ready', guardHttpHandler(ready, options.logger));
  const metricsRoute = options.metrics;
  if (metricsRoute !== undefined) app.get('/metrics', guardHttpHandler((res) => serveMetrics(res, metricsRoute, options.logger), options.logger));
  const consumerLag = options.consumerLag;
  const maxPagePartitions = options.consumerLagMaxPagePartitions ?? DEFAULT_CONSUMER_LAG_MAX_PAGE_PARTITIONS;
  if (consumerLag !== undefined) {
    app.get('/consumer-lag', guardHttpHandler((res, req) => {
      const query = req.getQuery('group');
      const group = query === undefined || query === '' ? null : query;
      const groups = consumerLag(group);
      if (group === null) {
        const offset = Number.parseInt(req.getQuery('offset') ?? '0', 10);
        answer(res, req, '200 OK', lagReportPage(groups, Number.isNaN(offset) ? 0 : offset, maxPagePartitions));
        return;
      }
      // An empty answer for a named group says why, so a script asking the wrong broker is not left guessing.
      answer(res, req, '200 OK', groups.length === 0 ? { groups, note: noLagReportNote(group) } : { groups });
    }, options.logger));
  }
  app.any('/*', guardHttpHandler(notFound, options.logger));
}

/**
 * uWebSockets.js aborts the whole process when an HTTP (or upgrade) handler returns without
 * answering, which an exception would do: every handler runs behind this guard, which logs the
 * bug and answers 500 (or drops the connection if a response was already started).
 */
export function guardHttpHandler<A extends unknown[]>(
  handler: (res: HttpResponse, req: HttpRequest, ...rest: A) => void,
  logger: NetworkLogger,
): (res: HttpResponse, req: HttpRequest, ...rest: A) => void {
  return (res, req, ...rest) => {
    try {
      handler(res, req, ...rest);
    } catch (error) {
      logger.error({ event: 'http.handler_failed', err: error }, 'HTTP handler failed (bug); answering 500');
      try {
        res.cork(() => {
          res.writeStatus('500 Internal Server Error').end(JSON.stringify({ error: 'INTERNAL_ERROR' }));
        });
      } catch {
        res.close();
      }
    }
  };
}

function serveMetrics(res: HttpResponse, route: MetricsRoute, logger: NetworkLogger): void {
  let aborted = false;
  let started = false;
  res.onAborted(() => {
    aborted = true;
  });
  // Each chunk goes out in its own turn (uWS buffers what the socket does not take at once).
  const write = (chunk: string): boolean => {
    if (aborted) return false;
    res.cork(() => {
      if (!started) res.writeStatus('200 OK').writeHeader('Content-Type', route.contentType).writeHeader('Cache-Control', 'no-store');
      started = true;
      res.write(chunk);
    });
    return true;
  };
  route.renderChunks(write).then(
    (finished) => {
      if (aborted || !finished) return;
      res.cork(() => {
        if (!started) res.writeStatus('200 OK').writeHeader('Content-Type', route.contentType).writeHeader('Cache-Control', 'no-store');
        res.end();
      });
    },
    (error: unknown) => {
      logger.error({ event: 'http.handler_failed', err: error }, '/metrics failed to render (bug); answering 500');
      if (aborted) return;
      if (started) {
        res.close();
        return;
      }
      res.cork(() => {
        res.writeStatus('500 Internal Server Error').writeHeader('Content-Type', 'application/json').end(JSON.stringify({ error: 'INTERNAL_ERROR' }));
      });
    },
  );
}

function answer(res: HttpResponse, req: HttpRequest, status: string, body: object): void {
  const isHead = req.getMethod() === 'head';
  const text = JSON.stringify(body);
  res.cork(() => {
    res.writeStatus(status).writeHeader('Content-Type', 'application/json').writeHeader('Cache-Control', 'no-store');
    // HEAD gets the status without a body (Content-Length: 0): this uWS build's
    // endWithoutBody() does not mark the response as answered and aborts the process.
    res.end(isHead ? undefined : text);
  });
}

/** Why `GET /consumer-lag?group=` found no report for `group` on this broker. */
export function noLagReportNote(group: string): string {
  return `no lag report for group "${group}" on this broker: lag is computed by the group's coordinator `
    + '(FindCoordinator names it; ask its http.listeners), and a new group appears after its first sample (consumer.lag.sample.interval.ms)';
}
