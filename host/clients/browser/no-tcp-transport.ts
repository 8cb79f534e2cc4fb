/**
 * Stands in for transport/tcp-transport.ts in the browser bundle (it imports node:net): browsers
 * cannot open TCP sockets, so clients there use the WebSocket transport.
 */
import { ConnectionError } from '../errors.js';
import type { BrokerAddress, Transport, TransportOptions } from '../transport/transport.js';

const MESSAGE = 'TCP is not available in a browser: use webSocketTransportFactory() (the gateway\'s /kafka WebSocket)';

/** Always throws: there is no TCP in a browser. */
export class TcpTransport {
  constructor(_address: BrokerAddress, _options: TransportOptions) {
    throw new ConnectionError(MESSAGE);
  }
}

/** Always throws: there is no TCP in a browser. */
export function tcpTransportFactory(_address: BrokerAddress, _options: TransportOptions): Transport {
  throw new ConnectionError(MESSAGE);
}
