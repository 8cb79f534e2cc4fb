/**
 * Compression codecs of Kafka record batches (attributes bits 0-2), for the places that must look
 * inside a batch: clients, compaction, the JSON API, the leader's checks of compressed batches and
 * its recompression to a topic's compression.type (host/log/batch-recompression.ts); with the
 * default compression.type `producer` batches are stored as the producer sent them.
 *
 * The codec ids, formats, error type and dispatch live in host/record/compression-codecs.ts
 * (shared with the browser bundle's host/clients/browser/browser-compression.ts); this module
 * supplies the Node codecs:
 *  1 gzip    node:zlib; multi-member input is accepted
 *  2 snappy  snappy (native addon), raw blocks
 *  3 lz4     lz4-napi, LZ4 frames
 *  4 zstd    @bokuweb/zstd-wasm
 *
 * Loading: each codec's library is loaded on its first use, synchronously (snappy and lz4-napi
 * are native addons loaded through `require`; zstd's WebAssembly is compiled and instantiated
 * with the synchronous WebAssembly API through the Emscripten `instantiateWasm` hook). A broker
 * that never sees a compressed batch loads none of them, which keeps its start-up short and its
 * memory small; the first compressed batch of a codec pays its load once (tens of ms for zstd).
 * `initCompression()` stays exported (idempotent) for callers that want the zstd load done
 * ahead of time.
 *
 * Errors: compress throws only for an unknown codec (a caller bug) or when a codec library cannot
 * be loaded (an installation problem). decompress throws CompressionError (Kafka CORRUPT_MESSAGE,
 * 2) for damaged input or output above the limit.
 */
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { readProgramFile } from '../io/program-files.js';
import { asBuffer, compressWith, decompressWith, DEFAULT_MAX_DECOMPRESSED_BYTES, type CompressionCodecs } from './compression-codecs.js';

export {
  CompressionError,
  CompressionType,
  DEFAULT_MAX_DECOMPRESSED_BYTES,
  type CompressionCodec,
} from './compression-codecs.js';

const require = createRequire(import.meta.url);

interface SnappyLibrary {
  compressSync(data: Uint8Array): Buffer;
  uncompressSync(data: Uint8Array, options: { asBuffer: true }): Buffer | string;
}
interface Lz4Library {
  compressFrameSync(data: Buffer): Buffer;
  decompressFrameSync(data: Buffer): Buffer;
}
interface ZstdLibrary {
  compress(data: Uint8Array, level: number): Uint8Array;
  decompress(data: Uint8Array, options?: { defaultHeapSize: number }): Uint8Array;
}
/** The Emscripten module object behind @bokuweb/zstd-wasm (its dist/common/module.js). */
interface EmscriptenModule {
  instantiateWasm?: (imports: WebAssembly.Imports, receive: (instance: WebAssembly.Instance) => unknown) => WebAssembly.Exports;
  init(): unknown;
  calledRun?: boolean;
}

let snappyLibrary: SnappyLibrary | undefined;
let lz4Library: Lz4Library | undefined;
let zstdLibrary: ZstdLibrary | undefined;

function snappy(): SnappyLibrary {
  snappyLibrary ??= require('snappy') as SnappyLibrary;
  return snappyLibrary;
}

function lz4(): Lz4Library {
  lz4Library ??= require('lz4-napi') as Lz4Library;
  return lz4Library;
}

/**
 * @bokuweb/zstd-wasm with its WebAssembly instantiated synchronously. The package only offers an
 * asynchronous `init()`; its Emscripten glue accepts an `instantiateWasm` hook, through which we
 * compile zstd.wasm (next to the package entry) with `new WebAssembly.Module`, so the runtime is
 * initialised before `init()` returns.
 * @throws Error when the package cannot be loaded or its runtime did not initialise
 */
function zstd(): ZstdLibrary {
  if (zstdLibrary !== undefined) return zstdLibrary;
  const entry = require.resolve('@bokuweb/zstd-wasm');
  const library = require(entry) as ZstdLibrary;
  // The package's `exports` hide module.js; by absolute path it is the same instance (one
  // require cache entry) that the entry uses.
  const { Module } = require(path.join(path.dirname(entry), 'module.js')) as { Module: EmscriptenModule };
  const initialised = (): boolean => Module.calledRun === true;
  if (!initialised()) {
    const bytes = readProgramFile(path.join(path.dirname(entry), 'zstd.wasm'));
    Module.instantiateWasm = (imports, receive) => {
      const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), imports);
      receive(instance);
      return instance.exports;
    };
    Module.init();
    if (!initialised()) throw new Error('zstd: the WebAssembly runtime did not initialise synchronously');
  }
  zstdLibrary = library;
  return library;
}

/** Loads the zstd codec now rather than on its first use; safe to call many times. */
export function initCompression(): Promise<void> {
  try {
    zstd();
    return Promise.resolve();
  } catch (error) {
    return Promise.reject(error as Error);
  }
}

const NODE_CODECS: CompressionCodecs = {
  gzip: {
    compress: (data, level) => gzipSync(data, level === undefined ? {} : { level }),
    decompress: (data, maxBytes) => gunzipSync(data, { maxOutputLength: maxBytes }),
  },
  snappy: {
    compress: (data) => snappy().compressSync(data),
    uncompressBlock: (block) => snappy().uncompressSync(block, { asBuffer: true }) as Buffer,
  },
  lz4: {
    compress: (data) => lz4().compressFrameSync(asBuffer(data)),
    decompress: (data) => lz4().decompressFrameSync(asBuffer(data)),
  },
  zstd: {
    compress: (data, level) => zstd().compress(data, level ?? 3),
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

function decompressZstd(input: Uint8Array, maxBytes: number, declaredBytes: number): Uint8Array {
  const library = zstd();
  if (declaredBytes >= 0) return library.decompress(input);
  // Streaming producers (e.g. the Java client's zstd-jni stream) leave the size out: grow the
  // output bound until it fits or reaches the limit.
  for (let bound = Math.min(maxBytes, Math.max(1 << 16, input.length * 8)); ; bound = Math.min(maxBytes, bound * 4)) {
    try {
      return library.decompress(input, { defaultHeapSize: bound });
    } catch (error) {
      // Only ZSTD_error_dstSize_tooSmall (70) is worth a larger bound; anything else is damage.
      if (bound >= maxBytes || !/code -70\b/.test((error as Error).message)) throw error;
    }
  }
}
