import { describe, expect, it } from 'vitest';
import { ConnectionError } from '../../host/clients/errors.js';
import { InProcessTransport } from '../../host/gateway/in-process-transport.js';
import type { ConnectionContext, RequestHandler, ResponseBytes } from '../../host/network/network-types.js';

function open(handler: RequestHandler): { transport: InProcessTransport; frames: string[]; closed: Promise<Error | undefined> } {
  const transport = new InProcessTransport({ handler, peer: 'test', listenerName: 'PLAINTEXT' }, 1024);
  const frames: string[] = [];
  let resolveClosed!: (error: Error | undefined) => void;
  const closed = new Promise<Error | undefined>((resolve) => {
    resolveClosed = resolve;
  });
  void transport.connect({ onFrame: (frame) => frames.push(Buffer.from(frame).toString()), onClose: resolveClosed });
  return { transport, frames, closed };
}

describe('InProcessTransport', () => {
  it('delivers responses in request order, after send() returns, and nothing for a null answer', async () => {
    const releases: Array<() => void> = [];
    const { transport, frames } = open((frame) => {
      const text = frame.toString();
      if (text === 'none') return null;
      if (text.startsWith('slow')) return new Promise<ResponseBytes>((resolve) => releases.push(() => resolve(Buffer.from(`re:${text}`))));
      return [Buffer.from('re:'), Buffer.from(text)];
    });
    expect(transport.send(Buffer.from('slow'))).toBe(true);
    transport.send(Buffer.from('none'));
    transport.send(Buffer.from('fast'));
    expect(frames).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(frames).toEqual([]);
    releases[0]!();
    await new Promise((resolve) => setImmediate(resolve));
    expect(frames).toEqual(['re:slow', 're:fast']);
  });

  it('closes with a ConnectionError carrying the reason when the handler refuses the connection', async () => {
    const { transport, closed } = open((_frame, connection: ConnectionContext) => {
      connection.close('request header malformed');
      return null;
    });
    transport.send(Buffer.from('x'));
    const error = await closed;
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error!.message).toContain('request header malformed');
    expect(transport.send(Buffer.from('y'))).toBe(false);
  });

  it('closes when a response exceeds the client\'s frame limit, and on a handler exception', async () => {
    const big = open(() => Buffer.alloc(2048));
    big.transport.send(Buffer.from('x'));
    expect((await big.closed)!.message).toContain('2048');
    const failing = open(() => {
      throw new Error('bug');
    });
    failing.transport.send(Buffer.from('x'));
    expect(await failing.closed).toBeInstanceOf(ConnectionError);
  });

  it('reports a requested close without an error', async () => {
    const { transport, closed } = open(() => null);
    await transport.close();
    expect(await closed).toBeUndefined();
  });
});
