/**
 * The WebAssembly core's hot kernels against JavaScript baselines in the same run:
 * - CRC-32C: WASM slicing-by-16 vs pure-JS slicing-by-8 (goal >= 2x);
 * - validate + stamp of 1 MiB of record batches (GB/s), against the JS CRC alone, the minimum
 *   a JS validator would have to do;
 * - offset/time index lookup vs a JS binary search over the same entries.
 */
import { getCore } from '../host/wasm/core.js';
import { buildRecordBatch } from '../host/record/batch-builder.js';
import { runBenchTable } from './run.js';

/**
 * Pure-JS CRC-32C, slicing-by-8 over Int32Array tables (int32 throughout, no heap numbers).
 * `crcDependentLast` folds the four lookups that depend on the running CRC after the four that do
 * not (the same scheduling trick the WASM loop uses), which shortens the loop-carried chain; the
 * conventional order is kept as a second variant for reference.
 */
function makeJsCrc32c(crcDependentLast: boolean): (data: Uint8Array) => number {
  const tables = new Int32Array(8 * 256);
  for (let i = 0; i < 256; i++) {
    let crc = i;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1;
    tables[i] = crc;
  }
  for (let k = 1; k < 8; k++) {
    for (let i = 0; i < 256; i++) {
      const previous = tables[(k - 1) * 256 + i]!;
      tables[k * 256 + i] = (previous >>> 8) ^ tables[previous & 0xff]!;
    }
  }
  if (crcDependentLast) {
    return (data: Uint8Array): number => {
      let crc = -1;
      let i = 0;
      const n = data.length;
      const t = tables;
      while (i + 8 <= n) {
        const b = data[i + 4]! | (data[i + 5]! << 8) | (data[i + 6]! << 16) | (data[i + 7]! << 24);
        const rest = (t[768 + (b & 0xff)]! ^ t[512 + ((b >>> 8) & 0xff)]!) ^ (t[256 + ((b >>> 16) & 0xff)]! ^ t[b >>> 24]!);
        const a = (data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24)) ^ crc;
        crc = rest ^ ((t[1792 + (a & 0xff)]! ^ t[1536 + ((a >>> 8) & 0xff)]!) ^ (t[1280 + ((a >>> 16) & 0xff)]! ^ t[1024 + (a >>> 24)]!));
        i += 8;
      }
      while (i < n) crc = t[(crc ^ data[i++]!) & 0xff]! ^ (crc >>> 8);
      return (crc ^ -1) >>> 0;
    };
  }
  return (data: Uint8Array): number => {
    let crc = -1;
    let i = 0;
    const n = data.length;
    const t = tables;
    while (i + 8 <= n) {
      const a = (data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24)) ^ crc;
      const b = data[i + 4]! | (data[i + 5]! << 8) | (data[i + 6]! << 16) | (data[i + 7]! << 24);
      crc = t[1792 + (a & 0xff)]! ^ t[1536 + ((a >>> 8) & 0xff)]! ^ t[1280 + ((a >>> 16) & 0xff)]! ^ t[1024 + (a >>> 24)]! ^
        t[768 + (b & 0xff)]! ^ t[512 + ((b >>> 8) & 0xff)]! ^ t[256 + ((b >>> 16) & 0xff)]! ^ t[b >>> 24]!;
      i += 8;
    }
    while (i < n) crc = t[(crc ^ data[i++]!) & 0xff]! ^ (crc >>> 8);
    return (crc ^ -1) >>> 0;
  };
}

function batchesOfAbout(totalBytes: number, recordsPerBatch: number, valueBytes: number): Buffer {
  const batches: Buffer[] = [];
  let size = 0;
  const value = Buffer.alloc(valueBytes, 'v');
  while (size < totalBytes) {
    const batch = buildRecordBatch({
      records: Array.from({ length: recordsPerBatch }, (_, i) => ({ key: `key-${i}`, value, timestamp: 1_700_000_000_000 + i })),
    });
    batches.push(batch);
    size += batch.length;
  }
  return Buffer.concat(batches);
}

export async function main(): Promise<void> {
  const core = getCore();
  const jsCrc32c = makeJsCrc32c(true);
  const jsCrc32cConventional = makeJsCrc32c(false);

  // ---- CRC-32C ----
  for (const size of [1 << 20, 4096]) {
    const data = Buffer.alloc(size);
    for (let i = 0; i < size; i++) data[i] = (i * 2654435761) >>> 24;
    if (jsCrc32c(data) !== core.crc32c(data) || jsCrc32cConventional(data) !== core.crc32c(data)) throw new Error('JS and WASM CRC-32C disagree');
    // The same bytes already inside WebAssembly memory (as in prepareAppend, after the one copy).
    const region = core.allocIndex(size)!;
    data.copy(region.view);
    await runBenchTable(`CRC-32C over ${size} bytes`, [
      { name: 'JS slicing-by-8 (CRC-dependent lookups last)', fn: () => jsCrc32c(data), bytesPerCall: size },
      { name: 'JS slicing-by-8 (conventional order)', fn: () => jsCrc32cConventional(data), bytesPerCall: size },
      { name: 'WASM slicing-by-16 (data in wasm memory)', fn: () => core.crc32c(region.view), bytesPerCall: size },
      { name: 'WASM incl. copy into wasm memory', fn: () => core.crc32c(data), bytesPerCall: size },
    ]);
    core.freeIndex(region);
  }

  // ---- validate + stamp ----
  for (const [label, recordsPerBatch, valueBytes] of [['16 batches x 640 records of 100 B', 640, 100], ['1 batch of 1 MiB, 10 records', 10, 100_000]] as const) {
    const blob = batchesOfAbout(1 << 20, recordsPerBatch, valueBytes);
    let nextOffset = 0;
    await runBenchTable(`validate + stamp ${blob.length} bytes (${label})`, [
      { name: 'JS CRC-32C alone (baseline)', fn: () => jsCrc32c(blob), bytesPerCall: blob.length },
      { name: 'validateBatches (copy + CRC + record walk)', fn: () => core.validateBatches(blob), bytesPerCall: blob.length },
      { name: 'prepareAppend CreateTime (copy + validate + stamp)', fn: () => { nextOffset = core.prepareAppend(blob, nextOffset, 1, -1).lastOffset + 1; }, bytesPerCall: blob.length },
      { name: 'prepareAppend LogAppendTime (+ CRC recompute)', fn: () => { nextOffset = core.prepareAppend(blob, nextOffset, 1, 1_800_000_000_000).lastOffset + 1; }, bytesPerCall: blob.length },
    ]);
  }

  // ---- index lookup ----
  const entries = (10 * 1024 * 1024) / 8; // a full default segment.index.bytes offset index
  const offsetRegion = core.allocIndex(entries * 8)!;
  let count = 0;
  for (let i = 0; i < entries; i++) count = core.offsetIndexAppend(offsetRegion, count, i * 3, i * 4096);
  const timeEntries = Math.floor((10 * 1024 * 1024) / 12);
  const timeRegion = core.allocIndex(timeEntries * 12)!;
  let timeCount = 0;
  for (let i = 0; i < timeEntries; i++) timeCount = core.timeIndexAppend(timeRegion, timeCount, 1_700_000_000_000 + i * 7, i);
  const lookups = 1000;
  const targets = Int32Array.from({ length: lookups }, (_, i) => ((i * 2654435761) >>> 0) % (entries * 3));
  const timeTargets = Float64Array.from({ length: lookups }, (_, i) => 1_700_000_000_000 + (((i * 2654435761) >>> 0) % (timeEntries * 7)));
  const offsetView = offsetRegion.view;
  const timeView = timeRegion.view;
  const jsOffsetLookup = (target: number): number => {
    let low = 0; let high = count - 1; let found = -1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      if (offsetView.readInt32BE(middle * 8) <= target) { found = middle; low = middle + 1; } else high = middle - 1;
    }
    return found;
  };
  const jsTimeLookup = (target: number): number => {
    let low = 0; let high = timeCount - 1; let found = -1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const timestamp = offsetViewInt64(timeView, middle * 12);
      if (timestamp <= target) { found = middle; low = middle + 1; } else high = middle - 1;
    }
    return found;
  };
  for (let i = 0; i < lookups; i++) {
    if (jsOffsetLookup(targets[i]!) !== core.offsetIndexLookup(offsetRegion, count, targets[i]!)) throw new Error('offset lookups disagree');
    if (jsTimeLookup(timeTargets[i]!) !== core.timeIndexLookup(timeRegion, timeCount, timeTargets[i]!)) throw new Error('time lookups disagree');
  }
  let sink = 0;
  await runBenchTable(`offset index lookup, ${count} entries (${lookups} lookups per call)`, [
    { name: 'JS binary search over the Buffer', fn: () => { for (let i = 0; i < lookups; i++) sink += jsOffsetLookup(targets[i]!); }, operationsPerCall: lookups },
    { name: 'WASM offsetIndexLookup', fn: () => { for (let i = 0; i < lookups; i++) sink += core.offsetIndexLookup(offsetRegion, count, targets[i]!); }, operationsPerCall: lookups },
  ]);
  await runBenchTable(`time index lookup, ${timeCount} entries (${lookups} lookups per call)`, [
    { name: 'JS binary search over the Buffer', fn: () => { for (let i = 0; i < lookups; i++) sink += jsTimeLookup(timeTargets[i]!); }, operationsPerCall: lookups },
    { name: 'WASM timeIndexLookup', fn: () => { for (let i = 0; i < lookups; i++) sink += core.timeIndexLookup(timeRegion, timeCount, timeTargets[i]!); }, operationsPerCall: lookups },
  ]);
  if (sink === 42) console.log('');
  core.freeIndex(offsetRegion);
  core.freeIndex(timeRegion);
}

function offsetViewInt64(view: Buffer, at: number): number {
  return view.readInt32BE(at) * 4294967296 + view.readUInt32BE(at + 4);
}
