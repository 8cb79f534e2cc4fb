import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { FrameDecoder } from '../../host/network/frame-decoder.js';

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
