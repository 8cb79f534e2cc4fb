/**
 * The smallest Kafka client the harness needs: one Metadata v1 request with an empty topic list
 * on a fresh connection, to tell when a broker is ready (W6 start-up time) without the start-up
 * cost of a real client. Layouts: Kafka's RequestHeader v1 and MetadataRequest/Response v1
 * (shared/kafka-protocol).
 */
import { connect, type Socket } from 'node:net';

const METADATA_API_KEY = 3;
const METADATA_VERSION = 1;
const CLIENT_ID = 'tributary-bench';

/** The request frame: size, api key, version, correlation id, client id, topics = [] (no topics, brokers only). */
function metadataRequest(correlationId: number): Buffer {
  const clientId = Buffer.from(CLIENT_ID, 'utf8');
  const body = Buffer.alloc(2 + 2 + 4 + 2 + clientId.length + 4);
  let offset = 0;
  offset = body.writeInt16BE(METADATA_API_KEY, offset);
  offset = body.writeInt16BE(METADATA_VERSION, offset);
  offset = body.writeInt32BE(correlationId, offset);
  offset = body.writeInt16BE(clientId.length, offset);
  offset += clientId.copy(body, offset);
  body.writeInt32BE(0, offset);
  const frame = Buffer.alloc(4 + body.length);
  frame.writeInt32BE(body.length, 0);
  body.copy(frame, 4);
  return frame;
}

/**
 * Connects, sends Metadata v1 and resolves with the number of brokers in the answer once the
 * whole response frame has arrived. Rejects on a connection error, a closed connection, a
 * mismatched correlation id, or after `timeoutMs`.
 */
export function probeMetadata(host: string, port: number, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect({ host, port });
    socket.setNoDelay(true);
    let received = Buffer.alloc(0);
    const timer = setTimeout(() => finish(new Error(`no Metadata answer within ${timeoutMs} ms`)), timeoutMs);
    const finish = (error: Error | null, brokers?: number): void => {
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error); else resolve(brokers!);
    };
    socket.once('connect', () => socket.write(metadataRequest(7)));
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.length < 4) return;
      const size = received.readInt32BE(0);
      if (received.length < 4 + size) return;
      if (received.readInt32BE(4) !== 7) {
        finish(new Error('Metadata answer with the wrong correlation id'));
        return;
      }
      // Response v1: correlation id, then brokers: [node_id, host, port, rack].
      finish(null, received.readInt32BE(8));
    });
    socket.once('error', (error) => finish(error));
    socket.once('close', () => finish(new Error('connection closed before the Metadata answer')));
  });
}

/**
 * Probes every `intervalMs` until a Metadata answer lists at least one broker; resolves with the
 * time of that answer (performance.now() ms). Rejects after `timeoutMs` overall.
 */
export async function waitForMetadata(host: string, port: number, options: { timeoutMs: number; intervalMs?: number }): Promise<number> {
  const deadline = performance.now() + options.timeoutMs;
  let lastError: unknown;
  while (performance.now() < deadline) {
    try {
      const brokers = await probeMetadata(host, port, Math.max(1, deadline - performance.now()));
      if (brokers > 0) return performance.now();
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 2));
  }
  throw new Error(`broker at ${host}:${port} not ready within ${options.timeoutMs} ms: ${String(lastError)}`);
}
