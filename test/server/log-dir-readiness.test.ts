/**
 * `/ready` while a log directory is full: an append failing with ENOSPC (an injected FaultDisk at
 * capacity, no real disk filling) makes `/ready` answer 503 naming the directory and the
 * condition while `/health` stays 200; once an append succeeds again `/ready` is back to 200.
 * Each transition is logged once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../host/io/clock.js';
import { FaultDisk } from '../../host/io/fault-disk.js';
import { LogManager } from '../../host/log/log-manager.js';
import { WebSocketGateway } from '../../host/network/websocket-gateway.js';
import { createLogger } from '../../host/observability/logger.js';
import { logDirNotReadyReasons, watchLogDirReadiness } from '../../host/server/log-dir-readiness.js';
import { makeBatch, testConfig } from '../log/log-test-helpers.js';

const FULL_DIR = '/data/a';

const gateways: WebSocketGateway[] = [];
afterEach(async () => {
  for (const gateway of gateways.splice(0)) await gateway.stop();
});

function openStorage(): { disk: FaultDisk; manager: LogManager } {
  const disk = new FaultDisk(7);
  disk.mkdir('/data');
  disk.syncAll();
  const config = testConfig();
  const manager = LogManager.open({ logDirs: [FULL_DIR], disk, clock: new ManualClock(1_000_000), defaults: config, topicConfigs: () => config });
  return { disk, manager };
}

function capturingLogger(lines: Record<string, unknown>[]) {
  return createLogger({ level: 'debug', destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) } });
}

async function get(port: number, path: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: response.status, body: JSON.parse(await response.text()) as unknown };
}

describe('/ready and full log directories', () => {
  it('answers 503 naming the full log dir while appends fail with ENOSPC, 200 again once one succeeds; /health stays 200', async () => {
    const { disk, manager } = openStorage();
    const lines: Record<string, unknown>[] = [];
    const reasons = watchLogDirReadiness(manager.logDirectories, capturingLogger(lines));
    const gateway = new WebSocketGateway({
      host: '127.0.0.1', port: 0, handler: () => undefined as never, notReadyReasons: reasons, logger: capturingLogger([]),
    });
    gateways.push(gateway);
    const { port } = await gateway.start();
    const log = manager.getOrCreateLog('t', 0, testConfig());
    expect(log.appendAsLeader(makeBatch(2, { valueBytes: 100 }), 1).errorCode).toBe(0);
    expect(await get(port, '/ready')).toEqual({ status: 200, body: { status: 'READY' } });

    disk.capacityBytes = disk.usedBytes();
    expect(log.appendAsLeader(makeBatch(2, { valueBytes: 100 }), 1).errorCode).toBe(56);
    expect(log.appendAsLeader(makeBatch(2, { valueBytes: 100 }), 1).errorCode).toBe(56);
    expect(log.isOffline).toBe(false);
    const notReady = await get(port, '/ready');
    expect(notReady.status).toBe(503);
    expect(notReady.body).toMatchObject({ status: 'NOT_READY', reasons: [{ logDir: FULL_DIR, condition: 'LOG_DIR_FULL' }] });
    expect(JSON.stringify(notReady.body)).toContain('ENOSPC');
    expect(await get(port, '/health')).toEqual({ status: 200, body: { status: 'UP' } });

    disk.capacityBytes = Infinity;
    expect(log.appendAsLeader(makeBatch(2, { valueBytes: 100 }), 1).errorCode).toBe(0);
    expect(log.appendAsLeader(makeBatch(2, { valueBytes: 100 }), 1).errorCode).toBe(0);
    expect(await get(port, '/ready')).toEqual({ status: 200, body: { status: 'READY' } });

    const events = lines.map((line) => line.event).filter((event) => typeof event === 'string' && event.startsWith('log_dir.'));
    expect(events).toEqual(['log_dir.full', 'log_dir.writable']);
    expect(lines.find((line) => line.event === 'log_dir.full')).toMatchObject({ level: 'warn', logDir: FULL_DIR, condition: 'LOG_DIR_FULL' });
    manager.shutdown();
  });

  it('names an offline directory (LOG_DIR_OFFLINE, until restart) over a full one (offline wins)', () => {
    const { manager } = openStorage();
    const [dir] = manager.logDirectories;
    expect(logDirNotReadyReasons(manager.logDirectories)).toEqual([]);
    dir!.markFull(new Error('ENOSPC: write'));
    dir!.markOffline(new Error('EIO: fsync'));
    dir!.markWritable();
    expect(logDirNotReadyReasons(manager.logDirectories)).toEqual([{ logDir: FULL_DIR, condition: 'LOG_DIR_OFFLINE', error: 'EIO: fsync' }]);
    manager.shutdown();
  });
});
