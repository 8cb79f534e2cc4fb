/**
 * Stands in for host/record/compression.ts in the browser bundle (host/clients/browser/
 * build-bundle.mjs swaps the module at bundle time): the same exports and formats, on pure-JS
 * codecs instead of node:zlib and native addons. Codec ids, errors, dispatch, Xerial framing and
 * the zstd header check are shared with it (host/record/compression-codecs.ts).
 *
 *  codec     compress                       decompress
 *  1 gzip    fflate (RFC 1952)              fflate
 *  2 snappy  snappyjs, one raw block        snappyjs; raw block or Xerial snappy-java framing
 *  3 lz4     lz4js, LZ4 frame               lz4js, LZ4 frame
 *  4 zstd    not supported (throws)         fzstd (RFC 8878)
 *
 * So a page can produce with none, gzip, snappy or lz4, and read what kcat, librdkafka, the Java
 * client or our Node client wrote with any of the four codecs.
 *
 * Errors: compress throws for an unknown codec and for zstd (not in this bundle). decompress
 * throws CompressionError (Kafka CORRUPT_MESSAGE, 2) for damaged input or output above the limit.
 */
import { gunzipSync, gzipSync } from 'fflate';
import { decompress as zstdDecompress } from 'fzstd';
import { compress as lz4Compress, decompress as lz4Decompress, decompressBound as lz4DecompressBound } from 'lz4js';
import { compress as snappyCompress, uncompress as snappyUncompress } from 'snappyjs';
import {
  compressWith,
  CompressionError,
  decompressWith,
  DEFAULT_MAX_DECOMPRESSED_BYTES,
  type CompressionCodecs,
} from '../../record/compression-codecs.js';

export {
  CompressionError,
  CompressionType,
  DEFAULT_MAX_DECOMPRESSED_BYTES,
  type CompressionCodec,
} from '../../record/compression-codecs.js';

/** Nothing to initialise here (all codecs are plain JS); kept for the same surface as compression.ts. */
export function initCompression(): Promise<void> {
  return Promise.resolve();
}

const BROWSER_CODECS: CompressionCodecs = {
  gzip: {
    compress: (data, level) => gzipSync(data, level === undefined ? {} : { level: level as 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 }),
    decompress: (data) => gunzipSync(data),
  },
  snappy: {
    compress: (data) => snappyCompress(plainBytes(data)),
    uncompressBlock: (block) => snappyUncompress(plainBytes(block)),
  },
  lz4: {
    compress: (data) => lz4Compress(data),
    decompress: decompressLz4,
  },
  zstd: {
    compress: () => {
      throw new Error('zstd compression is not supported in the browser bundle: use gzip, snappy or lz4 (zstd batches can still be read)');
    },
    decompress: (data) => zstdDecompress(data),
  },
};

/**
 * Compresses `data` with codec 1-3 (0 returns a copy). `level` applies to gzip.
 * @throws Error for zstd (not in the browser bundle) and unknown codecs
 */
export function compress(codec: number, data: Uint8Array, level?: number): Buffer {
  return compressWith(BROWSER_CODECS, codec, data, level);
}

/**
 * Decompresses `data` written with codec 0-4. Output larger than `maxBytes` is refused.
 * @throws CompressionError (CORRUPT_MESSAGE) for damaged input, an unknown codec or oversize output.
 */
export function decompress(codec: number, data: Uint8Array, maxBytes = DEFAULT_MAX_DECOMPRESSED_BYTES): Buffer {
  return decompressWith(BROWSER_CODECS, codec, data, maxBytes);
}

/**
 * A plain Uint8Array view: snappyjs treats a Node Buffer (or the browser's Buffer polyfill) as
 * its own input mode, which its browser path does not handle.
 */
function plainBytes(data: Uint8Array): Uint8Array {
  return data.constructor === Uint8Array ? data : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

/** lz4js sizes its output from the frame; refuse frames that declare more than the limit first. */
function decompressLz4(input: Uint8Array, maxBytes: number): Uint8Array {
  const bound = lz4DecompressBound(input);
  if (!Number.isSafeInteger(bound) || bound < 0) throw new CompressionError('lz4 frame with an invalid size');
  if (bound > maxBytes) throw new CompressionError(`lz4 frame of up to ${bound} bytes, above ${maxBytes}`);
  return lz4Decompress(input, bound);
}
