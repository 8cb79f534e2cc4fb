/**
 * CRC-32C (Castagnoli, reflected polynomial 0x82F63B78; RFC 3720 appendix B.4) in plain
 * JavaScript, for the browser bundle, where the WebAssembly core (host/wasm/core.ts, which reads
 * build/tributary.wasm from disk and reserves 512 MiB) is not loaded. Kafka's RecordBatch v2 CRC
 * covers the bytes from `attributes` to the end of the batch.
 *
 * Slicing-by-8 (eight 256-entry tables, 8 KiB): about one table lookup per byte, fast enough for
 * the batches a page produces and fetches.
 */
const TABLES: Uint32Array[] = (() => {
  const tables = Array.from({ length: 8 }, () => new Uint32Array(256));
  const first = tables[0]!;
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    first[n] = c >>> 0;
  }
  for (let t = 1; t < 8; t++) {
    const previous = tables[t - 1]!;
    const table = tables[t]!;
    for (let n = 0; n < 256; n++) table[n] = (previous[n]! >>> 8) ^ first[previous[n]! & 0xff]!;
  }
  return tables;
})();

/**
 * Continues a CRC-32C over `data` (`crc` = 0 to start); returns the unsigned 32-bit value.
 * crc32c(ascii "123456789") = 0xE3069283 (the standard check value).
 */
export function crc32c(data: Uint8Array, crc = 0): number {
  const [t0, t1, t2, t3, t4, t5, t6, t7] = TABLES as [Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array];
  let c = ~crc >>> 0;
  let i = 0;
  const end8 = data.length - (data.length % 8);
  for (; i < end8; i += 8) {
    const lo = (c ^ (data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24))) >>> 0;
    c = t7[lo & 0xff]! ^ t6[(lo >>> 8) & 0xff]! ^ t5[(lo >>> 16) & 0xff]! ^ t4[lo >>> 24]! ^
      t3[data[i + 4]!]! ^ t2[data[i + 5]!]! ^ t1[data[i + 6]!]! ^ t0[data[i + 7]!]!;
  }
  for (; i < data.length; i++) c = t0[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}
