/**
 * The result area the core fills after validateBatches / prepareAppend; mirrors
 * assembly/record/result-layout.ts (diagram there; a test compares the values).
 */
export const ResultLayout = {
  BATCH_COUNT_OFFSET: 0,
  VALID_BYTES_OFFSET: 4,
  ERROR_POSITION_OFFSET: 8,
  HEADER_BYTES: 64,
  ENTRY_POSITION_OFFSET: 0,
  ENTRY_SIZE_OFFSET: 4,
  ENTRY_OFFSET_DELTA_OF_MAX_TIMESTAMP_OFFSET: 8,
  ENTRY_FLAGS_OFFSET: 12,
  ENTRY_BYTES: 16,
} as const;
