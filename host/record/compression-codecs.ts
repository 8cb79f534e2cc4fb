/**
 * The codec-independent half of record batch compression, shared by host/record/compression.ts
 * (Node: node:zlib, snappy, lz4-napi, zstd-wasm) and its browser stand-in
 * host/clients/browser/browser-compression.ts (pure-JS codecs): Kafka's codec ids, the error
 * type, the dispatch by codec id with its error mapping and output limit, the Xerial snappy
 * framing and the zstd frame header check. Each side supplies only a {@link CompressionCodecs}
 * table, so this module must stay free of Node built-ins (it reaches the browser bundle; the
 * free `Buffer` there is the `buffer` package).
 *
 * Formats (attributes bits 0-2 of a record batch):
 *  1 gzip    RFC 1952 members
 *  2 snappy  written as one raw snappy block (as librdkafka does); read as either a raw block or
 *            Xerial snappy-java framing (Java client, kafka-python): the 16-byte header
 *            0x82 "SNAPPY" 0x00, int32 version, int32 compatible version, then
 *            [int32 big-endian length, raw block]*. (Not the official snappy framing format.)
 *  3 lz4     the LZ4 frame format, as Kafka's KafkaLZ4BlockOutputStream writes it
 *  4 zstd    one zstd frame (RFC 8878)
 */

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

/**
 * One platform's codec implementations. Decompressors may throw anything for damaged input (the
 * dispatch turns it into CompressionError) and may return more than `maxBytes` (the dispatch
 * refuses it); they should stop early where the codec lets them, so a bomb costs little.
 */
export interface CompressionCodecs {
  gzip: {
    /** `level` 0-9, or undefined for the codec's default. */
    compress(data: Uint8Array, level: number | undefined): Uint8Array;
    decompress(data: Uint8Array, maxBytes: number): Uint8Array;
  };
  snappy: {
    /** One raw snappy block. */
    compress(data: Uint8Array): Uint8Array;
    /** One raw snappy block whose declared length is already checked against the limit. */
    uncompressBlock(block: Uint8Array): Uint8Array;
  };
  lz4: {
    /** One LZ4 frame. */
    compress(data: Uint8Array): Uint8Array;
    decompress(data: Uint8Array, maxBytes: number): Uint8Array;
  };
  zstd: {
    /** One zstd frame; may throw Error where this platform cannot write zstd. */
    compress(data: Uint8Array, level: number | undefined): Uint8Array;
    /**
     * One zstd frame whose header declares `declaredBytes` (at most `maxBytes`), or -1 when the
     * header leaves the size out (streaming producers).
     */
    decompress(data: Uint8Array, maxBytes: number, declaredBytes: number): Uint8Array;
  };
}

/**
 * Compresses `data` with `codec` through `codecs` (0 returns a copy).
 * @throws Error for an unknown codec (a caller bug) or what the codec throws
 */
export function compressWith(codecs: CompressionCodecs, codec: number, data: Uint8Array, level?: number): Buffer {
  switch (codec) {
    case CompressionType.NONE: return Buffer.from(data);
    case CompressionType.GZIP: return asBuffer(codecs.gzip.compress(data, level));
    case CompressionType.SNAPPY: return asBuffer(codecs.snappy.compress(data));
    case CompressionType.LZ4: return asBuffer(codecs.lz4.compress(data));
    case CompressionType.ZSTD: return asBuffer(codecs.zstd.compress(data, level));
    default: throw new Error(`unknown compression codec ${codec}`);
  }
}

/**
 * Decompresses `data` written with codec 0-4 through `codecs`. Output larger than `maxBytes`
 * is refused. Codec 0 returns `data` itself (as a Buffer view, no copy).
 * @throws CompressionError (CORRUPT_MESSAGE) for damaged input, an unknown codec or oversize output
 */
export function decompressWith(codecs: CompressionCodecs, codec: number, data: Uint8Array, maxBytes: number): Buffer {
  let out: Uint8Array;
  try {
    switch (codec) {
      case CompressionType.NONE: out = data; break;
      case CompressionType.GZIP: out = codecs.gzip.decompress(data, maxBytes); break;
      case CompressionType.SNAPPY: out = decompressSnappy(codecs.snappy.uncompressBlock, data, maxBytes); break;
      case CompressionType.LZ4: out = codecs.lz4.decompress(data, maxBytes); break;
      case CompressionType.ZSTD: out = codecs.zstd.decompress(data, maxBytes, zstdDeclaredBytes(data, maxBytes)); break;
      default: throw new CompressionError(`unknown compression codec ${codec}`);
    }
  } catch (error) {
    if (error instanceof CompressionError) throw error;
    throw new CompressionError(`cannot decompress codec ${codec}: ${(error as Error).message}`, { cause: error });
  }
  if (out.length > maxBytes) throw new CompressionError(`decompressed size ${out.length} exceeds ${maxBytes} bytes`);
  return asBuffer(out);
}

/** A Buffer over the same bytes (no copy). */
export function asBuffer(data: Uint8Array): Buffer {
  return Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

const XERIAL_MAGIC = [0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00];
const XERIAL_HEADER_BYTES = 16;
const ZSTD_MAGIC = 0xfd2fb528;

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

function snappyBlock(uncompressBlock: (block: Uint8Array) => Uint8Array, block: Uint8Array, maxBytes: number): Uint8Array {
  if (snappyUncompressedLength(block) > maxBytes) throw new CompressionError(`snappy block larger than ${maxBytes} bytes`);
  return uncompressBlock(block);
}

function isXerial(input: Uint8Array): boolean {
  if (input.length < XERIAL_HEADER_BYTES) return false;
  return XERIAL_MAGIC.every((byte, i) => input[i] === byte);
}

/** A raw snappy block, or Xerial framing around raw blocks (see the file header). */
function decompressSnappy(uncompressBlock: (block: Uint8Array) => Uint8Array, input: Uint8Array, maxBytes: number): Uint8Array {
  if (!isXerial(input)) return snappyBlock(uncompressBlock, input, maxBytes);
  const view = new DataView(input.buffer, input.byteOffset, input.byteLength);
  const parts: Uint8Array[] = [];
  let total = 0;
  let position = XERIAL_HEADER_BYTES;
  while (position < input.length) {
    if (input.length - position < 4) throw new CompressionError('truncated xerial snappy chunk length');
    const length = view.getInt32(position);
    position += 4;
    if (length < 0 || length > input.length - position) throw new CompressionError('xerial snappy chunk past the end');
    const part = snappyBlock(uncompressBlock, input.subarray(position, position + length), maxBytes - total);
    total += part.length;
    parts.push(part);
    position += length;
  }
  if (parts.length === 1) return parts[0]!;
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/**
 * Frame_Content_Size of a zstd frame header (RFC 8878 section 3.1.1.1), or -1 when the frame
 * does not declare it; refused above `maxBytes`. Read here so a hostile header cannot make the
 * codec allocate gigabytes.
 */
function zstdDeclaredBytes(input: Uint8Array, maxBytes: number): number {
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
  let declared: number;
  switch (fieldBytes) {
    case 1: declared = input[at]!; break;
    case 2: declared = view.getUint16(at, true) + 256; break;
    case 4: declared = view.getUint32(at, true); break;
    default: declared = Number(view.getBigUint64(at, true));
  }
  if (declared > maxBytes) throw new CompressionError(`zstd frame declares ${declared} bytes, above ${maxBytes}`);
  return declared;
}
