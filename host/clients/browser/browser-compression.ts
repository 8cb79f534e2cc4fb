/**
 * Stands in for host/record/compression.ts in the browser bundle (scripts/build-browser.mjs swaps
 * the module at bundle time): the same exports and formats, on pure-JS codecs instead of
 * node:zlib and native addons.
 *
 *  codec     compress                       decompress
 *  1 gzip    fflate (RFC 1952)              fflate
 *  2 snappy  snappyjs, one raw block        snappyjs; raw block or Xerial snappy-java framing
 *  3 lz4     lz4js, LZ4 frame               lz4js, LZ4 frame
 *  4 zstd    not supported (throws)         fzstd (RFC 8878)
 *
 * So a page can produce with none, gzip, snappy or lz4, and read what kcat, librdkafka, the Java
 * client or our Node client wrote with any of the four codecs. Xerial framing: the 16-byte header
 * 0x82 "SNAPPY" 0x00, int32 version, int32 compatible version, then [int32 big-endian length,
 * raw block]* (snappy-java's stream format, used by the Java client and kafka-python).
 *
 * Errors: compress throws for an unknown codec and for zstd (not in this bundle). decompress
 * throws CompressionError (Kafka CORRUPT_MESSAGE, 2) for damaged input or output above the limit.
 */
import { gunzipSync, gzipSync } from 'fflate';
import { decompress as zstdDecompress } from 'fzstd';
import { compress as lz4Compress, decompress as lz4Decompress, decompressBound as lz4DecompressBound } from 'lz4js';
import { compress as snappyCompress, uncompress as snappyUncompress } from 'snappyjs';

/** Kafka's CompressionType ids. */
export const CompressionType = { NONE: 0, GZIP: 1, SNAPPY: 2, LZ4: 3, ZSTD: 4 } as const;
export type CompressionCodec = (typeof CompressionType)[keyof typeof CompressionType];

/** Default bound on one batch's decompressed records section, bytes (guards against bombs). */
export const DEFAULT_MAX_DECOMPRESSED_BYTES = 256 * 1024 * 1024;

const CORRUPT_MESSAGE = 2;

/** Damaged compressed data; `errorCode` is Kafka's CORRUPT_MESSAGE (2). */
export class CompressionError extends Error {
  readonly errorCode = CORRUPT_MESSAGE;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CompressionError';
  }
}

/** Nothing to initialise here (all codecs are plain JS); kept for the same surface as compression.ts. */
export function initCompression(): Promise<void> {
  return Promise.resolve();
}

const XERIAL_MAGIC = [0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00];
const XERIAL_HEADER_BYTES = 16;
const ZSTD_MAGIC = 0xfd2fb528;

function asBuffer(data: Uint8Array): Buffer {
  return Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/**
 * Compresses `data` with codec 1-3 (0 returns a copy). `level` applies to gzip.
 * @throws Error for zstd (not in the browser bundle) and unknown codecs
 */
export function compress(codec: number, data: Uint8Array, level?: number): Buffer {
  switch (codec) {
    case CompressionType.NONE: return Buffer.from(data);
    case CompressionType.GZIP:
      return asBuffer(gzipSync(data, level === undefined ? {} : { level: level as 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 }));
    case CompressionType.SNAPPY: return asBuffer(snappyCompress(plainBytes(data)));
    case CompressionType.LZ4: return asBuffer(lz4Compress(data));
    case CompressionType.ZSTD:
      throw new Error('zstd compression is not supported in the browser bundle: use gzip, snappy or lz4 (zstd batches can still be read)');
    default: throw new Error(`unknown compression codec ${codec}`);
  }
}

/**
 * Decompresses `data` written with codec 0-4. Output larger than `maxBytes` is refused.
 * @throws CompressionError (CORRUPT_MESSAGE) for damaged input, an unknown codec or oversize output.
 */
export function decompress(codec: number, data: Uint8Array, maxBytes = DEFAULT_MAX_DECOMPRESSED_BYTES): Buffer {
  let out: Uint8Array;
  try {
    switch (codec) {
      case CompressionType.NONE: out = data; break;
      case CompressionType.GZIP: out = gunzipSync(data); break;
      case CompressionType.SNAPPY: out = decompressSnappy(data, maxBytes); break;
      case CompressionType.LZ4: out = decompressLz4(data, maxBytes); break;
      case CompressionType.ZSTD: out = decompressZstd(data, maxBytes); break;
      default: throw new CompressionError(`unknown compression codec ${codec}`);
    }
  } catch (error) {
    if (error instanceof CompressionError) throw error;
    throw new CompressionError(`cannot decompress codec ${codec}: ${(error as Error).message}`, { cause: error });
  }
  if (out.length > maxBytes) throw new CompressionError(`decompressed size ${out.length} exceeds ${maxBytes} bytes`);
  return asBuffer(out);
}

/**
 * A plain Uint8Array view: snappyjs treats a Node Buffer (or the browser's Buffer polyfill) as
 * its own input mode, which its browser path does not handle.
 */
function plainBytes(data: Uint8Array): Uint8Array {
  return data.constructor === Uint8Array ? data : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

/** Length of a raw snappy block's output, from its leading unsigned varint. */
function snappyUncompressedLength(block: Uint8Array): number {
  let value = 0;
  for (let i = 0; i < 5 && i < block.length; i++) {
    const byte = block[i]!;
    value += (byte & 0x7f) * 2 ** (7 * i);
    if ((byte & 0x80) === 0) return value;
  }
  throw new CompressionError('snappy block without a valid length preamble');
}

function snappyBlock(block: Uint8Array, maxBytes: number): Uint8Array {
  if (snappyUncompressedLength(block) > maxBytes) throw new CompressionError(`snappy block larger than ${maxBytes} bytes`);
  return snappyUncompress(plainBytes(block));
}

function isXerial(input: Uint8Array): boolean {
  if (input.length < XERIAL_HEADER_BYTES) return false;
  return XERIAL_MAGIC.every((byte, i) => input[i] === byte);
}

function decompressSnappy(input: Uint8Array, maxBytes: number): Uint8Array {
  if (!isXerial(input)) return snappyBlock(input, maxBytes);
  const view = new DataView(input.buffer, input.byteOffset, input.byteLength);
  const parts: Uint8Array[] = [];
  let total = 0;
  let position = XERIAL_HEADER_BYTES;
  while (position < input.length) {
    if (input.length - position < 4) throw new CompressionError('truncated xerial snappy chunk length');
    const length = view.getInt32(position);
    position += 4;
    if (length < 0 || length > input.length - position) throw new CompressionError('xerial snappy chunk past the end');
    const part = snappyBlock(input.subarray(position, position + length), maxBytes - total);
    total += part.length;
    parts.push(part);
    position += length;
  }
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** lz4js sizes its output from the frame; refuse frames that declare more than the limit first. */
function decompressLz4(input: Uint8Array, maxBytes: number): Uint8Array {
  const bound = lz4DecompressBound(input);
  if (!Number.isSafeInteger(bound) || bound < 0) throw new CompressionError('lz4 frame with an invalid size');
  if (bound > maxBytes) throw new CompressionError(`lz4 frame of up to ${bound} bytes, above ${maxBytes}`);
  return lz4Decompress(input, bound);
}

/**
 * Frame_Content_Size of a zstd frame header (RFC 8878 section 3.1.1.1), or -1 when the frame
 * does not declare it. Read here so a hostile header cannot make the codec allocate gigabytes.
 */
function zstdFrameContentSize(input: Uint8Array): number {
  const view = new DataView(input.buffer, input.byteOffset, input.byteLength);
  if (input.length < 5 || view.getUint32(0, true) !== ZSTD_MAGIC) throw new CompressionError('not a zstd frame');
  const descriptor = input[4]!;
  const sizeFlag = descriptor >> 6;
  const singleSegment = (descriptor >> 5) & 1;
  const dictionaryIdBytes = [0, 1, 2, 4][descriptor & 3]!;
  const fieldBytes = [singleSegment ? 1 : 0, 2, 4, 8][sizeFlag]!;
  const at = 5 + (singleSegment ? 0 : 1) + dictionaryIdBytes;
  if (fieldBytes === 0) return -1;
  if (input.length < at + fieldBytes) throw new CompressionError('truncated zstd frame header');
  switch (fieldBytes) {
    case 1: return input[at]!;
    case 2: return view.getUint16(at, true) + 256;
    case 4: return view.getUint32(at, true);
    default: return Number(view.getBigUint64(at, true));
  }
}

function decompressZstd(input: Uint8Array, maxBytes: number): Uint8Array {
  const declared = zstdFrameContentSize(input);
  if (declared > maxBytes) throw new CompressionError(`zstd frame declares ${declared} bytes, above ${maxBytes}`);
  return zstdDecompress(input);
}
