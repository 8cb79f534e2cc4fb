// Static regions of the core's one WebAssembly.Memory, carved once and never grown.
// The host creates the memory with initial = maximum = MEMORY_PAGES (asconfig.json agrees), so
// host Buffer views over any region stay valid for the life of the process. Pages never touched
// cost no resident memory.
//
//   0          1 MiB          19 MiB     20 MiB           84 MiB           116 MiB          512 MiB
//   +----------+--------------+----------+----------------+----------------+----------------+
//   | static   | RESULT       | STAGING  | SCRATCH        | FRAMES         | INDEX ARENA    |
//   | data,    | 64-byte      | data the | the batches    | a ring of      | offset/time    |
//   | CRC      | header +     | host CRCs| being validated| in-flight      | index regions, |
//   | tables   | 16 B per     | (so a    | / stamped (one | Produce request| allocated by   |
//   | (512 KiB)| batch        | CRC never| call per blob; | frames gathered| the host       |
//   |          |              | clobbers | a Prepared-    | from the socket|                |
//   |          |              | SCRATCH) | Append's bytes)| (host-managed) |                |
//   +----------+--------------+----------+----------------+----------------+----------------+
//
// FRAMES lets a Produce frame that spans socket chunks be gathered (one copy) straight into
// WebAssembly memory, where prepareAppend validates and stamps it in place instead of copying it
// into SCRATCH first.

export const MEMORY_PAGES: i32 = 8192; // 512 MiB
export const MEMORY_BYTES: usize = <usize>MEMORY_PAGES << 16;

/** Everything the compiler places statically (data segments) must end below CRC_TABLES_PTR. */
export const CRC_TABLES_PTR: usize = 512 << 10;
export const CRC_TABLES_BYTES: usize = 20 << 10; // 16 KiB slicing tables + powers of x
/** Start of the regions handed to the host; arguments below it are rejected. */
export const STATIC_LIMIT: usize = 1 << 20;

export const RESULT_PTR: usize = STATIC_LIMIT;
export const RESULT_BYTES: usize = 18 << 20;

export const STAGING_PTR: usize = RESULT_PTR + RESULT_BYTES;
export const STAGING_BYTES: usize = 1 << 20;

export const SCRATCH_PTR: usize = STAGING_PTR + STAGING_BYTES;
export const SCRATCH_BYTES: usize = 64 << 20;

export const FRAMES_PTR: usize = SCRATCH_PTR + SCRATCH_BYTES;
export const FRAMES_BYTES: usize = 32 << 20;

export const ARENA_PTR: usize = FRAMES_PTR + FRAMES_BYTES;
export const ARENA_BYTES: usize = MEMORY_BYTES - ARENA_PTR;
