import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { FrameDecoder } from '../../host/network/frame-decoder.js';
import { RingFrameArena } from '../../host/wasm/frame-arena.js';

function framed(payload: Buffer): Buffer {
  const prefix = Buffer.alloc(4);
  prefix.writeInt32BE(payload.length, 0);
  return Buffer.concat([prefix, payload]);
}

function drain(decoder: FrameDecoder): Buffer[] {
  const frames: Buffer[] = [];
  for (let frame = decoder.next(); frame !== null; frame = decoder.next()) frames.push(frame);
  return frames;
}

describe('FrameDecoder', () => {
  it('returns several frames packed in one chunk, as views of that chunk', () => {
    const chunk = Buffer.concat([framed(Buffer.from('abc')), framed(Buffer.from('')), framed(Buffer.from('hello'))]);
    const decoder = new FrameDecoder(1024);
    decoder.push(chunk);
    const frames = drain(decoder);
    expect(frames.map((f) => f.toString())).toEqual(['abc', '', 'hello']);
    expect(frames[0]!.buffer).toBe(chunk.buffer);
    expect(frames[2]!.buffer).toBe(chunk.buffer);
    expect(decoder.bufferedBytes).toBe(0);
  });

  it('reassembles a frame delivered one byte at a time, including its size prefix', () => {
    const bytes = framed(Buffer.from('split across many chunks'));
    const decoder = new FrameDecoder(1024);
    const frames: Buffer[] = [];
    for (let i = 0; i < bytes.length; i++) {
      decoder.push(bytes.subarray(i, i + 1));
      frames.push(...drain(decoder));
      if (i < bytes.length - 1) expect(frames).toHaveLength(0);
    }
    expect(frames.map((f) => f.toString())).toEqual(['split across many chunks']);
  });

  it('keeps the tail of a chunk that starts the next frame', () => {
    const bytes = Buffer.concat([framed(Buffer.from('first')), framed(Buffer.from('second'))]);
    const decoder = new FrameDecoder(1024);
    decoder.push(bytes.subarray(0, 12));
    expect(drain(decoder).map((f) => f.toString())).toEqual(['first']);
    expect(decoder.bufferedBytes).toBe(3);
    decoder.push(bytes.subarray(12));
    expect(drain(decoder).map((f) => f.toString())).toEqual(['second']);
  });

  it('reports a size above the limit as soon as the prefix arrives, without buffering the body', () => {
    const decoder = new FrameDecoder(100);
    const prefix = Buffer.alloc(4);
    prefix.writeInt32BE(101, 0);
    decoder.push(prefix);
    expect(decoder.next()).toBeNull();
    expect(decoder.error).toEqual({ size: 101, reason: 'too-large' });
    decoder.push(Buffer.alloc(101));
    expect(decoder.bufferedBytes).toBe(0);
    expect(decoder.next()).toBeNull();
  });

  it('accepts a frame of exactly the limit', () => {
    const decoder = new FrameDecoder(100);
    decoder.push(framed(Buffer.alloc(100, 7)));
    expect(drain(decoder)[0]!.length).toBe(100);
    expect(decoder.error).toBeNull();
  });

  it('reports a negative size', () => {
    const decoder = new FrameDecoder(100);
    decoder.push(Buffer.from([0xff, 0xff, 0xff, 0xfe, 1, 2]));
    expect(decoder.next()).toBeNull();
    expect(decoder.error).toEqual({ size: -2, reason: 'negative-size' });
  });

  it('returns the same frames whatever the chunking (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 12 }),
        fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 1, maxLength: 20 }),
        (payloads, cuts) => {
          const stream = Buffer.concat(payloads.map((p) => framed(Buffer.from(p))));
          const decoder = new FrameDecoder(64);
          const frames: Buffer[] = [];
          let position = 0;
          let cut = 0;
          while (position < stream.length) {
            const length = cuts[cut++ % cuts.length]!;
            decoder.push(stream.subarray(position, position + length));
            position += length;
            frames.push(...drain(decoder));
          }
          expect(frames.map((f) => Buffer.from(f).toString('hex'))).toEqual(
            payloads.map((p) => Buffer.from(p).toString('hex')),
          );
          expect(decoder.bufferedBytes).toBe(0);
        },
      ),
    );
  });
});

/** A request frame payload: int16 api key, then `length - 2` bytes of a pattern. */
function request(apiKey: number, length: number, seed: number): Buffer {
  const payload = Buffer.alloc(length);
  for (let i = 0; i < length; i++) payload[i] = (i * 31 + seed) & 0xff;
  payload.writeInt16BE(apiKey, 0);
  return payload;
}

/** Pushes `stream` in `chunkBytes` pieces and returns every frame, releasing none. */
function decodeInChunks(decoder: FrameDecoder, stream: Buffer, chunkBytes: number): Buffer[] {
  const frames: Buffer[] = [];
  for (let position = 0; position < stream.length; position += chunkBytes) {
    decoder.push(stream.subarray(position, position + chunkBytes));
    frames.push(...drain(decoder));
  }
  return frames;
}

describe('FrameDecoder with a frame arena', () => {
  const PRODUCE = new Set([0]);

  it('gathers a Produce frame spanning chunks into the arena, with its bytes intact', () => {
    const region = Buffer.alloc(64 * 1024);
    const arena = new RingFrameArena(region);
    const decoder = new FrameDecoder(1 << 20, { arena, arenaApiKeys: PRODUCE });
    const payload = request(0, 5000, 1);
    const [frame] = decodeInChunks(decoder, framed(payload), 777);
    expect(frame!.equals(payload)).toBe(true);
    expect(frame!.buffer).toBe(region.buffer);
    expect(decoder.isArenaFrame(frame!)).toBe(true);
    decoder.release(frame!);
    expect(arena.liveBlocks).toBe(0);
  });

  it('keeps a frame inside one chunk a view of that chunk, and gathers other api keys on the heap', () => {
    const region = Buffer.alloc(64 * 1024);
    const arena = new RingFrameArena(region);
    const decoder = new FrameDecoder(1 << 20, { arena, arenaApiKeys: PRODUCE });
    const small = framed(request(0, 100, 2));
    decoder.push(small);
    const [view] = drain(decoder);
    expect(view!.buffer).toBe(small.buffer);
    expect(decoder.isArenaFrame(view!)).toBe(false);
    const fetch = request(1, 3000, 3);
    const [gathered] = decodeInChunks(decoder, framed(fetch), 1000);
    expect(gathered!.equals(fetch)).toBe(true);
    expect(gathered!.buffer).not.toBe(region.buffer);
    decoder.release(gathered!); // a no-op for heap frames
    expect(arena.liveBlocks).toBe(0);
  });

  it('honours arenaMinBytes and reads an api key split across chunks', () => {
    const arena = new RingFrameArena(Buffer.alloc(64 * 1024));
    const decoder = new FrameDecoder(1 << 20, { arena, arenaApiKeys: new Set([0x0102]), arenaMinBytes: 1000 });
    const below = request(0x0102, 999, 4);
    const at = request(0x0102, 1000, 5);
    // 5-byte chunks: the prefix fills 4 bytes, so each api key straddles two chunks.
    const frames = decodeInChunks(decoder, Buffer.concat([framed(below), framed(at)]), 5);
    expect(frames.map((f) => decoder.isArenaFrame(f))).toEqual([false, true]);
    expect(frames[0]!.equals(below) && frames[1]!.equals(at)).toBe(true);
  });

  it('holds several pipelined frames at once and reuses their space once released out of order', () => {
    const region = Buffer.alloc(16 * 1024);
    const arena = new RingFrameArena(region);
    const decoder = new FrameDecoder(1 << 20, { arena, arenaApiKeys: PRODUCE });
    const payloads = [request(0, 4000, 6), request(0, 4000, 7), request(0, 4000, 8)];
    const frames = decodeInChunks(decoder, Buffer.concat(payloads.map(framed)), 1500);
    expect(frames.every((f, i) => decoder.isArenaFrame(f) && f.equals(payloads[i]!))).toBe(true);
    decoder.release(frames[1]!);
    decoder.release(frames[0]!);
    // Still intact while in flight.
    expect(frames[2]!.equals(payloads[2]!)).toBe(true);
    const [next] = decodeInChunks(decoder, framed(request(0, 8000, 9)), 1500);
    expect(decoder.isArenaFrame(next!)).toBe(true);
    expect(frames[2]!.equals(payloads[2]!)).toBe(true);
    decoder.release(frames[2]!);
    decoder.release(next!);
    expect(arena.liveBlocks).toBe(0);
  });

  it('falls back to the heap when the arena is full or the frame is larger than it', () => {
    const region = Buffer.alloc(8 * 1024);
    const arena = new RingFrameArena(region);
    const decoder = new FrameDecoder(1 << 20, { arena, arenaApiKeys: PRODUCE });
    const huge = request(0, 20_000, 10);
    const [big] = decodeInChunks(decoder, framed(huge), 4096);
    expect(decoder.isArenaFrame(big!)).toBe(false);
    expect(big!.equals(huge)).toBe(true);
    const first = request(0, 6000, 11);
    const second = request(0, 6000, 12);
    const frames = decodeInChunks(decoder, Buffer.concat([framed(first), framed(second)]), 1000);
    expect(frames.map((f) => decoder.isArenaFrame(f))).toEqual([true, false]);
    expect(frames[0]!.equals(first) && frames[1]!.equals(second)).toBe(true);
    decoder.release(frames[0]!);
    decoder.release(frames[1]!);
    expect(() => decoder.release(frames[0]!)).toThrow(/not live/);
    expect(arena.liveBlocks).toBe(0);
  });

  it('allocates nothing for a malformed size, and holds nothing for a truncated frame', () => {
    const arena = new RingFrameArena(Buffer.alloc(8 * 1024));
    const tooLarge = new FrameDecoder(1000, { arena, arenaApiKeys: PRODUCE });
    const prefix = Buffer.alloc(6);
    prefix.writeInt32BE(5000, 0);
    tooLarge.push(prefix);
    expect(tooLarge.next()).toBeNull();
    expect(tooLarge.error).toEqual({ size: 5000, reason: 'too-large' });
    const negative = new FrameDecoder(1000, { arena, arenaApiKeys: PRODUCE });
    negative.push(Buffer.from([0x80, 0, 0, 0, 0, 0]));
    expect(negative.next()).toBeNull();
    expect(negative.error?.reason).toBe('negative-size');
    const truncated = new FrameDecoder(1 << 20, { arena, arenaApiKeys: PRODUCE });
    expect(decodeInChunks(truncated, framed(request(0, 3000, 13)).subarray(0, 2500), 1000)).toEqual([]);
    expect(arena.liveBlocks).toBe(0);
  });

  it('returns the same frames as without an arena whatever the chunking and release order (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ apiKey: fc.constantFrom(0, 1), length: fc.integer({ min: 2, max: 3000 }) }), { maxLength: 10 }),
        fc.integer({ min: 1, max: 2000 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 10 }),
        (specs, chunkBytes, releaseNow) => {
          const payloads = specs.map((spec, i) => request(spec.apiKey, spec.length, i));
          const arena = new RingFrameArena(Buffer.alloc(6 * 1024));
          const decoder = new FrameDecoder(4000, { arena, arenaApiKeys: PRODUCE });
          const stream = Buffer.concat(payloads.map(framed));
          const held: { frame: Buffer; copy: Buffer }[] = [];
          const seen: string[] = [];
          let k = 0;
          for (let position = 0; position < stream.length; position += chunkBytes) {
            decoder.push(stream.subarray(position, position + chunkBytes));
            for (const frame of drain(decoder)) {
              seen.push(frame.toString('hex')); // read before any later frame may reuse released space
              if (releaseNow[k++ % releaseNow.length]) decoder.release(frame);
              else held.push({ frame, copy: Buffer.from(frame) });
            }
            // Frames still in flight are never overwritten by later ones.
            for (const { frame, copy } of held) expect(frame.equals(copy)).toBe(true);
          }
          expect(seen).toEqual(payloads.map((p) => p.toString('hex')));
          for (const { frame } of held) decoder.release(frame);
          expect(arena.liveBlocks).toBe(0);
        },
      ),
      { numRuns: 40 },
    );
  });
});
