// The result area the host reads after validateBatches / prepareAppend (host/wasm/core.ts keeps
// the same offsets). One header, then one fixed-size entry per valid batch in blob order. The
// other per-batch facts (baseOffset, attributes, producer fields, ...) the host reads straight
// from the batch header in scratch, so an entry holds only what the core computed.
//
//  header (64 bytes):  0 batchCount u32 | 4 validBytes u32 | 8 errorPosition u32 (start of the
//                      batch that failed) | 12 reserved
//  entry (16 bytes):   0 position u32 | 4 sizeInBytes u32 | 8 offsetDeltaOfMaxTimestamp i32
//                      (-1 when not computed: compressed or empty batch) | 12 flags u32

import { RESULT_PTR, RESULT_BYTES } from '../memory/layout';
import { RECORD_BATCH_OVERHEAD } from './batch-layout';

export const RESULT_BATCH_COUNT_OFFSET: usize = 0;
export const RESULT_VALID_BYTES_OFFSET: usize = 4;
export const RESULT_ERROR_POSITION_OFFSET: usize = 8;
export const RESULT_HEADER_BYTES: usize = 64;

export const ENTRY_POSITION_OFFSET: usize = 0;
export const ENTRY_SIZE_OFFSET: usize = 4;
export const ENTRY_OFFSET_DELTA_OF_MAX_TIMESTAMP_OFFSET: usize = 8;
export const ENTRY_FLAGS_OFFSET: usize = 12;
export const ENTRY_BYTES: usize = 16;

/** Entry flag: the core rewrote attributes/maxTimestamp and recomputed the CRC. */
export const FLAG_REWRITTEN: u32 = 1;
/** Entry flag: records were walked (uncompressed), so offsetDeltaOfMaxTimestamp is exact. */
export const FLAG_RECORDS_WALKED: u32 = 2;

export const RESULT_ENTRIES_PTR: usize = RESULT_PTR + RESULT_HEADER_BYTES;
export const MAX_RESULT_ENTRIES: usize = (RESULT_BYTES - RESULT_HEADER_BYTES) / ENTRY_BYTES;

// Every batch is at least RECORD_BATCH_OVERHEAD bytes, so a full scratch region never holds more
// batches than there are entries (checked in index.ts against SCRATCH_BYTES).
export const MIN_BATCH_BYTES: usize = RECORD_BATCH_OVERHEAD;
