// Zig-zag varint (int32, at most 5 bytes) and varlong (int64, at most 10 bytes) decoding with
// bounds checks, as used inside Kafka records (Kafka's ByteUtils.readVarint / readVarlong, which
// also reject longer encodings). Protobuf's encoding: 7 bits per byte, low group first, high bit =
// more bytes follow; zig-zag maps 0,-1,1,-2.. to 0,1,2,3..
//
// To stay allocation-free the decoded value goes to a global and the function returns the cursor
// after the varint, or VARINT_ERROR (0) when the varint is too long or crosses `end`. 0 is never a
// valid cursor: every region the host passes starts well above the static data.

export const VARINT_ERROR: usize = 0;

/** The value of the last successful readVarint. */
export let varintValue: i32 = 0;
/** The value of the last successful readVarlong. */
export let varlongValue: i64 = 0;

// One- and two-byte varints (values -64..63 and -8192..8191: most lengths, deltas and counts
// inside records) take straight-line paths; longer ones loop.
@inline export function readVarint(ptr: usize, end: usize): usize {
  if (ptr >= end) return VARINT_ERROR;
  let b = <u32>load<u8>(ptr);
  if ((b & 0x80) == 0) {
    varintValue = <i32>((b >>> 1) ^ (0 - (b & 1)));
    return ptr + 1;
  }
  if (ptr + 1 < end) {
    let b1 = <u32>load<u8>(ptr, 1);
    if ((b1 & 0x80) == 0) {
      let raw = (b & 0x7f) | (b1 << 7);
      varintValue = <i32>((raw >>> 1) ^ (0 - (raw & 1)));
      return ptr + 2;
    }
  }
  return readVarintSlow(ptr, end);
}

function readVarintSlow(ptr: usize, end: usize): usize {
  let raw: u32 = 0;
  let shift: u32 = 0;
  for (let i = 0; i < 5; i++) {
    if (ptr >= end) return VARINT_ERROR;
    let b = <u32>load<u8>(ptr++);
    raw |= (b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      varintValue = <i32>((raw >>> 1) ^ (0 - (raw & 1)));
      return ptr;
    }
    shift += 7;
  }
  return VARINT_ERROR;
}

@inline export function readVarlong(ptr: usize, end: usize): usize {
  if (ptr >= end) return VARINT_ERROR;
  let b = <u64>load<u8>(ptr);
  if ((b & 0x80) == 0) {
    varlongValue = <i64>((b >>> 1) ^ (0 - (b & 1)));
    return ptr + 1;
  }
  if (ptr + 1 < end) {
    let b1 = <u64>load<u8>(ptr, 1);
    if ((b1 & 0x80) == 0) {
      let raw = (b & 0x7f) | (b1 << 7);
      varlongValue = <i64>((raw >>> 1) ^ (0 - (raw & 1)));
      return ptr + 2;
    }
  }
  return readVarlongSlow(ptr, end);
}

function readVarlongSlow(ptr: usize, end: usize): usize {
  let raw: u64 = 0;
  let shift: u64 = 0;
  for (let i = 0; i < 10; i++) {
    if (ptr >= end) return VARINT_ERROR;
    let b = <u64>load<u8>(ptr++);
    raw |= (b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      varlongValue = <i64>((raw >>> 1) ^ (0 - (raw & 1)));
      return ptr;
    }
    shift += 7;
  }
  return VARINT_ERROR;
}
