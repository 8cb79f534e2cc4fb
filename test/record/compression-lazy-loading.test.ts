import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { CompressionType, compress, decompress } from '../../host/record/compression.js';

// Written by snappy, lz4-napi and @bokuweb/zstd-wasm (and node:zlib) ahead of time, so that this
// file loads no codec library before the module under test does.
const TEXT = 'Tributary lazy codecs: the first compressed batch loads its codec. '.repeat(3);
const FIXTURES: readonly [number, string][] = [
  [CompressionType.GZIP, 'H4sIAAAAAAAAAwspykwqLUksqlTISayqVEjOT0lNLrZSKMlIVUjLLCouUUjOzy0oSi0uTk1RSEosSc5QyMlPTClWyCwphijWUwgZFEYAABbc3xDJAAAA'],
  [CompressionType.SNAPPY, 'yQHoVHJpYnV0YXJ5IGxhenkgY29kZWNzOiB0aGUgZmlyc3QgY29tcHJlc3NlZCBiYXRjaCBsb2FkcyBpdHMJLQQuIP5DAP5DAAlD'],
  [CompressionType.LZ4, 'BCJNGGBAgkwAAADyLFRyaWJ1dGFyeSBsYXp5IGNvZGVjczogdGhlIGZpcnN0IGNvbXByZXNzZWQgYmF0Y2ggbG9hZHMgaXRzLQAvLiBDAG1gb2RlYy4gAAAAAA=='],
  [CompressionType.ZSTD, 'KLUv/SDJRQIA1ANUcmlidXRhcnkgbGF6eSBjb2RlY3M6IHRoZSBmaXJzdCBjb21wcmVzc2VkIGJhdGNoIGxvYWRzIGl0cy4gAgADI1C8cFBQ'],
];

const loadedCodecLibraries = (): string[] => {
  const cached = Object.keys(createRequire(import.meta.url).cache);
  return ['snappy', 'lz4-napi', '@bokuweb/zstd-wasm'].filter((name) => cached.some((file) => file.includes(`/node_modules/${name}/`)));
};

describe('compression codec loading', () => {
  // Each test file runs in a fresh worker (vitest isolation), so nothing loaded them before.
  it('loads no codec library when the module is imported', () => {
    expect(loadedCodecLibraries()).toEqual([]);
  });

  it('decodes every codec on first use, without initCompression', () => {
    for (const [codec, base64] of FIXTURES) {
      expect(decompress(codec, Buffer.from(base64, 'base64')).toString(), `codec ${codec}`).toBe(TEXT);
    }
  });

  it('has loaded the three codec libraries after their first use', () => {
    expect(loadedCodecLibraries()).toEqual(['snappy', 'lz4-napi', '@bokuweb/zstd-wasm']);
  });

  it('compresses with every codec once loaded, round-tripping', () => {
    const data = Buffer.from(TEXT);
    for (const codec of [CompressionType.SNAPPY, CompressionType.LZ4, CompressionType.ZSTD]) {
      expect(decompress(codec, compress(codec, data)).equals(data), `codec ${codec}`).toBe(true);
    }
  });

});
