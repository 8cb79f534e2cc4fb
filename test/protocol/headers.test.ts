import { describe, expect, it } from 'vitest';
import { ApiKey } from '../../host/protocol/generated/api-keys.js';
import { beginFrame, encodeRequestFrame, encodeResponseFrame, endFrame, readFrameSize } from '../../host/protocol/frame.js';
import {
  decodeRequestHeader, decodeResponseHeader, encodeRequestHeader, encodeResponseHeader, requestHeaderVersion, responseHeaderVersion,
} from '../../host/protocol/headers.js';
import { Reader } from '../../host/protocol/reader.js';
import { Writer } from '../../host/protocol/writer.js';

function hexOf(write: (w: Writer) => void): string {
  const w = new Writer();
  write(w);
  return w.toBuffer().toString('hex');
}

describe('request and response headers', () => {
  it('use request header v1 for classic versions and v2 (client id still int16-length) for flexible ones', () => {
    expect(requestHeaderVersion(ApiKey.ApiVersions, 2)).toBe(1);
    expect(requestHeaderVersion(ApiKey.ApiVersions, 3)).toBe(2);
    expect(requestHeaderVersion(ApiKey.Metadata, 8)).toBe(1);
    expect(requestHeaderVersion(ApiKey.Metadata, 9)).toBe(2);
    expect(requestHeaderVersion(ApiKey.ControlledShutdown, 0)).toBe(0);
    expect(requestHeaderVersion(9999, 0)).toBe(1);
    // ApiVersions v3 header as librdkafka sends it: key 18, version 3, correlation 1, "rdkafka" (int16 length), no tags.
    const v2 = '0012' + '0003' + '00000001' + '0007' + Buffer.from('rdkafka').toString('hex') + '00';
    expect(hexOf((w) => encodeRequestHeader(w, { apiKey: 18, apiVersion: 3, correlationId: 1, clientId: 'rdkafka' }))).toBe(v2);
    const r = new Reader(Buffer.from(v2, 'hex'));
    expect(decodeRequestHeader(r)).toEqual({ apiKey: 18, apiVersion: 3, correlationId: 1, clientId: 'rdkafka', headerVersion: 2 });
    expect(r.remaining).toBe(0);
    expect(r.error).toBeNull();
  });

  it('reads a null client id and skips unknown tagged fields in header v2', () => {
    const bytes = Buffer.from('0016' + '0002' + '0000002a' + 'ffff' + '01' + '05' + '02' + 'abcd' + 'ee', 'hex');
    const r = new Reader(bytes);
    expect(decodeRequestHeader(r)).toEqual({ apiKey: 22, apiVersion: 2, correlationId: 42, clientId: null, headerVersion: 2 });
    expect(r.int8()).toBe(-18); // the body starts right after the tag section
    expect(r.error).toBeNull();
  });

  it('reads the header of an ApiVersions request newer than any we know (v2 by the schema\'s 3+ rule)', () => {
    const r = new Reader(Buffer.from('0012' + '0063' + '00000005' + '0001' + '61' + '00' + '1234', 'hex'));
    expect(decodeRequestHeader(r)).toMatchObject({ apiKey: 18, apiVersion: 99, correlationId: 5, clientId: 'a' });
    expect(r.remaining).toBe(2);
  });

  it('report a truncated header through the sticky error, never by throwing', () => {
    const full = Buffer.from('0012' + '0003' + '00000001' + '0003' + '616263' + '00', 'hex');
    for (let cut = 0; cut < full.length; cut++) {
      const r = new Reader(full.subarray(0, cut));
      expect(() => decodeRequestHeader(r)).not.toThrow();
      expect(r.error, `cut ${cut}`).not.toBeNull();
    }
  });

  it('use response header v0 for ApiVersions at every version and v1 for other flexible responses', () => {
    for (let v = 0; v <= 4; v++) expect(responseHeaderVersion(ApiKey.ApiVersions, v)).toBe(0);
    expect(responseHeaderVersion(ApiKey.InitProducerId, 1)).toBe(0);
    expect(responseHeaderVersion(ApiKey.InitProducerId, 2)).toBe(1);
    expect(hexOf((w) => encodeResponseHeader(w, ApiKey.ApiVersions, 3, 9))).toBe('00000009');
    expect(hexOf((w) => encodeResponseHeader(w, ApiKey.TxnOffsetCommit, 3, 9))).toBe('0000000900');
    const r = new Reader(Buffer.from('00000009' + '01' + '00' + '01' + 'ff' + '77', 'hex'));
    expect(decodeResponseHeader(r, ApiKey.TxnOffsetCommit, 3)).toEqual({ correlationId: 9 });
    expect(r.int8()).toBe(0x77);
  });
});

describe('frames', () => {
  it('prefix a frame with the int32 size of what follows', () => {
    const w = encodeResponseFrame(ApiKey.Heartbeat, 3, 77, (b) => { b.int32(0); b.int16(0); });
    expect(w.toBuffer().toString('hex')).toBe('0000000a' + '0000004d' + '00000000' + '0000');
    expect(readFrameSize(w.toBuffer())).toBe(10);
  });

  it('append pipelined frames to one writer', () => {
    const w = new Writer();
    encodeResponseFrame(ApiKey.Heartbeat, 0, 1, (b) => b.int16(0), w);
    encodeResponseFrame(ApiKey.Heartbeat, 0, 2, (b) => b.int16(27), w);
    const bytes = w.toBuffer();
    expect(readFrameSize(bytes, 0)).toBe(6);
    expect(readFrameSize(bytes, 10)).toBe(6);
    expect(bytes.readInt32BE(14)).toBe(2);
    expect(bytes.readInt16BE(18)).toBe(27);
  });

  it('build a request frame whose header decodes back', () => {
    const w = encodeRequestFrame({ apiKey: ApiKey.Metadata, apiVersion: 1, correlationId: 3, clientId: 'x' }, (b) => b.int32(-1));
    const bytes = w.toBuffer();
    expect(readFrameSize(bytes)).toBe(bytes.length - 4);
    const r = new Reader(bytes, 4);
    expect(decodeRequestHeader(r)).toMatchObject({ apiKey: 3, apiVersion: 1, correlationId: 3, clientId: 'x' });
    expect(r.int32()).toBe(-1);
    expect(r.remaining).toBe(0);
  });

  it('report a size prefix that is not there yet as -1, and keep negative sizes visible', () => {
    expect(readFrameSize(new Uint8Array([0, 0, 1]))).toBe(-1);
    expect(readFrameSize(new Uint8Array([0xff, 0xff, 0xff, 0xfe]))).toBe(-2);
    const w = new Writer();
    const start = beginFrame(w);
    endFrame(w, start);
    expect(w.toBuffer().toString('hex')).toBe('00000000');
  });
});
