/** Types of the untyped pure-JS codecs the browser bundle uses (only the functions called). */
declare module 'lz4js' {
  /** Compresses `src` into one LZ4 frame. */
  export function compress(src: Uint8Array, maxSize?: number): Uint8Array;
  /** Decompresses one LZ4 frame into at most `maxSize` bytes (default: decompressBound). */
  export function decompress(src: Uint8Array, maxSize?: number): Uint8Array;
  /** Upper bound of a frame's decompressed size, from its header or block sizes. */
  export function decompressBound(src: Uint8Array): number;
}

declare module 'snappyjs' {
  /** Compresses into one raw snappy block (same input and output type). */
  export function compress(uncompressed: Uint8Array): Uint8Array;
  /** Decompresses one raw snappy block. */
  export function uncompress(compressed: Uint8Array, maxLength?: number): Uint8Array;
}
