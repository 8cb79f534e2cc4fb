import * as net from 'node:net';
import { describe, expect, it } from 'vitest';
import { systemEnvironment } from '../../host/io/environment.js';
import { manualEnvironment } from '../../host/io/manual-environment.js';
import { FaultDisk } from '../../host/io/fault-disk.js';

describe('manualEnvironment', () => {
  it('is deterministic for a seed: same ids, same time', () => {
    const a = manualEnvironment({ seed: 11, startMs: 1_000 });
    const b = manualEnvironment({ seed: 11, startMs: 1_000 });
    expect(a.random.uuid()).toBe(b.random.uuid());
    expect(a.time.nowMs()).toBe(1_000);
    expect(a.disk).toBeInstanceOf(FaultDisk);
  });

  it('refuses connections unless a network is given', async () => {
    const env = manualEnvironment({ seed: 1 });
    await expect(env.network.connect('localhost', 9092, { onData() {}, onClose() {} })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});

describe('systemEnvironment', () => {
  it('connects over TCP and exchanges bytes', async () => {
    const server = net.createServer((socket) => socket.on('data', (data) => socket.end(data)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    try {
      const env = systemEnvironment();
      const received: number[] = [];
      const closed = new Promise<Error | undefined>((resolve) => {
        void env.network.connect('127.0.0.1', port, {
          onData: (data) => received.push(...data),
          onClose: resolve,
        }).then((connection) => {
          expect(connection.remotePort).toBe(port);
          connection.write(Uint8Array.of(1, 2, 3));
        });
      });
      expect(await closed).toBeUndefined();
      expect(received).toEqual([1, 2, 3]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
