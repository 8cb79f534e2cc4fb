/**
 * Compression codecs of Kafka record batches (attributes bits 0-2), for the places that must look
 * inside a batch: clients, compaction, the JSON API. The broker's append path never decompresses
 * or recompresses (batches are stored as the producer sent them).
 *
 *  1 gzip    RFC 1952 members (node:zlib); multi-member input is accepted.
 *  2 snappy  written as one raw snappy block (as librdkafka does); read as either a raw block or
 *            Xerial snappy-java framing (Java client, kafka-python): the 16-byte header
 *            0x82 "SNAPPY" 0x00, int32 version, int32 compatible version, then
 *            [int32 big-endian length, raw block]*. (Not the official snappy framing format.)
 *  3 lz4     the LZ4 frame format (lz4-napi), as Kafka's KafkaLZ4BlockOutputStream writes it.
 *  4 zstd    one zstd frame (@bokuweb/zstd-wasm).
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

let initialized: Promise<void> | undefined;
let zstdReady = false;

/** Instantiates the zstd WebAssembly codec once; safe to call many times. */
export function initCompression(): Promise<void> {
  initialized ??= zstdInit().then(() => { zstdReady = true; });
  return initialized;
}

await initCompression();

const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);
const XERIAL_HEADER_BYTES = 16;
const ZSTD_MAGIC = 0xfd2fb528;

function asBuffer(data: Uint8Array): Buffer {
  return Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/** Compresses `data` with codec 1-4 (0 returns a copy). `level` applies to gzip and zstd. */
export function compress(codec: number, data: Uint8Array, level?: number): Buffer {
  const input = asBuffer(data);
  switch (codec) {
    case CompressionType.NONE: return Buffer.from(input);
    case CompressionType.GZIP: return gzipSync(input, level === undefined ? {} : { level });
    case CompressionType.SNAPPY: return snappyCompress(input);
    case CompressionType.LZ4: return lz4CompressFrame(input);
    case CompressionType.ZSTD: {
      assertZstdReady();
      const out = zstdCompress(input, level ?? 3);
      return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
    }
    default: throw new Error(`unknown compression codec ${codec}`);
  }
}

/**
 * Decompresses `data` written with codec 0-4. Output larger than `maxBytes` is refused.
 * @throws CompressionError (CORRUPT_MESSAGE) for damaged input, an unknown codec or oversize output.
 */
export function decompress(codec: number, data: Uint8Array, maxBytes = DEFAULT_MAX_DECOMPRESSED_BYTES): Buffer {
  const input = asBuffer(data);
  let out: Buffer;
  try {
    switch (codec) {
      case CompressionType.NONE: out = input; break;
      case CompressionType.GZIP: out = gunzipSync(input, { maxOutputLength: maxBytes }); break;
      case CompressionType.SNAPPY: out = decompressSnappy(input, maxBytes); break;
      case CompressionType.LZ4: out = lz4DecompressFrame(input); break;
      case CompressionType.ZSTD: out = decompressZstd(input, maxBytes); break;
      default: throw new CompressionError(`unknown compression codec ${codec}`);
    }
  } catch (error) {
    if (error instanceof CompressionError) throw error;
    throw new CompressionError(`cannot decompress codec ${codec}: ${(error as Error).message}`, { cause: error });
  }
  if (out.length > maxBytes) throw new CompressionError(`decompressed size ${out.length} exceeds ${maxBytes} bytes`);
  return out;
}

function assertZstdReady(): void {
  if (!zstdReady) throw new Error('zstd is not initialised: await initCompression() first');
}

/** Length of the raw snappy block's output, from its leading unsigned varint. */
function snappyUncompressedLength(block: Buffer): number {
  let value = 0;
  for (let i = 0; i < 5 && i < block.length; i++) {
    const byte = block[i]!;
    value += (byte & 0x7f) * 2 ** (7 * i);
    if ((byte & 0x80) === 0) return value;
  }
  throw new CompressionError('snappy block without a valid length preamble');
}

function snappyBlock(block: Buffer, maxBytes: number): Buffer {
  if (snappyUncompressedLength(block) > maxBytes) throw new CompressionError(`snappy block larger than ${maxBytes} bytes`);
  return snappyUncompress(block, { asBuffer: true }) as Buffer;
}

function decompressSnappy(input: Buffer, maxBytes: number): Buffer {
  if (input.length < XERIAL_HEADER_BYTES || !input.subarray(0, XERIAL_MAGIC.length).equals(XERIAL_MAGIC)) {
    return snappyBlock(input, maxBytes);
  }
  const parts: Buffer[] = [];
  let total = 0;
  let position = XERIAL_HEADER_BYTES;
  while (position < input.length) {
    if (input.length - position < 4) throw new CompressionError('truncated xerial snappy chunk length');
    const length = input.readInt32BE(position);
    position += 4;
    if (length < 0 || length > input.length - position) throw new CompressionError('xerial snappy chunk past the end');
    const part = snappyBlock(input.subarray(position, position + length), maxBytes - total);
    total += part.length;
    parts.push(part);
    position += length;
  }
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts, total);
}

/**
 * Frame_Content_Size of a zstd frame header (RFC 8878 section 3.1.1.1), or -1 when the frame
 * does not declare it. Read here so a hostile header cannot make the codec allocate gigabytes.
 */
function zstdFrameContentSize(input: Buffer): number {
  if (input.length < 5 || input.readUInt32LE(0) !== ZSTD_MAGIC) throw new CompressionError('not a zstd frame');
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
    case 2: return input.readUInt16LE(at) + 256;
    case 4: return input.readUInt32LE(at);
    default: return Number(input.readBigUInt64LE(at));
  }
}

function decompressZstd(input: Buffer, maxBytes: number): Buffer {
  assertZstdReady();
  const declared = zstdFrameContentSize(input);
  if (declared > maxBytes) throw new CompressionError(`zstd frame declares ${declared} bytes, above ${maxBytes}`);
  if (declared >= 0) {
    const out = zstdDecompress(input);
    return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
  }
  // Streaming producers (e.g. the Java client's zstd-jni stream) leave the size out: grow the
  // output bound until it fits or reaches the limit.
  for (let bound = Math.min(maxBytes, Math.max(1 << 16, input.length * 8)); ; bound = Math.min(maxBytes, bound * 4)) {
    try {
      const out = zstdDecompress(input, { defaultHeapSize: bound });
      return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
    } catch (error) {
      // Only ZSTD_error_dstSize_tooSmall (70) is worth a larger bound; anything else is damage.
      if (bound >= maxBytes || !/code -70\b/.test((error as Error).message)) throw error;
    }
  }
}
