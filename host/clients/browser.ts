/**
 * Browser entry of the client library, bundled by `npm run build:browser` into
 * dist/browser/tributary.js (ESM, no Node built-ins). Everything in index.ts (Producer,
 * Consumer, Admin, ...) plus the WebSocket transport, which it makes the default: a client created
 * without `transportFactory` connects to `ws://<bootstrap host:port>/kafka` (wss: on https pages).
 *
 * The gateway answers Metadata with the brokers' TCP endpoints, so clients that reach the cluster
 * through one gateway pass `...viaWebSocketGateway(url)`:
 * ```js
 * import { Producer, Consumer, viaWebSocketGateway } from './tributary.js';
 * const gateway = viaWebSocketGateway('ws://127.0.0.1:8080/kafka');
 * const producer = new Producer({ ...gateway });
 * await producer.send({ topic: 'clicks', messages: [{ value: 'hello' }] });
 * const consumer = new Consumer({ ...gateway, groupId: 'page' });
 * await consumer.subscribe(['clicks']);
 * for await (const record of consumer) console.log(new TextDecoder().decode(record.value));
 * ```
 * The bundle swaps three Node-only modules for browser ones (scripts/build-browser.mjs): the
 * WebAssembly core for a JS CRC-32C, the codecs for pure-JS ones (zstd: read only), and the TCP
 * transport for a stub; `Buffer` comes from the `buffer` package.
 */
import { setDefaultTransportFactory } from './transport/default-transport.js';
import { webSocketTransportFactory } from './transport/websocket-transport.js';

export * from './index.js';
export {
  gatewayHostPort, KAFKA_WEBSOCKET_PATH, viaWebSocketGateway, WebSocketTransport, webSocketTransportFactory, webSocketUrlFor,
} from './transport/websocket-transport.js';
export type { GatewayClientOptions, WebSocketLike, WebSocketOpener, WebSocketTransportOptions } from './transport/websocket-transport.js';

setDefaultTransportFactory(webSocketTransportFactory());
