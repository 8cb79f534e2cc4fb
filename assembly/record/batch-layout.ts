// RecordBatch v2 header layout (Kafka's DefaultRecordBatch, KIP-98), all fields big-endian.
//
//  0        8        12                  16    17     21          23               27
//  +--------+--------+-------------------+-----+------+-----------+----------------+
//  |baseOff |batchLen|partitionLeaderEpo |magic| crc  |attributes |lastOffsetDelta |
//  | int64  | int32  |      int32        |int8 |uint32|   int16   |     int32      |
//  +--------+--------+-------------------+-----+------+-----------+----------------+
//  27             35             43           51            53            57          61
//  +--------------+--------------+------------+-------------+-------------+-----------+------
//  |baseTimestamp |maxTimestamp  |producerId  |producerEpoch|baseSequence |recordCount| records
//  |    int64     |    int64     |   int64    |    int16    |    int32    |   int32   | ...
//  +--------------+--------------+------------+-------------+-------------+-----------+------
//
//  batchLength counts the bytes after itself (total size = LOG_OVERHEAD + batchLength).
//  crc covers ATTRIBUTES..end of batch; baseOffset and partitionLeaderEpoch are outside it so the
//  leader can stamp them without recomputing it.
//
// Record (zig-zag varints): length varint | attributes int8 | timestampDelta varlong |
// offsetDelta varint | keyLength varint (-1 = null) | key | valueLength varint (-1 = null) | value |
// headerCount varint | headers: keyLength varint (>= 0) | key | valueLength varint (-1 = null) | value

export const BASE_OFFSET_OFFSET: usize = 0;
export const BASE_OFFSET_LENGTH: usize = 8;
export const BATCH_LENGTH_OFFSET: usize = BASE_OFFSET_OFFSET + BASE_OFFSET_LENGTH; // 8
export const BATCH_LENGTH_LENGTH: usize = 4;
export const LOG_OVERHEAD: usize = BATCH_LENGTH_OFFSET + BATCH_LENGTH_LENGTH; // 12
export const PARTITION_LEADER_EPOCH_OFFSET: usize = LOG_OVERHEAD; // 12
export const PARTITION_LEADER_EPOCH_LENGTH: usize = 4;
export const MAGIC_OFFSET: usize = PARTITION_LEADER_EPOCH_OFFSET + PARTITION_LEADER_EPOCH_LENGTH; // 16
export const MAGIC_LENGTH: usize = 1;
export const CRC_OFFSET: usize = MAGIC_OFFSET + MAGIC_LENGTH; // 17
export const CRC_LENGTH: usize = 4;
export const ATTRIBUTES_OFFSET: usize = CRC_OFFSET + CRC_LENGTH; // 21
export const ATTRIBUTES_LENGTH: usize = 2;
export const LAST_OFFSET_DELTA_OFFSET: usize = ATTRIBUTES_OFFSET + ATTRIBUTES_LENGTH; // 23
export const LAST_OFFSET_DELTA_LENGTH: usize = 4;
export const BASE_TIMESTAMP_OFFSET: usize = LAST_OFFSET_DELTA_OFFSET + LAST_OFFSET_DELTA_LENGTH; // 27
export const BASE_TIMESTAMP_LENGTH: usize = 8;
export const MAX_TIMESTAMP_OFFSET: usize = BASE_TIMESTAMP_OFFSET + BASE_TIMESTAMP_LENGTH; // 35
export const MAX_TIMESTAMP_LENGTH: usize = 8;
export const PRODUCER_ID_OFFSET: usize = MAX_TIMESTAMP_OFFSET + MAX_TIMESTAMP_LENGTH; // 43
export const PRODUCER_ID_LENGTH: usize = 8;
export const PRODUCER_EPOCH_OFFSET: usize = PRODUCER_ID_OFFSET + PRODUCER_ID_LENGTH; // 51
export const PRODUCER_EPOCH_LENGTH: usize = 2;
export const BASE_SEQUENCE_OFFSET: usize = PRODUCER_EPOCH_OFFSET + PRODUCER_EPOCH_LENGTH; // 53
export const BASE_SEQUENCE_LENGTH: usize = 4;
export const RECORDS_COUNT_OFFSET: usize = BASE_SEQUENCE_OFFSET + BASE_SEQUENCE_LENGTH; // 57
export const RECORDS_COUNT_LENGTH: usize = 4;
export const RECORDS_OFFSET: usize = RECORDS_COUNT_OFFSET + RECORDS_COUNT_LENGTH; // 61
export const RECORD_BATCH_OVERHEAD: usize = RECORDS_OFFSET; // 61

/** The smallest legal batchLength: the header after the batchLength field, no records. */
export const MIN_BATCH_LENGTH: i32 = <i32>(RECORD_BATCH_OVERHEAD - LOG_OVERHEAD); // 49

export const MAGIC_V2: i32 = 2;

export const COMPRESSION_CODEC_MASK: i32 = 0x07;
export const TIMESTAMP_TYPE_MASK: i32 = 0x08;
export const TRANSACTIONAL_FLAG_MASK: i32 = 0x10;
export const CONTROL_FLAG_MASK: i32 = 0x20;
export const DELETE_HORIZON_FLAG_MASK: i32 = 0x40;
export const MAX_COMPRESSION_CODEC: i32 = 4; // zstd

/** Smallest possible record: 1-byte varints for length, tsDelta, offsetDelta, key/value lengths,
 *  header count, plus the attributes byte. Bounds the record count a batch can hold. */
export const MIN_RECORD_SIZE: i32 = 7;
