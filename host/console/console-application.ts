/**
 * The web console (issue 14): a page under `/console/` and its JSON API under `/console/api/`,
 * mounted on the HTTP listener (network/http-applications.ts applies the listener's Origin
 * policy and a Host check before anything here runs).
 *
 *   GET  /console, /console/            the page (index.html); `/` redirects here
 *   GET  /console/<file>                the page's script and styles
 *   GET  /console/api/overview          cluster id, controller, brokers, quorum, topic and group counts
 *   GET  /console/api/throughput?since= messages and bytes per second in and out, one sample a second
 *   ...  /console/api/topics...         console-topics-page.ts, console-topics.ts, console-messages.ts
 *   ...  /console/api/groups...         console-groups.ts
 *
 * Writes (POST, DELETE) are refused with 403 CONSOLE_WRITE_DISABLED unless
 * `console.write.enable=true`, and need `Content-Type: application/json` (so that a cross-site
 * form cannot send one without a CORS preflight, which is never answered).
 */
import type { HttpAppRequest, HttpAppResponse, HttpApplication } from '../network/http-applications.js';
import type { ConsoleAsset } from './console-assets.js';
import type { ConsoleClients } from './console-clients.js';
import type { Overview, Throughput } from './console-api-types.js';
import { clusterGroupLag } from './console-group-lag.js';
import { describeGroup, type GroupLagSource, listGroupsPage, resetGroupOffsets } from './console-groups.js';
import { browseMessages, produceMessage } from './console-messages.js';
import { ConsoleRequestError, errorResponse, intParam, jsonObject, ok } from './console-responses.js';
import { addPartitions, createTopic, describeTopic, type LocalLogSize } from './console-topics.js';
import { type PartitionBounds, TopicsPager, type TopicsPageLimits, type TopicsPageSource } from './console-topics-page.js';
import type { ThroughputSampler } from './throughput-sampler.js';

/** Where the console is mounted. */
export const CONSOLE_PREFIX = '/console';

export interface ConsoleApplicationOptions {
  readonly clients: ConsoleClients;
  readonly sampler: ThroughputSampler;
  /** console.write.enable */
  readonly writeEnabled: boolean;
  /** This broker's node.id (the page marks it). */
  readonly nodeId: number;
  readonly localLogSize: LocalLogSize;
  /** console.topics.page.size, console.topics.max.page.size and console.topics.max.page.partitions. */
  readonly topicsPage: TopicsPageLimits;
  /** The broker's metadata and replicas the topic list reads (the offsets of partitions led elsewhere come through `clients`). */
  readonly topics: Omit<TopicsPageSource, 'remoteBounds'>;
  /** The page's files by name (console-assets.ts); empty when not built. */
  readonly assets: ReadonlyMap<string, ConsoleAsset>;
  /** Lag in seconds and group status, when the broker evaluates them. */
  readonly groupLag?: GroupLagSource;
}

const PAGE_HEADERS = {
  'Cache-Control': 'no-cache',
  'X-Content-Type-Options': 'nosniff',
  // Everything comes from this listener; no frame may embed the console (its buttons write).
  'Content-Security-Policy': "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
};

type Route = (request: HttpAppRequest, params: string[]) => Promise<unknown>;

export class ConsoleApplication implements HttpApplication {
  private readonly routes: { method: string; pattern: RegExp; write: boolean; run: Route }[];
  private readonly topicsPager: TopicsPager;

  constructor(private readonly options: ConsoleApplicationOptions) {
    const admin = () => options.clients.admin;
    const groupLag = clusterGroupLag(options.groupLag ?? null, admin);
    const lag = () => groupLag;
    const body = (request: HttpAppRequest) => jsonObject(request.contentType, request.body);
    this.topicsPager = new TopicsPager({ ...options.topics, remoteBounds: (topic, partitions) => remoteBounds(admin(), topic, partitions) }, options.topicsPage);
    this.routes = [
      { method: 'get', pattern: /^overview$/, write: false, run: () => this.overview() },
      { method: 'get', pattern: /^throughput$/, write: false, run: async (r) => this.throughput(r.query) },
      { method: 'get', pattern: /^topics$/, write: false, run: (r) => this.topicsPager.page(r.query) },
      { method: 'post', pattern: /^topics$/, write: true, run: (r) => createTopic(admin(), body(r)) },
      { method: 'get', pattern: /^topics\/([^/]+)$/, write: false, run: (r, [name]) => describeTopic(admin(), name!, options.localLogSize) },
      { method: 'delete', pattern: /^topics\/([^/]+)$/, write: true, run: async (r, [name]) => {
        await admin().deleteTopics({ topics: [name!] });
        return { deleted: name };
      } },
      { method: 'post', pattern: /^topics\/([^/]+)\/partitions$/, write: true, run: (r, [name]) => addPartitions(admin(), name!, body(r)) },
      { method: 'get', pattern: /^topics\/([^/]+)\/messages$/, write: false, run: (r, [name]) => browseMessages(options.clients, name!, r.query) },
      { method: 'post', pattern: /^topics\/([^/]+)\/messages$/, write: true, run: (r, [name]) => produceMessage(options.clients.producer, name!, body(r)) },
      { method: 'get', pattern: /^groups$/, write: false, run: (r) => listGroupsPage(admin(), r.query, lag()) },
      { method: 'get', pattern: /^groups\/([^/]+)$/, write: false, run: (r, [id]) => describeGroup(admin(), id!, lag()) },
      { method: 'post', pattern: /^groups\/([^/]+)\/offsets$/, write: true, run: (r, [id]) => resetGroupOffsets(admin(), id!, body(r)) },
    ];
  }

  async handle(request: HttpAppRequest): Promise<HttpAppResponse> {
    const path = request.path;
    if (path === CONSOLE_PREFIX) return { status: 302, headers: { Location: `${CONSOLE_PREFIX}/`, 'Cache-Control': 'no-store' }, body: '' };
    const rest = path.slice(CONSOLE_PREFIX.length + 1);
    if (rest.startsWith('api/')) return this.api(request, rest.slice('api/'.length));
    if (request.method !== 'get' && request.method !== 'head') return errorResponse(new ConsoleRequestError(405, 'METHOD_NOT_ALLOWED', 'the page is read with GET'));
    const asset = this.options.assets.get(rest === '' ? 'index.html' : rest);
    if (asset === undefined) {
      const missing = this.options.assets.size === 0 ? 'the console was not built (run npm run build:browser)' : `no file ${rest}`;
      return { status: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: missing };
    }
    return { status: 200, headers: { ...PAGE_HEADERS, 'Content-Type': asset.contentType }, body: asset.body };
  }

  private async api(request: HttpAppRequest, route: string): Promise<HttpAppResponse> {
    let matched = false;
    for (const candidate of this.routes) {
      const match = candidate.pattern.exec(route);
      if (match === null) continue;
      matched = true;
      if (candidate.method !== request.method && !(candidate.method === 'get' && request.method === 'head')) continue;
      try {
        if (candidate.write && !this.options.writeEnabled) {
          throw new ConsoleRequestError(403, 'CONSOLE_WRITE_DISABLED', 'the console is read-only: start the broker with console.write.enable=true to create and delete topics, add partitions, produce and reset offsets from it');
        }
        const params = match.slice(1).map((segment) => decodeSegment(segment));
        return ok(await candidate.run(request, params));
      } catch (error) {
        return errorResponse(error);
      }
    }
    if (matched) return errorResponse(new ConsoleRequestError(405, 'METHOD_NOT_ALLOWED', `${request.method.toUpperCase()} is not allowed on ${request.path}`));
    return errorResponse(new ConsoleRequestError(404, 'NOT_FOUND', `no console API at ${request.path}`));
  }

  private async overview(): Promise<Overview> {
    const admin = this.options.clients.admin;
    // The counts from the broker's metadata, not an all-topics Metadata (issue 15: polled every
    // 10 s by every page, it held the loop for a second at 50,000 partitions).
    const [cluster, quorum, totals, groups] = await Promise.all([
      admin.describeCluster(),
      admin.describeQuorum().catch(() => null),
      this.topicsPager.totals(),
      admin.listGroups().catch(() => []),
    ]);
    return {
      clusterId: cluster.clusterId,
      controllerId: cluster.controllerId,
      nodeId: this.options.nodeId,
      writeEnabled: this.options.writeEnabled,
      brokers: cluster.brokers,
      quorum,
      ...totals,
      groups: groups.length,
    };
  }

  private throughput(query: URLSearchParams): Throughput {
    const since = intParam(query, 'since', 0, 0, Number.MAX_SAFE_INTEGER);
    return { intervalMs: this.options.sampler.intervalMs, samples: this.options.sampler.samples(since) };
  }
}

/** Earliest and latest offsets of some partitions of a topic, from their leaders (two ListOffsets). */
async function remoteBounds(admin: ConsoleClients['admin'], topic: string, partitions: number[]): Promise<PartitionBounds[]> {
  const [low, high] = await Promise.all([
    admin.listOffsets({ topic, partitions, spec: 'earliest' }),
    admin.listOffsets({ topic, partitions, spec: 'latest' }),
  ]);
  const highOf = new Map(high.map((h) => [h.partition, h.offset]));
  return low.flatMap((l) => {
    const h = highOf.get(l.partition);
    return h === undefined ? [] : [{ partition: l.partition, low: l.offset, high: h }];
  });
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new ConsoleRequestError(400, 'INVALID_REQUEST', `"${segment.slice(0, 100)}" is not a valid path segment`);
  }
}
