/**
 * Preloaded into a broker by partition-memory.ts (`node --expose-gc --import <this> ...`): on
 * SIGUSR2 it runs two full garbage collections, then prints one line on stderr,
 * `MEMORY_PROBE <json>`, with where the process's resident memory is (bytes):
 * - `rss`: process.memoryUsage().rss after the collections;
 * - `heapUsed`, `heapPhysical`: live JavaScript objects, and the V8 heap pages resident
 *   (v8.getHeapStatistics().total_physical_size, which includes free space inside the heap);
 * - `external`, `arrayBuffers`: memory V8 knows of outside its heap (Buffers, the WebAssembly
 *   memory's reservation; the reservation is not resident);
 * - `wasmResident`: resident pages of the readable-writable mappings of 512 MiB or more in
 *   /proc/self/smaps: the core's WebAssembly memory (512 MiB, between guard mappings that are not
 *   accessible), i.e. the pages of it ever touched (scratch, frame ring, index arena);
 * - `rest`: rss − heapPhysical − wasmResident (native allocations, code, libraries, thread stacks).
 * Without --expose-gc the line says `"gc":false` and the figures include garbage.
 */
import { readFileSync } from 'node:fs';
import v8 from 'node:v8';

/** The core's WebAssembly memory (assembly/memory/layout.ts MEMORY_PAGES × 64 KiB). */
const WASM_MEMORY_BYTES = 512 * 1024 * 1024;

/** Resident bytes of the rw mappings of at least WASM_MEMORY_BYTES (Linux; 0 elsewhere). */
function largeMappingsResident(): number {
  let text: string;
  try {
    text = readFileSync('/proc/self/smaps', 'utf8');
  } catch {
    return 0;
  }
  let resident = 0;
  let large = false;
  let readWrite = false;
  for (const line of text.split('\n')) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) readWrite = line.split(' ')[1]!.startsWith('rw');
    else if (line.startsWith('Size:')) large = readWrite && Number(line.split(/\s+/)[1]) * 1024 >= WASM_MEMORY_BYTES;
    else if (line.startsWith('Rss:') && large) resident += Number(line.split(/\s+/)[1]) * 1024;
  }
  return resident;
}

process.on('SIGUSR2', () => {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  const usage = process.memoryUsage();
  const heapPhysical = v8.getHeapStatistics().total_physical_size;
  const wasmResident = largeMappingsResident();
  const probe = {
    gc: gc !== undefined,
    rss: usage.rss,
    heapUsed: usage.heapUsed,
    heapPhysical,
    external: usage.external,
    arrayBuffers: usage.arrayBuffers,
    wasmResident,
    rest: usage.rss - heapPhysical - wasmResident,
  };
  process.stderr.write(`MEMORY_PROBE ${JSON.stringify(probe)}\n`);
});
