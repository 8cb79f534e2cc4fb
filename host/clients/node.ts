/**
 * Node entry of the client library: everything in index.ts plus the TCP transport and the
 * WebSocket transport on `ws` (the gateway's /kafka).
 */
export * from './index.js';
export { TcpTransport, tcpTransportFactory } from './transport/tcp-transport.js';
export { nodeWebSocketOpener, nodeWebSocketTransportFactory, viaNodeWebSocketGateway } from './transport/websocket-node-transport.js';
export {
  gatewayHostPort, KAFKA_WEBSOCKET_PATH, viaWebSocketGateway, WebSocketTransport, webSocketTransportFactory, webSocketUrlFor,
} from './transport/websocket-transport.js';
export type { GatewayClientOptions, WebSocketLike, WebSocketOpener, WebSocketTransportOptions } from './transport/websocket-transport.js';
