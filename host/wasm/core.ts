/**
 * The only importer of build/tributary.wasm: typed wrappers over the AssemblyScript core
 * (assembly/index.ts) for CRC-32C, RecordBatch v2 validation and stamping, and the offset/time
 * index searches.
 *
 * Memory: one WebAssembly.Memory created here with initial = maximum (the module's MEMORY_PAGES,
 * 512 MiB reserved; pages never touched cost no resident memory), never grown, so Buffer views
 * over it stay valid for the life of the process. Regions (assembly/memory/layout.ts): a result
 * area, a 64 MiB batch scratch region (one blob per call is copied there), a 32 MiB ring of
 * in-flight request frames (`frameArena`: Produce frames gathered from the socket, validated and
 * stamped where they lie), and an index arena handed out by allocIndex/freeIndex.
 *
 * Offsets and timestamps cross the boundary as f64 (exact for |x| < 2^53) and are read back from
 * batch headers as two int32 halves, so no BigInt is involved on the hot path.
 */
import { instantiateSync } from '@assemblyscript/loader';
import { readCoreWasm } from '../io/program-files.js';
import { BatchAttributes, BatchLayout } from './batch-layout.js';
import { RingFrameArena, type FrameArena } from './frame-arena.js';
import { ResultLayout } from './result-layout.js';
import { CoreStatus, kafkaErrorCodeForStatus } from './status.js';

export { CoreStatus, coreStatusName, kafkaErrorCodeForStatus } from './status.js';
export { BatchAttributes, BatchLayout } from './batch-layout.js';
export { RingFrameArena, type FrameArena } from './frame-arena.js';

/** Facts about one valid batch, read from its header (after stamping, for prepareAppend). */
export interface BatchSummary {
  /** Byte offset of the batch inside the input blob. */
  position: number;
  /** 12 + batchLength. */
  sizeInBytes: number;
  baseOffset: number;
  partitionLeaderEpoch: number;
  magic: number;
  attributes: number;
  /** 0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd. */
  compression: number;
  /** 0 CreateTime, 1 LogAppendTime. */
  timestampType: number;
  isTransactional: boolean;
  isControl: boolean;
  lastOffsetDelta: number;
  recordCount: number;
  /** ms since epoch. */
  baseTimestamp: number;
  /** ms since epoch, as the header says (prepareAppend has already corrected it, as Kafka does). */
  maxTimestamp: number;
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  /**
   * Offset of the first record carrying the batch's largest timestamp when the records were
   * walked (uncompressed batches); baseOffset for LogAppendTime after prepareAppend; otherwise
   * (compressed) the batch's last offset, Kafka's "shallow" offset of max timestamp.
   */
  offsetOfMaxTimestamp: number;
}

export interface ValidationResult {
  /** CoreStatus.OK (0) or the CoreStatus of the first bad batch. */
  status: number;
  /** Kafka error code: 0 NONE, 2 CORRUPT_MESSAGE, 87 INVALID_RECORD, 10 MESSAGE_TOO_LARGE. */
  errorCode: number;
  /** Length of the leading run of whole valid batches (recovery truncates here). */
  validBytes: number;
  /** The valid leading batches. */
  batches: BatchSummary[];
}

export interface PreparedAppend extends ValidationResult {
  /**
   * The stamped batches when status is OK (empty otherwise): a view into WebAssembly memory.
   * Unless `stable`, valid ONLY until the next call into the core: copy or write it out before
   * that.
   */
  bytes: Buffer;
  /**
   * True when `bytes` are the caller's own records, stamped where they lie (a frame of
   * `frameArena`): later core calls leave them alone; they live as long as the caller's frame.
   */
  stable: boolean;
  firstOffset: number;
  /** firstOffset - 1 when nothing was prepared. */
  lastOffset: number;
  /** Largest maxTimestamp of the batches (logAppendTimeMs for LogAppendTime), -1 when none. */
  maxTimestamp: number;
  /** Offset holding maxTimestamp (the first such; see BatchSummary.offsetOfMaxTimestamp), -1 when none. */
  offsetOfMaxTimestamp: number;
}

/** A region of the index arena; `view` covers exactly capacityBytes and starts zeroed. */
export interface IndexRegion {
  ptr: number;
  capacityBytes: number;
  view: Buffer;
}

export interface ValidateOptions {
  /**
   * Apply the rules for batches a producer is appending (recordCount >= 1, lastOffsetDelta ==
   * recordCount - 1, offset deltas exactly 0..n-1, baseSequence >= 0 when idempotent) instead of
   * the rules for stored batches, which compaction may have thinned. Default false.
   */
  fresh?: boolean;
}

/** Kafka's OffsetIndex entry: relativeOffset int32, position int32. */
export const OFFSET_INDEX_ENTRY_BYTES = 8;
/** Kafka's TimeIndex entry: timestamp int64, relativeOffset int32. */
export const TIME_INDEX_ENTRY_BYTES = 12;

interface CoreExports {
  memoryPages(): number;
  staticEnd(): number;
  resultPtr(): number;
  stagingPtr(): number;
  stagingBytes(): number;
  scratchPtr(): number;
  scratchBytes(): number;
  framesPtr(): number;
  framesBytes(): number;
  arenaPtr(): number;
  arenaBytes(): number;
  crc32cUpdate(crc: number, ptr: number, len: number): number;
  validateBatches(ptr: number, len: number, fresh: number): number;
  prepareAppend(ptr: number, len: number, firstOffset: number, leaderEpoch: number, logAppendTimeMs: number): number;
  offsetIndexAppend(region: number, capacityBytes: number, entryCount: number, relativeOffset: number, position: number): number;
  offsetIndexLookup(region: number, entryCount: number, targetRelativeOffset: number): number;
  timeIndexAppend(region: number, capacityBytes: number, entryCount: number, timestamp: number, relativeOffset: number): number;
  timeIndexLookup(region: number, entryCount: number, targetTimestamp: number): number;
}

const {
  BATCH_COUNT_OFFSET: RESULT_BATCH_COUNT_OFFSET, VALID_BYTES_OFFSET: RESULT_VALID_BYTES_OFFSET,
  HEADER_BYTES: RESULT_HEADER_BYTES, ENTRY_POSITION_OFFSET, ENTRY_SIZE_OFFSET,
  ENTRY_OFFSET_DELTA_OF_MAX_TIMESTAMP_OFFSET, ENTRY_BYTES,
} = ResultLayout;
const {
  BASE_OFFSET: BASE_OFFSET_OFFSET, BATCH_LENGTH: BATCH_LENGTH_OFFSET, LOG_OVERHEAD,
  PARTITION_LEADER_EPOCH: PARTITION_LEADER_EPOCH_OFFSET, MAGIC: MAGIC_OFFSET, ATTRIBUTES: ATTRIBUTES_OFFSET,
  LAST_OFFSET_DELTA: LAST_OFFSET_DELTA_OFFSET, BASE_TIMESTAMP: BASE_TIMESTAMP_OFFSET, MAX_TIMESTAMP: MAX_TIMESTAMP_OFFSET,
  PRODUCER_ID: PRODUCER_ID_OFFSET, PRODUCER_EPOCH: PRODUCER_EPOCH_OFFSET, BASE_SEQUENCE: BASE_SEQUENCE_OFFSET,
  RECORDS_COUNT: RECORDS_COUNT_OFFSET,
} = BatchLayout;

const TWO_POW_32 = 4294967296;
const ARENA_ALIGNMENT = 64;
const EMPTY = Buffer.alloc(0);

function assert(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(`core assertion failed: ${message}`);
}

interface ArenaBlock { start: number; size: number }

export class Core {
  /** Largest blob prepareAppend accepts, and largest single batch validateBatches accepts (bytes). */
  readonly maxBlobBytes: number;
  /** Total bytes of the index arena. */
  readonly arenaCapacityBytes: number;
  /**
   * The ring of in-flight request frames over the FRAMES region: a Produce records blob lying
   * in one of its blocks is validated and stamped in place by prepareAppend (no copy).
   */
  readonly frameArena: FrameArena;

  private readonly exports: CoreExports;
  private readonly memory: WebAssembly.Memory;
  private readonly bytes: Uint8Array;
  private readonly view: DataView;
  private readonly scratch: number;
  private readonly framesStart: number;
  private readonly framesEnd: number;
  private readonly staging: number;
  private readonly stagingBytes: number;
  private readonly result: number;
  private readonly arenaStart: number;
  /** Free arena blocks sorted by start, coalesced. */
  private readonly freeBlocks: ArenaBlock[];
  /** Allocated arena blocks by start (rounded size). */
  private readonly allocated = new Map<number, number>();
  /** Arena bytes at or beyond this address have never been handed out, so they are still zero. */
  private arenaTouchedEnd: number;

  /**
   * Instantiates the module over a new memory of MEMORY_PAGES (512 MiB reserved). Prefer one core
   * per process (getCore()), handed to every broker in it (BrokerServer option `core`): a second
   * memory may fail to reserve (RangeError on a limited address space, e.g. under vitest's
   * workers), and the size is not a parameter because it is compiled into the module
   * (assembly/memory/layout.ts). Sharing is safe: every call is synchronous and leaves nothing in
   * the scratch and result regions once it returns (a PreparedAppend's bytes are written out
   * before the next call, whichever broker makes it); the state that outlives a call lives in
   * two allocators, the frame ring (request frames until their handler is done) and the index
   * arena (allocIndex/freeIndex), which already serve every connection and log of one broker, so
   * a second broker only adds users. What sharing costs is capacity: the ring and the arena are
   * divided among the brokers (the ring falls back to heap frames when full).
   */
  constructor(wasm: Uint8Array<ArrayBuffer>) {
    const module = new WebAssembly.Module(wasm);
    const pages = MEMORY_PAGES;
    this.memory = new WebAssembly.Memory({ initial: pages, maximum: pages });
    const { exports } = instantiateSync<Record<string, unknown>>(module, { env: { memory: this.memory } });
    this.exports = exports as unknown as CoreExports;
    assert(this.exports.memoryPages() === pages, 'memory pages agree');
    this.bytes = new Uint8Array(this.memory.buffer);
    this.view = new DataView(this.memory.buffer);
    this.scratch = this.exports.scratchPtr();
    this.staging = this.exports.stagingPtr();
    this.stagingBytes = this.exports.stagingBytes();
    this.maxBlobBytes = this.exports.scratchBytes();
    this.result = this.exports.resultPtr();
    this.framesStart = this.exports.framesPtr();
    this.framesEnd = this.framesStart + this.exports.framesBytes();
    assert(this.framesStart >= this.scratch + this.maxBlobBytes && this.framesEnd <= this.exports.arenaPtr(), 'frames region between scratch and arena');
    this.frameArena = new RingFrameArena(Buffer.from(this.memory.buffer, this.framesStart, this.framesEnd - this.framesStart));
    this.arenaStart = this.exports.arenaPtr();
    this.arenaCapacityBytes = this.exports.arenaBytes();
    assert(this.arenaStart + this.arenaCapacityBytes <= this.memory.buffer.byteLength, 'arena inside memory');
    assert(this.exports.staticEnd() < this.result, 'static data below the result area');
    this.freeBlocks = [{ start: this.arenaStart, size: this.arenaCapacityBytes }];
    this.arenaTouchedEnd = this.arenaStart;
  }

  /**
   * CRC-32C (Castagnoli) of `data`, unsigned 32-bit (Kafka's RecordBatch v2 checksum). Data
   * outside WebAssembly memory goes through a staging region of its own, so this never disturbs
   * the bytes of a PreparedAppend.
   */
  crc32c(data: Uint8Array): number {
    if (this.isInsideMemory(data)) {
      return this.exports.crc32cUpdate(0, data.byteOffset, data.length) >>> 0;
    }
    let crc = 0;
    for (let offset = 0; offset < data.length; offset += this.stagingBytes) {
      const chunk = data.subarray(offset, Math.min(data.length, offset + this.stagingBytes));
      this.bytes.set(chunk, this.staging);
      crc = this.exports.crc32cUpdate(crc, this.staging, chunk.length);
    }
    return crc >>> 0;
  }

  /**
   * Validates a blob of RecordBatch v2 batches without changing it (recovery, followers): framing,
   * magic 2, CRC-32C, header counts, and for uncompressed batches every record's varints and
   * lengths (see ValidateOptions.fresh for the offset rules). Never throws for bad bytes: the
   * status, Kafka error code, validBytes and the leading valid batches describe the outcome.
   * An empty blob is OK with no batches. Blobs larger than maxBlobBytes are validated in chunks
   * of whole batches; a single batch larger than maxBlobBytes yields MESSAGE_TOO_LARGE.
   */
  validateBatches(data: Uint8Array, options: ValidateOptions = {}): ValidationResult {
    const fresh = options.fresh === true ? 1 : 0;
    if (data.length <= this.maxBlobBytes) {
      this.bytes.set(data, this.scratch);
      const status = this.exports.validateBatches(this.scratch, data.length, fresh);
      const batches: BatchSummary[] = [];
      const validBytes = this.collect(this.scratch, status, 0, batches, false);
      return { status, errorCode: kafkaErrorCodeForStatus(status), validBytes, batches };
    }
    return this.validateInChunks(data, fresh);
  }

  /**
   * Validates the fresh batches of a Produce `records` blob and stamps them in one call:
   * baseOffset sequentially from `firstOffset` (each batch takes lastOffsetDelta + 1 offsets),
   * partitionLeaderEpoch = `leaderEpoch`, and the timestamps as Kafka's LogValidator does:
   * `logAppendTimeMs >= 0` sets the LogAppendTime attribute bit and maxTimestamp; CreateTime
   * (`logAppendTimeMs < 0`) clears the bit and sets maxTimestamp to the largest record timestamp
   * (uncompressed batches; compressed ones keep the producer's). The CRC is recomputed only
   * when attributes or maxTimestamp changed. Bad client bytes give a status, never an exception:
   * EMPTY_RECORDS (INVALID_RECORD) for an empty blob, MESSAGE_TOO_LARGE above maxBlobBytes.
   *
   * Copying: records lying inside `frameArena` (a Produce frame gathered there) are validated
   * and stamped where they lie (the request frame is changed; `stable` is true); any other blob
   * is copied once into the scratch region first. The checks are the same either way.
   * @throws Error for arguments that are host bugs (non-integer or unsafe offsets/epochs).
   */
  prepareAppend(records: Uint8Array, firstOffset: number, leaderEpoch: number, logAppendTimeMs: number): PreparedAppend {
    assert(Number.isSafeInteger(firstOffset) && firstOffset >= 0, `firstOffset ${firstOffset} is a safe non-negative integer`);
    assert(Number.isInteger(leaderEpoch) && leaderEpoch >= -2147483648 && leaderEpoch <= 2147483647, `leaderEpoch ${leaderEpoch} is an int32`);
    assert(Number.isSafeInteger(logAppendTimeMs), `logAppendTimeMs ${logAppendTimeMs} is a safe integer`);
    const failed = (status: number, validBytes: number, batches: BatchSummary[]): PreparedAppend => ({
      status, errorCode: kafkaErrorCodeForStatus(status), validBytes, batches, bytes: EMPTY, stable: false,
      firstOffset, lastOffset: firstOffset - 1, maxTimestamp: -1, offsetOfMaxTimestamp: -1,
    });
    if (records.length > this.maxBlobBytes) return failed(CoreStatus.MESSAGE_TOO_LARGE, 0, []);
    const inPlace = this.isInsideFrames(records);
    const at = inPlace ? records.byteOffset : this.scratch;
    if (!inPlace) this.bytes.set(records, this.scratch);
    const status = this.exports.prepareAppend(at, records.length, firstOffset, leaderEpoch, logAppendTimeMs);
    const batches: BatchSummary[] = [];
    const validBytes = this.collect(at, status, 0, batches, logAppendTimeMs >= 0);
    if (status !== CoreStatus.OK) return failed(status, validBytes, batches);
    let maxTimestamp = -1;
    let offsetOfMaxTimestamp = -1;
    for (const batch of batches) {
      if (batch.maxTimestamp > maxTimestamp) {
        maxTimestamp = batch.maxTimestamp;
        offsetOfMaxTimestamp = batch.offsetOfMaxTimestamp;
      }
    }
    const last = batches[batches.length - 1]!;
    const lastOffset = last.baseOffset + last.lastOffsetDelta;
    assert(Number.isSafeInteger(lastOffset), 'lastOffset stays a safe integer');
    return {
      status, errorCode: 0, validBytes, batches,
      bytes: Buffer.from(this.memory.buffer, at, records.length),
      stable: inPlace,
      firstOffset, lastOffset, maxTimestamp, offsetOfMaxTimestamp,
    };
  }

  /**
   * Reserves `capacityBytes` of the index arena for an offset or time index; the view starts
   * zeroed. Returns null when the arena has no block that large (the caller evicts an idle
   * index or falls back to a JS-side buffer).
   */
  allocIndex(capacityBytes: number): IndexRegion | null {
    assert(Number.isInteger(capacityBytes) && capacityBytes > 0, `index capacity ${capacityBytes} is a positive integer`);
    const size = Math.ceil(capacityBytes / ARENA_ALIGNMENT) * ARENA_ALIGNMENT;
    const slot = this.freeBlocks.findIndex((block) => block.size >= size);
    if (slot < 0) return null;
    const block = this.freeBlocks[slot]!;
    const start = block.start;
    if (block.size === size) this.freeBlocks.splice(slot, 1);
    else { block.start += size; block.size -= size; }
    this.allocated.set(start, size);
    if (start < this.arenaTouchedEnd) this.bytes.fill(0, start, Math.min(start + size, this.arenaTouchedEnd));
    this.arenaTouchedEnd = Math.max(this.arenaTouchedEnd, start + size);
    return { ptr: start, capacityBytes, view: Buffer.from(this.memory.buffer, start, capacityBytes) };
  }

  /** Returns a region to the arena. @throws Error when the region is not currently allocated. */
  freeIndex(region: IndexRegion): void {
    const size = this.allocated.get(region.ptr);
    assert(size !== undefined, `index region at ${region.ptr} is allocated`);
    this.allocated.delete(region.ptr);
    let index = 0;
    while (index < this.freeBlocks.length && this.freeBlocks[index]!.start < region.ptr) index++;
    this.freeBlocks.splice(index, 0, { start: region.ptr, size });
    // Coalesce with the following block, then with the preceding one.
    const current = this.freeBlocks[index]!;
    const next = this.freeBlocks[index + 1];
    if (next && current.start + current.size === next.start) {
      current.size += next.size;
      this.freeBlocks.splice(index + 1, 1);
    }
    const previous = this.freeBlocks[index - 1];
    if (previous && previous.start + previous.size === current.start) {
      previous.size += current.size;
      this.freeBlocks.splice(index, 1);
    }
  }

  /**
   * Appends a Kafka OffsetIndex entry (relativeOffset, position) at slot `entryCount`.
   * Returns the new entry count, or -1 when the region is full (Kafka rolls the segment).
   * @throws Error when relativeOffset is not larger than the last entry's (Kafka's InvalidOffsetException).
   */
  offsetIndexAppend(region: IndexRegion, entryCount: number, relativeOffset: number, position: number): number {
    const result = this.exports.offsetIndexAppend(region.ptr, region.capacityBytes, entryCount, relativeOffset, position);
    if (result === -CoreStatus.INDEX_FULL) return -1;
    assert(result > 0, `offset index append of ${relativeOffset} after ${entryCount} entries (status ${-result})`);
    return result;
  }

  /**
   * Kafka's TimeIndex.maybeAppend: appends (timestamp, relativeOffset) when timestamp is larger
   * than the last entry's, leaves the index unchanged when equal. Returns the entry count, or -1
   * when the region is full. @throws Error when the timestamp or offset goes backwards.
   */
  timeIndexAppend(region: IndexRegion, entryCount: number, timestamp: number, relativeOffset: number): number {
    const result = this.exports.timeIndexAppend(region.ptr, region.capacityBytes, entryCount, timestamp, relativeOffset);
    if (result === -CoreStatus.INDEX_FULL) return -1;
    assert(result > 0, `time index append of ${timestamp} after ${entryCount} entries (status ${-result})`);
    return result;
  }

  /** Largest slot whose relative offset <= target, or -1. Entries: Kafka's 8-byte OffsetIndex layout. */
  offsetIndexLookup(region: IndexRegion, entryCount: number, targetRelativeOffset: number): number {
    assert(entryCount >= 0 && entryCount * OFFSET_INDEX_ENTRY_BYTES <= region.capacityBytes, 'entryCount inside the region');
    const target = Math.max(-2147483648, Math.min(2147483647, Math.floor(targetRelativeOffset)));
    return this.exports.offsetIndexLookup(region.ptr, entryCount, target);
  }

  /** Largest slot whose timestamp <= target, or -1. Entries: Kafka's 12-byte TimeIndex layout. */
  timeIndexLookup(region: IndexRegion, entryCount: number, targetTimestamp: number): number {
    assert(entryCount >= 0 && entryCount * TIME_INDEX_ENTRY_BYTES <= region.capacityBytes, 'entryCount inside the region');
    assert(!Number.isNaN(targetTimestamp), 'targetTimestamp is a number');
    return this.exports.timeIndexLookup(region.ptr, entryCount, Math.floor(targetTimestamp));
  }

  private isInsideMemory(data: Uint8Array): boolean {
    return data.buffer === this.memory.buffer && data.byteOffset >= this.result;
  }

  /** True when `data` lies wholly inside the FRAMES region (where frameArena hands out blocks). */
  private isInsideFrames(data: Uint8Array): boolean {
    return data.buffer === this.memory.buffer
      && data.byteOffset >= this.framesStart
      && data.byteOffset + data.byteLength <= this.framesEnd;
  }

  private readInt64(at: number): number {
    return this.view.getInt32(at) * TWO_POW_32 + this.view.getUint32(at + 4);
  }

  /**
   * Reads the result area after validateBatches/prepareAppend of the blob at `blobPtr` into
   * `batches` (positions shifted by `blobOffset`); returns the valid byte count reported by the core.
   */
  private collect(blobPtr: number, status: number, blobOffset: number, batches: BatchSummary[], logAppendTime: boolean): number {
    if (status === CoreStatus.INVALID_ARGUMENT) throw new Error('core rejected its arguments (host bug)');
    const view = this.view;
    const count = view.getUint32(this.result + RESULT_BATCH_COUNT_OFFSET, true);
    const validBytes = view.getUint32(this.result + RESULT_VALID_BYTES_OFFSET, true);
    let entry = this.result + RESULT_HEADER_BYTES;
    for (let i = 0; i < count; i++, entry += ENTRY_BYTES) {
      const position = view.getUint32(entry + ENTRY_POSITION_OFFSET, true);
      const sizeInBytes = view.getUint32(entry + ENTRY_SIZE_OFFSET, true);
      const offsetDeltaOfMax = view.getInt32(entry + ENTRY_OFFSET_DELTA_OF_MAX_TIMESTAMP_OFFSET, true);
      const at = blobPtr + position;
      const attributes = view.getInt16(at + ATTRIBUTES_OFFSET);
      const baseOffset = this.readInt64(at + BASE_OFFSET_OFFSET);
      const lastOffsetDelta = view.getInt32(at + LAST_OFFSET_DELTA_OFFSET);
      batches.push({
        position: blobOffset + position,
        sizeInBytes,
        baseOffset,
        partitionLeaderEpoch: view.getInt32(at + PARTITION_LEADER_EPOCH_OFFSET),
        magic: view.getInt8(at + MAGIC_OFFSET),
        attributes,
        compression: attributes & BatchAttributes.COMPRESSION_CODEC_MASK,
        timestampType: (attributes & BatchAttributes.TIMESTAMP_TYPE_MASK) !== 0 ? 1 : 0,
        isTransactional: (attributes & BatchAttributes.TRANSACTIONAL_FLAG_MASK) !== 0,
        isControl: (attributes & BatchAttributes.CONTROL_FLAG_MASK) !== 0,
        lastOffsetDelta,
        recordCount: view.getInt32(at + RECORDS_COUNT_OFFSET),
        baseTimestamp: this.readInt64(at + BASE_TIMESTAMP_OFFSET),
        maxTimestamp: this.readInt64(at + MAX_TIMESTAMP_OFFSET),
        producerId: this.readInt64(at + PRODUCER_ID_OFFSET),
        producerEpoch: view.getInt16(at + PRODUCER_EPOCH_OFFSET),
        baseSequence: view.getInt32(at + BASE_SEQUENCE_OFFSET),
        offsetOfMaxTimestamp: baseOffset + (logAppendTime ? 0 : offsetDeltaOfMax >= 0 ? offsetDeltaOfMax : lastOffsetDelta),
      });
    }
    return blobOffset + validBytes;
  }

  /** validateBatches for blobs above maxBlobBytes: whole batches, chunk by chunk. */
  private validateInChunks(data: Uint8Array, fresh: number): ValidationResult {
    const batches: BatchSummary[] = [];
    const lengths = new DataView(data.buffer, data.byteOffset, data.byteLength);
    let chunkStart = 0;
    while (chunkStart < data.length) {
      let chunkEnd = chunkStart;
      let tooLarge = false;
      while (chunkEnd < data.length) {
        const remaining = data.length - chunkEnd;
        if (remaining < LOG_OVERHEAD) { chunkEnd = data.length; break; }
        const size = LOG_OVERHEAD + lengths.getInt32(chunkEnd + BATCH_LENGTH_OFFSET);
        if (size <= LOG_OVERHEAD || size > remaining) {
          // Damaged or cut-off length: hand the core what fits; it reports the exact status.
          chunkEnd = Math.min(data.length, chunkStart + this.maxBlobBytes);
          break;
        }
        if (chunkEnd + size - chunkStart > this.maxBlobBytes) {
          tooLarge = chunkEnd === chunkStart;
          break;
        }
        chunkEnd += size;
      }
      if (tooLarge) {
        const status = CoreStatus.MESSAGE_TOO_LARGE;
        return { status, errorCode: kafkaErrorCodeForStatus(status), validBytes: chunkStart, batches };
      }
      this.bytes.set(data.subarray(chunkStart, chunkEnd), this.scratch);
      const status = this.exports.validateBatches(this.scratch, chunkEnd - chunkStart, fresh);
      const validBytes = this.collect(this.scratch, status, chunkStart, batches, false);
      if (status !== CoreStatus.OK) {
        return { status, errorCode: kafkaErrorCodeForStatus(status), validBytes, batches };
      }
      chunkStart = chunkEnd;
    }
    return { status: CoreStatus.OK, errorCode: 0, validBytes: data.length, batches };
  }
}

/** 64 KiB pages of the core's memory: assembly/memory/layout.ts MEMORY_PAGES and asconfig.json. */
const MEMORY_PAGES = 8192;

let instance: Core | undefined;

/** The process-wide core, instantiated synchronously on first use. */
export function getCore(): Core {
  instance ??= new Core(readCoreWasm());
  return instance;
}
