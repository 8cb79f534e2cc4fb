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
// X2N[k] = x^(2^k) mod P in the reflected representation (bit 31 = x^0), for shifting a CRC
// over runs of zero bytes in O(log n) (see crc32cShiftZeros).
const X2N: usize = TABLES + <usize>(SLICES * TABLE_BYTES);
const X2N_ENTRIES: usize = 32;
const POLYNOMIAL: u32 = 0x82f63b78;

/** a(x) * b(x) mod P(x) over GF(2), both reflected (bit 31 = x^0). */
function multiplyModP(a: u32, b: u32): u32 {
  let product: u32 = 0;
  for (let bit: u32 = 0x80000000; bit != 0; bit >>>= 1) {
    if ((a & bit) != 0) product ^= b;
    b = (b >>> 1) ^ (POLYNOMIAL & (0 - (b & 1))); // b *= x
  }
  return product;
}

function buildPowers(): void {
  let power: u32 = 0x40000000; // x^1
  for (let k: usize = 0; k < X2N_ENTRIES; k++) {
    store<u32>(X2N + (k << 2), power);
    power = multiplyModP(power, power);
  }
}

assert(<usize>(SLICES * TABLE_BYTES) + X2N_ENTRIES * 4 <= CRC_TABLES_BYTES);
buildTables();
buildPowers();

// Table k lives at TABLES + k * 1024. Each base is written as a constant so it lands in the
// load's offset immediate: one shift and one load per lookup.
const T0: usize = TABLES;
const T1: usize = TABLES + 1 * TABLE_BYTES;
const T2: usize = TABLES + 2 * TABLE_BYTES;
const T3: usize = TABLES + 3 * TABLE_BYTES;
const T4: usize = TABLES + 4 * TABLE_BYTES;
const T5: usize = TABLES + 5 * TABLE_BYTES;
const T6: usize = TABLES + 6 * TABLE_BYTES;
const T7: usize = TABLES + 7 * TABLE_BYTES;
const T8: usize = TABLES + 8 * TABLE_BYTES;
const T9: usize = TABLES + 9 * TABLE_BYTES;
const T10: usize = TABLES + 10 * TABLE_BYTES;
const T11: usize = TABLES + 11 * TABLE_BYTES;
const T12: usize = TABLES + 12 * TABLE_BYTES;
const T13: usize = TABLES + 13 * TABLE_BYTES;
const T14: usize = TABLES + 14 * TABLE_BYTES;
const T15: usize = TABLES + 15 * TABLE_BYTES;

@inline function byteIndex(word: u32, shift: u32): usize {
  return <usize>((word >>> shift) & 0xff) << 2;
}

/**
 * Continues a CRC-32C over [ptr, ptr+len). Start with crc = 0; feeding the result of one call
 * into the next equals one call over the concatenation.
 */
export function crc32cUpdate(crc: u32, ptr: usize, len: usize): u32 {
  crc = ~crc;
  let end = ptr + len;
  while (ptr + 16 <= end) {
    // The 12 lookups for bytes 4..15 do not depend on the running CRC: fold them first, as a
    // balanced tree, so the loop-carried chain is only xor, shift, one load, and three xors.
    let b = load<u32>(ptr, 4);
    let c = load<u32>(ptr, 8);
    let d = load<u32>(ptr, 12);
    let rest =
      ((load<u32>(byteIndex(b, 0), T11) ^ load<u32>(byteIndex(b, 8), T10)) ^
        (load<u32>(byteIndex(b, 16), T9) ^ load<u32>(byteIndex(b, 24), T8))) ^
      ((load<u32>(byteIndex(c, 0), T7) ^ load<u32>(byteIndex(c, 8), T6)) ^
        (load<u32>(byteIndex(c, 16), T5) ^ load<u32>(byteIndex(c, 24), T4))) ^
      ((load<u32>(byteIndex(d, 0), T3) ^ load<u32>(byteIndex(d, 8), T2)) ^
        (load<u32>(byteIndex(d, 16), T1) ^ load<u32>(byteIndex(d, 24), T0)));
    let a = load<u32>(ptr) ^ crc; // little-endian load matches the reflected bit order
    crc = rest ^
      ((load<u32>(byteIndex(a, 0), T15) ^ load<u32>(byteIndex(a, 8), T14)) ^
        (load<u32>(byteIndex(a, 16), T13) ^ load<u32>(byteIndex(a, 24), T12)));
    ptr += 16;
  }
  while (ptr < end) {
    crc = load<u32>(byteIndex(crc ^ <u32>load<u8>(ptr), 0), T0) ^ (crc >>> 8);
    ptr++;
  }
  return ~crc;
}

/**
 * The raw CRC register (no initial value, no final xor) of `register`'s message followed by
 * `zeroBytes` zero bytes: register * x^(8 * zeroBytes) mod P, by square-and-multiply over X2N.
 */
export function crc32cShiftZeros(register: u32, zeroBytes: usize): u32 {
  let power: u32 = 0x80000000; // x^0
  let k: usize = 3; // one byte = x^(2^3)
  while (zeroBytes != 0) {
    if ((zeroBytes & 1) != 0) power = multiplyModP(load<u32>(X2N + ((k & (X2N_ENTRIES - 1)) << 2)), power);
    zeroBytes >>>= 1;
    k++;
  }
  return multiplyModP(power, register);
}

/** Feeds one byte into a raw CRC register (no initial value, no final xor). */
@inline export function crc32cRawByte(register: u32, byte: u32): u32 {
  return load<u32>(byteIndex(register ^ byte, 0), T0) ^ (register >>> 8);
}

/** Feeds bytes into a raw CRC register (no initial value, no final xor). */
export function crc32cRawUpdate(register: u32, ptr: usize, len: usize): u32 {
  let end = ptr + len;
  while (ptr < end) {
    register = load<u32>(byteIndex(register ^ <u32>load<u8>(ptr), 0), T0) ^ (register >>> 8);
    ptr++;
  }
  return register;
}

/** CRC-32C of [ptr, ptr+len). */
export function crc32c(ptr: usize, len: usize): u32 {
  return crc32cUpdate(0, ptr, len);
}
