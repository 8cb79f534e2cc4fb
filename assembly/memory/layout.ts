// Static regions of the core's one WebAssembly.Memory, carved once and never grown.
// The host creates the memory with initial = maximum = MEMORY_PAGES (asconfig.json agrees), so
// host Buffer views over any region stay valid for the life of the process. Pages never touched
// cost no resident memory.
//
//   0          1 MiB               19 MiB                       83 MiB                     512 MiB
//   +----------+-------------------+----------------------------+--------------------------+
//   | static   | RESULT            | SCRATCH                    | INDEX ARENA              |
//   | data,    | 64-byte header +  | the batches being          | offset/time index        |
//   | CRC      | 16-byte entry per | validated / stamped        | regions, allocated by    |
//   | tables   | batch             | (one call per blob)        | the host                 |
//   | (512 KiB)|                   |                            |                          |
//   +----------+-------------------+----------------------------+--------------------------+

export const MEMORY_PAGES: i32 = 8192; // 512 MiB
export const MEMORY_BYTES: usize = <usize>MEMORY_PAGES << 16;

/** Everything the compiler places statically (data segments) must end below CRC_TABLES_PTR. */
export const CRC_TABLES_PTR: usize = 512 << 10;
export const CRC_TABLES_BYTES: usize = 20 << 10; // 16 KiB slicing tables + powers of x
/** Start of the regions handed to the host; arguments below it are rejected. */
export const STATIC_LIMIT: usize = 1 << 20;

export const RESULT_PTR: usize = STATIC_LIMIT;
export const RESULT_BYTES: usize = 18 << 20;

export const SCRATCH_PTR: usize = RESULT_PTR + RESULT_BYTES;
export const SCRATCH_BYTES: usize = 64 << 20;

export const ARENA_PTR: usize = SCRATCH_PTR + SCRATCH_BYTES;
export const ARENA_BYTES: usize = MEMORY_BYTES - ARENA_PTR;
