// CRC-32C (Castagnoli): reflected polynomial 0x82F63B78, initial value and final xor 0xFFFFFFFF,
// as Kafka uses for RecordBatch v2 (java.util.zip.CRC32C; RFC 3720 appendix B.4).
//
// Slicing-by-16 (Intel's "slicing-by-N", Kounavis & Berry 2005): table k maps a byte followed by
// k zero bytes to its CRC contribution, so 16 input bytes fold into the CRC with 16 independent
// table lookups instead of a 16-step dependent chain. WebAssembly has no CRC or carry-less
// multiply instruction, so table lookups are the fastest portable way. 16 KiB of tables stay in L1.

import { CRC_TABLES_BYTES, CRC_TABLES_PTR } from '../memory/layout';

const SLICES: i32 = 16;
const TABLE_BYTES: i32 = 256 * 4;

// tables[k][i] at TABLES + k * 1024 + i * 4, filled once at instantiation (start function). A
// fixed address rather than memory.data keeps 16 KiB of zeros out of the .wasm file.
const TABLES: usize = CRC_TABLES_PTR;

function buildTables(): void {
  for (let i: u32 = 0; i < 256; i++) {
    let crc = i;
    for (let bit = 0; bit < 8; bit++) {
      crc = (crc >>> 1) ^ (0x82f63b78 & (0 - (crc & 1)));
    }
    store<u32>(TABLES + (<usize>i << 2), crc);
  }
  for (let k = 1; k < SLICES; k++) {
    let previous = TABLES + <usize>(k - 1) * TABLE_BYTES;
    let current = previous + TABLE_BYTES;
    for (let i: usize = 0; i < 256; i++) {
      let crc = load<u32>(previous + (i << 2));
      store<u32>(current + (i << 2), (crc >>> 8) ^ load<u32>(TABLES + ((<usize>crc & 0xff) << 2)));
    }
  }
}
assert(<usize>(SLICES * TABLE_BYTES) <= CRC_TABLES_BYTES);
buildTables();

@inline function t(k: usize, byte: u32): u32 {
  return load<u32>(TABLES + k * TABLE_BYTES + ((<usize>byte) << 2));
}

/**
 * Continues a CRC-32C over [ptr, ptr+len). Start with crc = 0; feeding the result of one call
 * into the next equals one call over the concatenation.
 */
export function crc32cUpdate(crc: u32, ptr: usize, len: usize): u32 {
  crc = ~crc;
  let end = ptr + len;
  while (ptr + 16 <= end) {
    let a = load<u32>(ptr) ^ crc; // little-endian load matches the reflected bit order
    let b = load<u32>(ptr, 4);
    let c = load<u32>(ptr, 8);
    let d = load<u32>(ptr, 12);
    crc =
      t(15, a & 0xff) ^ t(14, (a >>> 8) & 0xff) ^ t(13, (a >>> 16) & 0xff) ^ t(12, a >>> 24) ^
      t(11, b & 0xff) ^ t(10, (b >>> 8) & 0xff) ^ t(9, (b >>> 16) & 0xff) ^ t(8, b >>> 24) ^
      t(7, c & 0xff) ^ t(6, (c >>> 8) & 0xff) ^ t(5, (c >>> 16) & 0xff) ^ t(4, c >>> 24) ^
      t(3, d & 0xff) ^ t(2, (d >>> 8) & 0xff) ^ t(1, (d >>> 16) & 0xff) ^ t(0, d >>> 24);
    ptr += 16;
  }
  while (ptr < end) {
    crc = t(0, (crc ^ <u32>load<u8>(ptr)) & 0xff) ^ (crc >>> 8);
    ptr++;
  }
  return ~crc;
}

/** CRC-32C of [ptr, ptr+len). */
export function crc32c(ptr: usize, len: usize): u32 {
  return crc32cUpdate(0, ptr, len);
}
