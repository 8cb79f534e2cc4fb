/**
 * Size-prefixed frames: every Kafka request and response on a socket is an int32 byte length
 * followed by that many bytes (header + body).
 */
import { encodeRequestHeader, encodeResponseHeader, type RequestHeader } from './headers.js';
import { Writer } from './writer.js';

/** Bytes of the size prefix. */
export const FRAME_SIZE_BYTES = 4;

/** Reserves the size prefix of a frame that starts at the writer's end; returns its position. */
export function beginFrame(w: Writer): number {
  return w.reserveInt32();
}

/** Patches the size prefix reserved by `beginFrame(w)` at `start` to cover everything written since. */
export function endFrame(w: Writer, start: number): void {
  w.patchInt32(start, w.length - start - FRAME_SIZE_BYTES);
}

/**
 * The int32 frame size at `offset` of `data`, or -1 when fewer than 4 bytes are available. The value is
 * signed: a negative size is malformed input the caller must reject (as it must sizes above
 * socket.request.max.bytes).
 */
export function readFrameSize(data: Uint8Array, offset = 0): number {
  if (offset + FRAME_SIZE_BYTES > data.length) return -1;
  return (data[offset]! << 24) | (data[offset + 1]! << 16) | (data[offset + 2]! << 8) | data[offset + 3]!;
}

/**
 * Builds a whole response frame: size, response header (v0/v1 by the ApiVersions rule), then the
 * body written by `encodeBody`. Appends to `w` when given (pipelined responses), else to a new Writer.
 * @returns the writer holding the frame
 */
export function encodeResponseFrame(
  apiKey: number, apiVersion: number, correlationId: number, encodeBody: (w: Writer) => void, w: Writer = new Writer(),
): Writer {
  const start = beginFrame(w);
  encodeResponseHeader(w, apiKey, apiVersion, correlationId);
  encodeBody(w);
  endFrame(w, start);
  return w;
}

/**
 * Builds a whole request frame: size, request header (v1/v2 by flexibility), then the body.
 * @returns the writer holding the frame
 */
export function encodeRequestFrame(
  header: Omit<RequestHeader, 'headerVersion'>, encodeBody: (w: Writer) => void, w: Writer = new Writer(),
): Writer {
  const start = beginFrame(w);
  encodeRequestHeader(w, header);
  encodeBody(w);
  endFrame(w, start);
  return w;
}
