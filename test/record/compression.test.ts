import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compressSync as snappyRaw } from 'snappy';
import { CompressionError, CompressionType, compress, decompress, initCompression } from '../../host/record/compression.js';

const codecs = [CompressionType.NONE, CompressionType.GZIP, CompressionType.SNAPPY, CompressionType.LZ4, CompressionType.ZSTD];

/** Xerial (snappy-java) framing as the Java client and kafka-python write it. */
function xerialFrame(chunks: Uint8Array[]): Buffer {
  const header = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00, 0, 0, 0, 1, 0, 0, 0, 1]);
  const parts: Buffer[] = [header];
  for (const chunk of chunks) {
    const block = snappyRaw(Buffer.from(chunk));
    const length = Buffer.alloc(4);
    length.writeInt32BE(block.length);
    parts.push(length, block);
  }
  return Buffer.concat(parts);
}

describe('compression', () => {
  it('initialises once and resolves again immediately', async () => {
    await initCompression();
    await expect(initCompression()).resolves.toBeUndefined();
  });

  for (const codec of codecs) {
    it(`round-trips arbitrary data with codec ${codec}`, () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 5000 }), (data) => {
          expect(decompress(codec, compress(codec, data)).equals(Buffer.from(data))).toBe(true);
        }),
        { numRuns: 60 },
      );
    });

    it(`round-trips 1 MiB of compressible data with codec ${codec}`, () => {
      const data = Buffer.alloc(1 << 20);
      for (let i = 0; i < data.length; i++) data[i] = (i * 7) % 61;
      const compressed = compress(codec, data);
      if (codec !== CompressionType.NONE) expect(compressed.length).toBeLessThan(data.length / 4);
      expect(decompress(codec, compressed).equals(data)).toBe(true);
    });
  }

  it('writes snappy as one raw block', () => {
    const data = Buffer.from('raw snappy, as librdkafka writes it');
    expect(compress(CompressionType.SNAPPY, data).equals(snappyRaw(data))).toBe(true);
  });

  it('reads xerial-framed snappy with several chunks', () => {
    const chunks = [Buffer.from('first chunk '), Buffer.alloc(40000, 'x'), Buffer.from(' last')];
    expect(decompress(CompressionType.SNAPPY, xerialFrame(chunks)).equals(Buffer.concat(chunks))).toBe(true);
  });

  it('reads gzip input made of several members', () => {
    const joined = Buffer.concat([compress(CompressionType.GZIP, Buffer.from('ab')), compress(CompressionType.GZIP, Buffer.from('cd'))]);
    expect(decompress(CompressionType.GZIP, joined).toString()).toBe('abcd');
  });

  it('reads a zstd frame that does not declare its content size', () => {
    // A single raw block frame: header descriptor 0 (no content size), window descriptor, block header.
    const payload = Buffer.alloc(300000, 9);
    const frames: Buffer[] = [Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x70])];
    for (let offset = 0; offset < payload.length; offset += 100000) {
      const size = Math.min(100000, payload.length - offset);
      const last = offset + size >= payload.length ? 1 : 0;
      const blockHeader = last | (size << 3);
      frames.push(Buffer.from([blockHeader & 0xff, (blockHeader >> 8) & 0xff, (blockHeader >> 16) & 0xff]), payload.subarray(offset, offset + size));
    }
    expect(decompress(CompressionType.ZSTD, Buffer.concat(frames)).equals(payload)).toBe(true);
  });

  it('throws CompressionError (CORRUPT_MESSAGE) for damaged input of every codec', () => {
    const data = Buffer.alloc(10000, 'abc');
    for (const codec of codecs.slice(1)) {
      const compressed = compress(codec, data);
      const damaged = compressed.subarray(0, Math.floor(compressed.length / 2));
      expect(() => decompress(codec, damaged)).toThrow(CompressionError);
      try { decompress(codec, damaged); } catch (error) { expect((error as CompressionError).errorCode).toBe(2); }
    }
    expect(() => decompress(7, data)).toThrow(CompressionError);
  });

  it('refuses output above the limit', () => {
    const data = Buffer.alloc(100000);
    for (const codec of codecs.slice(1)) {
      expect(() => decompress(codec, compress(codec, data), 1000)).toThrow(CompressionError);
    }
  });

  it('never throws anything but CompressionError on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.constantFrom(...codecs.slice(1)), fc.uint8Array({ maxLength: 300 }), (codec, bytes) => {
        try {
          decompress(codec, bytes, 1 << 20);
        } catch (error) {
          expect(error).toBeInstanceOf(CompressionError);
        }
      }),
      { numRuns: 400 },
    );
  });
});
