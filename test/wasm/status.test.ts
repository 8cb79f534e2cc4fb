import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CoreStatus, coreStatusName, kafkaErrorCodeForStatus } from '../../host/wasm/status.js';

describe('core status codes', () => {
  it('mirror assembly/status.ts exactly', () => {
    const source = readFileSync(new URL('../../assembly/status.ts', import.meta.url), 'utf8');
    const declared = Object.fromEntries(
      [...source.matchAll(/export const (\w+): i32 = (-?\d+);/g)].map((m) => [m[1]!, Number(m[2])]),
    );
    expect(declared).toEqual({ ...CoreStatus });
  });

  it('map to Kafka error codes by range', () => {
    expect(kafkaErrorCodeForStatus(CoreStatus.OK)).toBe(0);
    expect(kafkaErrorCodeForStatus(CoreStatus.CRC_MISMATCH)).toBe(2);
    expect(kafkaErrorCodeForStatus(CoreStatus.TRUNCATED_BATCH)).toBe(2);
    expect(kafkaErrorCodeForStatus(CoreStatus.INVALID_OFFSET_DELTA)).toBe(87);
    expect(kafkaErrorCodeForStatus(CoreStatus.EMPTY_RECORDS)).toBe(87);
    expect(kafkaErrorCodeForStatus(CoreStatus.MESSAGE_TOO_LARGE)).toBe(10);
    expect(kafkaErrorCodeForStatus(CoreStatus.INVALID_ARGUMENT)).toBe(-1);
    expect(coreStatusName(CoreStatus.CRC_MISMATCH)).toBe('CRC_MISMATCH');
    expect(coreStatusName(999)).toBe('UNKNOWN(999)');
  });
});
