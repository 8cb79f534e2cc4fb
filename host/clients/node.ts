/**
 * Node entry of the client library: everything in index.ts plus the TCP transport.
 */
export * from './index.js';
export { TcpTransport, tcpTransportFactory } from './transport/tcp-transport.js';
