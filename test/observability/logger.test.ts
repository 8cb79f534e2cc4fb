import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  LogEvent,
  componentLogger,
  createLogger,
  logRefusedRequest,
  traceRequest,
} from '../../host/observability/logger.js';

function capture(): { stream: Writable; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString('utf8'));
      callback();
    },
  });
  return {
    stream,
    lines: () => chunks.join('').split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('createLogger', () => {
  it('writes one JSON object per line with level label, ISO time, name and component', () => {
    const out = capture();
    const logger = createLogger({ name: 'test-broker', destination: out.stream });
    componentLogger(logger, 'socket-server').info({ event: LogEvent.ListenerBound, port: 9092 }, 'listening');
    const [line] = out.lines();
    expect(line).toMatchObject({
      level: 'info', name: 'test-broker', component: 'socket-server', event: 'listener.bound', port: 9092, msg: 'listening',
    });
    expect(new Date(line!.time as string).toISOString()).toBe(line!.time);
  });

  it('drops lines below the configured level', () => {
    const out = capture();
    const logger = createLogger({ level: 'warn', destination: out.stream });
    logger.info('hidden');
    logger.warn('shown');
    expect(out.lines().map((line) => line.msg)).toEqual(['shown']);
  });
});

describe('request log helpers', () => {
  it('logs a refused request at warn with peer, api and error', () => {
    const out = capture();
    const logger = createLogger({ destination: out.stream });
    logRefusedRequest(logger, {
      peer: '127.0.0.1:50000', api: 'Produce', apiKey: 0, apiVersion: 99, correlationId: 7, clientId: 'c',
      errorCode: 35, error: 'UNSUPPORTED_VERSION',
    }, 'api version 99 is not supported');
    expect(out.lines()).toEqual([expect.objectContaining({
      level: 'warn', event: 'request.refused', peer: '127.0.0.1:50000', api: 'Produce', apiKey: 0, apiVersion: 99,
      correlationId: 7, clientId: 'c', errorCode: 35, error: 'UNSUPPORTED_VERSION', reason: 'api version 99 is not supported',
      msg: 'refused Produce from 127.0.0.1:50000: api version 99 is not supported',
    })]);
  });

  it('traces requests only at debug level', () => {
    const quiet = capture();
    traceRequest(createLogger({ destination: quiet.stream }), { peer: 'p:1', api: 'Fetch', durationMs: 3 });
    expect(quiet.lines()).toEqual([]);
    const verbose = capture();
    traceRequest(createLogger({ level: 'debug', destination: verbose.stream }), { peer: 'p:1', api: 'Fetch', durationMs: 3 });
    expect(verbose.lines()).toEqual([expect.objectContaining({ level: 'debug', event: 'request.completed', api: 'Fetch', durationMs: 3 })]);
  });
});
