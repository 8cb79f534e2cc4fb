/**
 * Compression codecs of Kafka record batches (attributes bits 0-2), for the places that must look
 * inside a batch: clients, compaction, the JSON API. The broker's append path never decompresses
 * or recompresses (batches are stored as the producer sent them).
 *
 * The codec ids, formats, error type and dispatch live in host/record/compression-codecs.ts
 * (shared with the browser bundle's host/clients/browser/browser-compression.ts); this module
 * supplies the Node codecs:
 *  1 gzip    node:zlib; multi-member input is accepted
 *  2 snappy  snappy (native addon), raw blocks
 *  3 lz4     lz4-napi, LZ4 frames
 *  4 zstd    @bokuweb/zstd-wasm
 *
 * Initialisation: the zstd codec is WebAssembly that must be instantiated asynchronously. This
 * module does it with a top-level `await initCompression()`, so once `import` resolves every
 * function here is synchronous and ready. `initCompression()` stays exported (idempotent) for
 * callers that want to await it explicitly.
 *
 * Errors: compress throws only for an unknown codec (a caller bug). decompress throws
 * CompressionError (Kafka CORRUPT_MESSAGE, 2) for damaged input or output above the limit.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { compressSync as snappyCompress, uncompressSync as snappyUncompress } from 'snappy';
import { compressFrameSync as lz4CompressFrame, decompressFrameSync as lz4DecompressFrame } from 'lz4-napi';
import { compress as zstdCompress, decompress as zstdDecompress, init as zstdInit } from '@bokuweb/zstd-wasm';
import { asBuffer, compressWith, decompressWith, DEFAULT_MAX_DECOMPRESSED_BYTES, type CompressionCodecs } from './compression-codecs.js';

export {
  CompressionError,
  CompressionType,
  DEFAULT_MAX_DECOMPRESSED_BYTES,
  type CompressionCodec,
} from './compression-codecs.js';

let initialized: Promise<void> | undefined;
let zstdReady = false;

/** Instantiates the zstd WebAssembly codec once; safe to call many times. */
export function initCompression(): Promise<void> {
  initialized ??= zstdInit().then(() => { zstdReady = true; });
  return initialized;
}

await initCompression();

const NODE_CODECS: CompressionCodecs = {
  gzip: {
    compress: (data, level) => gzipSync(data, level === undefined ? {} : { level }),
    decompress: (data, maxBytes) => gunzipSync(data, { maxOutputLength: maxBytes }),
  },
  snappy: {
    compress: (data) => snappyCompress(data),
    uncompressBlock: (block) => snappyUncompress(block, { asBuffer: true }) as Buffer,
  },
  lz4: {
    compress: (data) => lz4CompressFrame(asBuffer(data)),
    decompress: (data) => lz4DecompressFrame(asBuffer(data)),
  },
  zstd: {
    compress: (data, level) => {
      assertZstdReady();
      return zstdCompress(data, level ?? 3);
    },
    decompress: decompressZstd,
  },
};

/** Compresses `data` with codec 1-4 (0 returns a copy). `level` applies to gzip and zstd. */
export function compress(codec: number, data: Uint8Array, level?: number): Buffer {
  return compressWith(NODE_CODECS, codec, data, level);
}

/**
 * Decompresses `data` written with codec 0-4. Output larger than `maxBytes` is refused.
 * @throws CompressionError (CORRUPT_MESSAGE) for damaged input, an unknown codec or oversize output.
 */
export function decompress(codec: number, data: Uint8Array, maxBytes = DEFAULT_MAX_DECOMPRESSED_BYTES): Buffer {
  return decompressWith(NODE_CODECS, codec, data, maxBytes);
}

function assertZstdReady(): void {
  if (!zstdReady) throw new Error('zstd is not initialised: await initCompression() first');
}

function decompressZstd(input: Uint8Array, maxBytes: number, declaredBytes: number): Uint8Array {
  assertZstdReady();
  if (declaredBytes >= 0) return zstdDecompress(input);
  // Streaming producers (e.g. the Java client's zstd-jni stream) leave the size out: grow the
  // output bound until it fits or reaches the limit.
  for (let bound = Math.min(maxBytes, Math.max(1 << 16, input.length * 8)); ; bound = Math.min(maxBytes, bound * 4)) {
    try {
      return zstdDecompress(input, { defaultHeapSize: bound });
    } catch (error) {
      // Only ZSTD_error_dstSize_tooSmall (70) is worth a larger bound; anything else is damage.
      if (bound >= maxBytes || !/code -70\b/.test((error as Error).message)) throw error;
    }
  }
}
