/**
 * The broker's sources as the architecture tests see them: every `.ts` file under `host/`, with
 * its path relative to the repository root (forward slashes), its text and its parsed syntax tree
 * (TypeScript's compiler API: the tests measure and inspect code as the compiler reads it, not by
 * regular expressions over lines).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The repository root (absolute path). */
export const REPOSITORY_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** One source file of `host/`. */
export interface HostSource {
  /** Relative to the repository root, forward slashes: `host/log/unified-log.ts`. */
  readonly path: string;
  readonly text: string;
  readonly sourceFile: ts.SourceFile;
}

function listTypeScriptFiles(directory: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const full = join(directory, entry.name);
    if (entry.isDirectory()) found.push(...listTypeScriptFiles(full));
    else if (entry.isFile() && (entry.name.endsWith('.ts') || entry.name.endsWith('.tsx')) && !entry.name.endsWith('.d.ts')) found.push(full);
  }
  return found;
}

let cached: HostSource[] | null = null;

/** Every `host/**\/*.ts` file, sorted by path; parsed once per test file. */
export function hostSources(): HostSource[] {
  if (cached !== null) return cached;
  cached = listTypeScriptFiles(join(REPOSITORY_ROOT, 'host'))
    .map((full) => relative(REPOSITORY_ROOT, full).split(sep).join('/'))
    .sort()
    .map((path) => {
      const text = readFileSync(join(REPOSITORY_ROOT, path), 'utf8');
      return { path, text, sourceFile: ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, path.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS) };
    });
  return cached;
}

/** True when `path` lies in `folder` (`host/io`) or one of its subfolders. */
export function isUnder(path: string, folder: string): boolean {
  return path.startsWith(folder.endsWith('/') ? folder : `${folder}/`);
}

/** The generated protocol codecs: written by the code generator, exempt from the size rules. */
export const GENERATED_FOLDER = 'host/protocol/generated';
