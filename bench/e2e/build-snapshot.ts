/**
 * A private copy of the compiled broker (dist/host, build/tributary.wasm, package.json) in a temp
 * directory, so that other engineers rebuilding the shared tree during a long run cannot change
 * the code under measurement halfway. node_modules is a symlink to the project's.
 *
 * `buildCommitSnapshot` instead builds a committed revision from `git archive` (release wasm
 * with asc, host/ with tsc), for figures that name exactly what they measured.
 *
 * Layout: <snapshot>/dist/host/..., <snapshot>/build/tributary.wasm (host/wasm/core.ts finds it
 * three levels up from dist/host/wasm), <snapshot>/package.json ("type": "module").
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface BuildSnapshot {
  /** Root of the copy. */
  readonly root: string;
  /** The CLI entry point inside the copy. */
  readonly cliPath: string;
  /** `git describe`-like identity of the sources: commit and whether the tree had local changes. */
  readonly gitCommit: string;
  /** Tributary's package.json version. */
  readonly version: string;
  /** Absolute path of a module inside the copy's dist/ (e.g. 'host/clients/producer.js'). */
  distModule(relative: string): string;
  /** Removes the copy. Idempotent. */
  remove(): void;
}

/** The project root: dist/bench/e2e/ is three levels below it. */
export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * Copies the current build.
 * @throws Error when dist/host/cli/main.js or build/tributary.wasm is missing (run `npm run build`)
 */
export function takeBuildSnapshot(projectRoot: string = PROJECT_ROOT): BuildSnapshot {
  const cli = path.join(projectRoot, 'dist/host/cli/main.js');
  const wasm = path.join(projectRoot, 'build/tributary.wasm');
  for (const required of [cli, wasm]) {
    if (!existsSync(required)) throw new Error(`${required} is missing: run \`npm run build\` first`);
  }
  const root = mkdtempSync(path.join(tmpdir(), 'tributary-bench-build-'));
  cpSync(path.join(projectRoot, 'dist/host'), path.join(root, 'dist/host'), { recursive: true });
  cpSync(wasm, path.join(root, 'build/tributary.wasm'));
  cpSync(path.join(projectRoot, 'package.json'), path.join(root, 'package.json'));
  symlinkSync(path.join(projectRoot, 'node_modules'), path.join(root, 'node_modules'), 'dir');
  const version = (JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version;
  let removed = false;
  return {
    root,
    cliPath: path.join(root, 'dist/host/cli/main.js'),
    gitCommit: gitIdentity(projectRoot),
    version,
    distModule: (relative) => path.join(root, 'dist', relative),
    remove: () => {
      if (removed) return;
      removed = true;
      rmSync(root, { recursive: true, force: true });
    },
  };
}

function gitIdentity(projectRoot: string): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: projectRoot, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no', '--', 'host', 'assembly'], { cwd: projectRoot, encoding: 'utf8' }).trim();
    return dirty === '' ? commit : `${commit}+local-changes`;
  } catch {
    return 'unknown';
  }
}

/**
 * Builds `revision` (e.g. HEAD) from `git archive` into a temp directory: `asc --target release`
 * and tsc over host/ only. Takes a minute or two on a busy machine.
 * @throws Error when git, asc or tsc fails (with their output)
 */
export function buildCommitSnapshot(revision: string, projectRoot: string = PROJECT_ROOT): BuildSnapshot {
  const root = mkdtempSync(path.join(tmpdir(), 'tributary-bench-build-'));
  const run = (file: string, args: string[]): string => execFileSync(file, args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 });
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', revision], { cwd: projectRoot, encoding: 'utf8' }).trim();
    const archive = execFileSync('git', ['archive', '--format=tar', commit, 'host', 'assembly', 'asconfig.json', 'package.json', 'tsconfig.json'], { cwd: projectRoot, maxBuffer: 1 << 30 });
    execFileSync('tar', ['-x', '-C', root], { input: archive });
    symlinkSync(path.join(projectRoot, 'node_modules'), path.join(root, 'node_modules'), 'dir');
    run(path.join(projectRoot, 'node_modules/.bin/asc'), ['assembly/index.ts', '--config', 'asconfig.json', '--target', 'release']);
    writeFileSync(path.join(root, 'tsconfig.bench.json'), JSON.stringify({ extends: './tsconfig.json', include: ['host/**/*.ts'], compilerOptions: { declaration: false, sourceMap: false } }));
    run(path.join(projectRoot, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.bench.json']);
    const version = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
    let removed = false;
    return {
      root,
      cliPath: path.join(root, 'dist/host/cli/main.js'),
      gitCommit: commit,
      version,
      distModule: (relative) => path.join(root, 'dist', relative),
      remove: () => {
        if (removed) return;
        removed = true;
        rmSync(root, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    const failure = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`building ${revision} failed: ${failure.message}\n${failure.stdout ?? ''}${failure.stderr ?? ''}`);
  }
}
