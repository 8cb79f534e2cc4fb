/**
 * The browser bundle's stand-ins for Node-only modules, checked in Node against the modules they
 * replace: the JS CRC-32C against the WebAssembly core, and the pure-JS codecs against
 * host/record/compression.ts (node:zlib, snappy, lz4-napi, zstd-wasm) in both directions, so
 * what a page writes the broker's other clients can read and vice versa.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as browser from '../../host/clients/browser/browser-compression.js';
import { getCore as getBrowserCore } from '../../host/clients/browser/browser-core.js';
import { crc32c } from '../../host/clients/browser/crc32c.js';
import * as node from '../../host/record/compression.js';
import { buildRecordBatch } from '../../host/record/batch-builder.js';
import { getCore } from '../../host/wasm/core.js';

const sample = Buffer.from(Array.from({ length: 400 }, (_, i) => `record ${i % 37} says hello; `).join(''));

describe('The browser CRC-32C', () => {
  it('gives the standard check value for "123456789"', () => {
    expect(crc32c(Buffer.from('123456789'))).toBe(0xe3069283);
    expect(crc32c(new Uint8Array(0))).toBe(0);
  });

  it('agrees with the WebAssembly core on any bytes, aligned or not', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(7), (bytes, skip) => {
      const view = bytes.subarray(Math.min(skip, bytes.length));
      expect(crc32c(view)).toBe(getCore().crc32c(view));
    }), { numRuns: 300 });
  });

  it('checks the CRC of a batch built by the broker\'s batch builder', () => {
    const batch = buildRecordBatch({ records: [{ key: 'k', value: 'v' }, { value: 'second' }] });
    expect(getBrowserCore().crc32c(batch.subarray(21))).toBe(batch.readUInt32BE(17));
  });
});

describe('The browser codecs', () => {
  it.each([
    ['gzip', browser.CompressionType.GZIP],
    ['snappy', browser.CompressionType.SNAPPY],
    ['lz4', browser.CompressionType.LZ4],
  ] as const)('write %s that the Node codecs read, and read what they write', (_name, codec) => {
    const fromBrowser = browser.compress(codec, sample);
    expect(fromBrowser.length).toBeLessThan(sample.length);
    expect(node.decompress(codec, fromBrowser).equals(sample)).toBe(true);
    const fromNode = node.compress(codec, sample);
    expect(browser.decompress(codec, fromNode).equals(sample)).toBe(true);
    expect(browser.decompress(codec, fromBrowser).equals(sample)).toBe(true);
  });

  it('read zstd frames written by the Node codec and refuse to write zstd', () => {
    expect(browser.decompress(browser.CompressionType.ZSTD, node.compress(node.CompressionType.ZSTD, sample)).equals(sample)).toBe(true);
    expect(() => browser.compress(browser.CompressionType.ZSTD, sample)).toThrow(/not supported in the browser bundle/);
  });

  it('read Xerial-framed snappy as the Java client writes it', () => {
    const first = node.compress(node.CompressionType.SNAPPY, sample.subarray(0, 3000));
    const second = node.compress(node.CompressionType.SNAPPY, sample.subarray(3000));
    const header = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00, 0, 0, 0, 1, 0, 0, 0, 1]);
    const length = (n: number): Buffer => { const b = Buffer.alloc(4); b.writeInt32BE(n); return b; };
    const xerial = Buffer.concat([header, length(first.length), first, length(second.length), second]);
    expect(browser.decompress(browser.CompressionType.SNAPPY, xerial).equals(sample)).toBe(true);
  });

  it('round-trip any bytes with each writable codec', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 2000 }), fc.constantFrom(0, 1, 2, 3), (bytes, codec) => {
      expect(Buffer.compare(browser.decompress(codec, browser.compress(codec, bytes)), Buffer.from(bytes))).toBe(0);
    }), { numRuns: 200 });
  });

  it('refuse output above the limit and damaged input with CORRUPT_MESSAGE', () => {
    for (const codec of [1, 2, 3, 4]) {
      const compressed = node.compress(codec, sample);
      expect(() => browser.decompress(codec, compressed, 100)).toThrow(browser.CompressionError);
    }
    const damaged = Buffer.from(node.compress(node.CompressionType.GZIP, sample));
    damaged.fill(0xff, 10, 40);
    const error = (() => { try { browser.decompress(1, damaged); } catch (e) { return e as InstanceType<typeof browser.CompressionError>; } return null; })();
    expect(error).toBeInstanceOf(browser.CompressionError);
    expect(error!.errorCode).toBe(2);
    expect(() => browser.decompress(9, sample)).toThrow(/unknown compression codec 9/);
  });
});
