/**
 * Stands in for host/wasm/core.ts in the browser bundle (scripts/build-browser.mjs swaps the
 * module at bundle time). The client library only needs the core's CRC-32C (building batches,
 * checking fetched ones); the rest of the core serves the broker's log and is not available here.
 * Same exported names as core.ts, so a new import of it fails the bundle build instead of failing
 * at run time.
 */
import { crc32c } from './crc32c.js';

export { CoreStatus, coreStatusName, kafkaErrorCodeForStatus } from '../../wasm/status.js';
export { BatchAttributes, BatchLayout } from '../../wasm/batch-layout.js';

/** The browser's core: CRC-32C only. */
export interface BrowserCore {
  /** Unsigned CRC-32C of `data`. */
  crc32c(data: Uint8Array): number;
}

const core: BrowserCore = { crc32c: (data) => crc32c(data) };

/** Mirrors core.ts's getCore() for the parts a client uses. */
export function getCore(): BrowserCore {
  return core;
}
