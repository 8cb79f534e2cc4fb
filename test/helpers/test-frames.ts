/**
 * The network tests' own request protocol: a size-prefixed frame of an int32 correlation id
 * followed by ASCII text (what their handlers echo or answer), and a logger that drops everything.
 */

/** `[int32 size][int32 correlationId][text as ASCII]`, size counting what follows it. */
export function testFrame(correlationId: number, text: string): Buffer {
  const body = Buffer.from(text, 'ascii');
  const bytes = Buffer.alloc(8 + body.length);
  bytes.writeInt32BE(4 + body.length, 0);
  bytes.writeInt32BE(correlationId, 4);
  body.copy(bytes, 8);
  return bytes;
}

/** A NetworkLogger that logs nothing. */
export const silentLogger = { debug(): void {}, info(): void {}, warn(): void {}, error(): void {} };
