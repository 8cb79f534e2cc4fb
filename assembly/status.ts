// Status codes returned by the core's exports. Mirrored, with their Kafka error code mapping, in
// host/wasm/status.ts (a test checks the two lists agree). Negative values never collide with the
// non-negative lengths/counts some exports return.
//
// 1..19  framing and corruption: the bytes are damaged        -> Kafka CORRUPT_MESSAGE (2)
// 20..39 well-framed but not a valid batch / record           -> Kafka INVALID_RECORD (87)
// 40..   limits and index misuse

export const OK: i32 = 0;

/** Fewer bytes left than a batch header (61 bytes) needs. */
export const TRUNCATED_HEADER: i32 = 1;
/** batchLength says the batch ends after the blob does. */
export const TRUNCATED_BATCH: i32 = 2;
/** batchLength is smaller than the fixed header after it (49 bytes). */
export const BATCH_TOO_SMALL: i32 = 3;
/** CRC-32C over attributes..end differs from the crc field. */
export const CRC_MISMATCH: i32 = 4;
/** magic is not 0, 1 or 2. */
export const UNKNOWN_MAGIC: i32 = 5;

/** magic 0 or 1 (legacy message set): not accepted by this core. */
export const LEGACY_MAGIC: i32 = 20;
/** compression codec bits hold 5, 6 or 7. */
export const INVALID_COMPRESSION: i32 = 21;
/** recordCount negative, zero in a fresh batch, or inconsistent with lastOffsetDelta. */
export const INVALID_RECORD_COUNT: i32 = 22;
/** A record's offsetDelta is not the next one expected (0..n-1 in a fresh batch). */
export const INVALID_OFFSET_DELTA: i32 = 23;
/** A record's length varint is not positive or runs past the batch. */
export const INVALID_RECORD_LENGTH: i32 = 24;
/** A varint/varlong longer than 5/10 bytes or cut off by its enclosing length. */
export const MALFORMED_VARINT: i32 = 25;
/** A key, value or header length below -1 (or below 0 for header keys) or past the record. */
export const INVALID_FIELD_LENGTH: i32 = 26;
/** A record's fields do not end exactly at its length, or records do not fill the batch. */
export const RECORD_SIZE_MISMATCH: i32 = 27;
/** headerCount negative. */
export const INVALID_HEADER_COUNT: i32 = 28;
/** producerId >= 0 with a negative baseSequence (Kafka: "Invalid sequence number"). */
export const INVALID_SEQUENCE: i32 = 29;
/** No batch at all in a produce blob. */
export const EMPTY_RECORDS: i32 = 30;

/** The blob (or one batch) is larger than the core's scratch region. */
export const MESSAGE_TOO_LARGE: i32 = 40;
/** An index append would not fit in the region. */
export const INDEX_FULL: i32 = 41;
/** An index append whose key is not larger than the last entry's (Kafka's InvalidOffsetException). */
export const INDEX_OUT_OF_ORDER: i32 = 42;
/** Arguments outside what the host contract allows (a host bug, never client input). */
export const INVALID_ARGUMENT: i32 = 43;
