/**
 * Tests of test/helpers/broker-process.ts itself, against a fake broker
 * (fixtures/fake-broker.mjs), so the helper is known to work before the real
 * broker does.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  decodeApiVersionsV0Response,
  encodeApiVersionsV0Request,
  startBrokerProcess,
  stopAllBrokerProcesses,
} from '../helpers/broker-process.js';

const FAKE = fileURLToPath(new URL('./fixtures/fake-broker.mjs', import.meta.url));

function fake(mode: string, startTimeoutMs = 10_000) {
  return startBrokerProcess({
    command: { file: process.execPath, args: [FAKE] },
    env: { FAKE_BROKER_MODE: mode },
    overrides: { 'num.partitions': 3 },
    startTimeoutMs,
  });
}

afterAll(stopAllBrokerProcesses);

describe('broker-process helper', () => {
  it('encodes ApiVersions v0 as size, api key 18, version 0, correlation id and client id', () => {
    expect(encodeApiVersionsV0Request(7, 'probe').toString('hex'))
      .toBe('0000000f' + '0012' + '0000' + '00000007' + '0005' + Buffer.from('probe').toString('hex'));
  });

  it('decodes an ApiVersions v0 answer and waits for a complete frame', () => {
    const frame = Buffer.from('00000010' + '00000007' + '0000' + '00000001' + '0012' + '0000' + '0003', 'hex');
    expect(decodeApiVersionsV0Response(frame.subarray(0, 10))).toBeUndefined();
    expect(decodeApiVersionsV0Response(frame)).toEqual({
      correlationId: 7, errorCode: 0, apiVersions: [{ apiKey: 18, minVersion: 0, maxVersion: 3 }],
    });
  });

  it('starts the process with listeners and log.dirs overrides and resolves once ApiVersions v0 answers', async () => {
    const broker = await fake('ok');
    expect(broker.host).toBe('127.0.0.1');
    expect(broker.bootstrap).toBe(`127.0.0.1:${broker.port}`);
    expect(broker.apiVersions).toEqual([{ apiKey: 18, minVersion: 0, maxVersion: 3 }]);
    const started = broker.logRecords().find((record) => record.msg === 'listening');
    expect(started?.overrides).toEqual({
      listeners: `PLAINTEXT://127.0.0.1:${broker.port}`,
      'log.dirs': broker.logDir,
      'http.listeners': '',
      'num.partitions': '3',
    });
    await broker.close();
    expect(existsSync(broker.logDir)).toBe(false);
  });

  it('keeps log.dirs and the port across restart, reports SIGTERM and SIGKILL exits, and removes the dir on close', async () => {
    const broker = await fake('ok');
    const firstPid = broker.pid;
    await broker.restart();
    expect(broker.pid).not.toBe(firstPid);
    expect(readFileSync(`${broker.logDir}/meta.properties`, 'utf8')).toBe('node.id=1\n');
    expect(broker.logRecords().filter((record) => record.msg === 'listening')).toHaveLength(2);
    expect(broker.logRecords().filter((record) => record.msg === 'shutting down')).toHaveLength(1);
    expect(await broker.kill9()).toEqual({ code: null, signal: 'SIGKILL' });
    expect(broker.running).toBe(false);
    await broker.restart();
    expect(await broker.stop()).toEqual({ code: 0, signal: null });
    await broker.close();
    expect(existsSync(broker.logDir)).toBe(false);
  });

  it('rejects with the exit code and the captured output when the process dies before it is ready', async () => {
    await expect(fake('exit')).rejects.toThrow(/exited before it was ready \(code 3[\s\S]*pretend config error/);
  });

  it('rejects after the start timeout when nothing answers ApiVersions, and kills the process', async () => {
    await expect(fake('silent', 1_500)).rejects.toThrow(/not ready within 1500 ms[\s\S]*listening/);
  });
});
