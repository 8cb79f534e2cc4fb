/**
 * The WebSocket transport on Node, through the `ws` package (Node 20 has no global WebSocket
 * without a flag). Same frames and addressing as websocket-transport.ts; `ws` additionally
 * enforces the frame limit while reading (`maxPayload`), before a too-large message is buffered.
 * permessage-deflate is not offered: Kafka batches are compressed already, and an uncompressed
 * send lets `ws` copy each frame synchronously while masking it.
 */
import { WebSocket } from 'ws';
import type { TransportFactory } from './transport.js';
import { viaWebSocketGateway, webSocketTransportFactory, type GatewayClientOptions, type WebSocketLike, type WebSocketOpener, type WebSocketTransportOptions } from './websocket-transport.js';

/** Opens a `ws` WebSocket that hands frames over as Buffers. */
export const nodeWebSocketOpener: WebSocketOpener = (url: string, maxPayloadBytes: number): WebSocketLike => {
  const socket = new WebSocket(url, { perMessageDeflate: false, maxPayload: maxPayloadBytes });
  socket.binaryType = 'nodebuffer';
  return socket as unknown as WebSocketLike;
};

/**
 * A TransportFactory over WebSockets for Node (see WebSocketTransportOptions for addressing).
 * ```ts
 * const admin = new Admin({
 *   bootstrapServers: ['127.0.0.1:8080'],
 *   transportFactory: nodeWebSocketTransportFactory({ url: 'ws://127.0.0.1:8080/kafka' }),
 * });
 * ```
 */
export function nodeWebSocketTransportFactory(options: Omit<WebSocketTransportOptions, 'open'> = {}): TransportFactory {
  return webSocketTransportFactory({ ...options, open: nodeWebSocketOpener });
}

/**
 * Options for a Producer/Consumer/Admin on Node that reaches the cluster through the gateway at
 * `url` (see viaWebSocketGateway). @throws RangeError when `url` is not a ws: or wss: URL
 */
export function viaNodeWebSocketGateway(url: string, options: Omit<WebSocketTransportOptions, 'url' | 'open'> = {}): GatewayClientOptions {
  return viaWebSocketGateway(url, { ...options, open: nodeWebSocketOpener });
}
