/**
 * The program's own files read at start-up: the WebAssembly core (build/tributary.wasm) and the
 * WebAssembly of a codec package (zstd.wasm). Like loading a module, this is installation, not
 * broker data: it goes to the local file system whatever {@link Disk} a broker runs on, and lives
 * here with the other real I/O so no other folder needs `node:fs`.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Finds build/tributary.wasm: `$TRIBUTARY_WASM` when set, else from host/io (sources under
 * vitest) or dist/host/io (compiled).
 * @throws Error naming the places looked at when it is not built
 */
export function locateCoreWasm(): string {
  const override = process.env.TRIBUTARY_WASM;
  if (override) return override;
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [
    path.resolve(here, '../../build/tributary.wasm'),
    path.resolve(here, '../../../build/tributary.wasm'),
  ];
  for (const candidate of candidates) {
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`build/tributary.wasm not found (looked in ${candidates.join(', ')}); run \`npm run build:wasm\``);
}

/** The bytes of build/tributary.wasm ({@link locateCoreWasm}). @throws Error when not built */
export function readCoreWasm(): Buffer<ArrayBuffer> {
  return readFileSync(locateCoreWasm());
}

/** The bytes of an installed program file (a package's .wasm), by absolute path. @throws the fs error */
export function readProgramFile(absolutePath: string): Buffer<ArrayBuffer> {
  return readFileSync(absolutePath);
}
