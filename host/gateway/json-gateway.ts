/**
 * The WebSocket gateway as the broker runs it: the transport (host/network/websocket-gateway.ts:
 * `/kafka` frames, `/health`, `/ready`, the `/json` text route) with the JSON application
 * (json-session.ts, documented in JSON-PROTOCOL.md) behind `/json`. Each `/json` socket drives an
 * in-process Kafka client over the broker's own request handler, so the transport never sees the
 * client library and the application never sees uWebSockets.js. The client library loads with the
 * first `/json` socket (lazy-json-session.ts).
 */
import { componentLogger, createLogger } from '../observability/logger.js';
import { DEFAULT_WEBSOCKET_LISTENER_NAME, WebSocketGateway, type WebSocketGatewayOptions } from '../network/websocket-gateway.js';
import type { JsonSessionOptions } from './json-session.js';
import { createLazyJsonSessionFactory } from './lazy-json-session.js';

/** The transport's options plus the JSON sessions' own. */
export interface JsonGatewayOptions extends WebSocketGatewayOptions {
  /**
   * Options of the `/json` sessions (limits, group timeouts), used when `jsonSessions` is absent.
   * `jsonSessions: null` disables the route; a factory replaces the JSON application.
   */
  json?: Partial<Omit<JsonSessionOptions, 'handler' | 'logger' | 'listenerName'>>;
}

/**
 * A WebSocketGateway (not yet started) whose `/json` route runs the JSON subprotocol over
 * `options.handler`, with the gateway's logger and listener name.
 * @throws Error for a bad limit or an `allowedOrigins` entry that is not an origin (as the gateway)
 */
export function createJsonGateway(options: JsonGatewayOptions): WebSocketGateway {
  const { json, ...transport } = options;
  if (transport.jsonSessions !== undefined) return new WebSocketGateway(transport);
  const logger = transport.logger ?? componentLogger(createLogger(), 'websocket-gateway');
  const jsonSessions = createLazyJsonSessionFactory({
    ...(transport.time === undefined ? {} : { time: transport.time }),
    ...json,
    handler: transport.handler,
    listenerName: transport.listenerName ?? DEFAULT_WEBSOCKET_LISTENER_NAME,
    logger,
  });
  return new WebSocketGateway({ ...transport, logger, jsonSessions });
}
