/**
 * The console's page: files built by `npm run build:browser` (host/console/web/build-console.mjs)
 * into `dist/console/` — index.html, console.js (Preact + uPlot + the pages, one ESM bundle),
 * console.css — read once through the broker's Disk and kept in memory. Nothing is fetched from
 * elsewhere: the page works offline.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Disk } from '../io/disk.js';

/** One file of the page: bytes and content type. */
export interface ConsoleAsset {
  readonly body: Uint8Array;
  readonly contentType: string;
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
};

/**
 * `dist/console/` of this package: beside the compiled module (dist/host/console/ -> dist/console/)
 * or, when the TypeScript sources run (tests), from the repository root.
 */
export function defaultConsoleAssetsDir(disk: Disk): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const compiled = path.resolve(here, '..', '..', 'console');
  return disk.exists(path.join(compiled, 'index.html')) ? compiled : path.resolve(here, '..', '..', 'dist', 'console');
}

/** Reads every file of `dir` (not recursive); empty when the page was not built. */
export function loadConsoleAssets(disk: Disk, dir: string): Map<string, ConsoleAsset> {
  const assets = new Map<string, ConsoleAsset>();
  if (!disk.isDirectory(dir)) return assets;
  for (const name of disk.list(dir)) {
    const contentType = CONTENT_TYPES[path.extname(name)];
    if (contentType === undefined) continue;
    const file = path.join(dir, name);
    const fd = disk.open(file, 'read');
    try {
      const body = new Uint8Array(disk.fileSize(fd));
      disk.read(fd, body, 0, body.length, 0);
      assets.set(name, { body, contentType });
    } finally {
      disk.close(fd);
    }
  }
  return assets;
}
