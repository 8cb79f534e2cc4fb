#!/usr/bin/env node
/**
 * `npm run build:browser`: bundles the client library's browser entry (host/clients/browser.ts)
 * into dist/browser/tributary.js (ESM, platform browser) with esbuild. The example page
 * (examples/) imports that file as is.
 *
 * Three Node-only modules are swapped for browser ones at bundle time, so the library's sources
 * stay as they are:
 *   host/wasm/core.ts                       -> host/clients/browser/browser-core.ts (JS CRC-32C)
 *   host/record/compression.ts              -> host/clients/browser/browser-compression.ts
 *   host/clients/transport/tcp-transport.ts -> host/clients/browser/no-tcp-transport.ts
 * and the free `Buffer` global comes from the `buffer` package (host/clients/browser/buffer-global.ts).
 *
 * Fails (exit 1) if a Node built-in reaches the bundle: esbuild's browser platform refuses to
 * resolve them, no import may stay external, and the output is scanned for built-in specifiers
 * (`node:*`, `require("fs")`, ...) as a second line of defence.
 */
import { builtinModules } from 'node:module';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const at = (...parts) => path.join(root, ...parts);

const SWAPS = new Map([
  [at('host/wasm/core.ts'), at('host/clients/browser/browser-core.ts')],
  [at('host/record/compression.ts'), at('host/clients/browser/browser-compression.ts')],
  [at('host/clients/transport/tcp-transport.ts'), at('host/clients/browser/no-tcp-transport.ts')],
]);

/** Resolves `./x.js` imports to the `.ts` sources (NodeNext style) and applies SWAPS. */
const browserSwaps = {
  name: 'tributary-browser-swaps',
  setup(builder) {
    builder.onResolve({ filter: /^\.\.?\// }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      const target = path.resolve(args.resolveDir, args.path.replace(/\.js$/, '.ts'));
      const swapped = SWAPS.get(target);
      if (swapped !== undefined) return { path: swapped };
      return undefined;
    });
  },
};

const BUFFER_INJECT = at('host/clients/browser/buffer-global.ts');
const BUILT_INS = new Set([...builtinModules, ...builtinModules.map((name) => `node:${name}`)]);

/** Bundles one entry; returns the metafile. Throws on esbuild errors. */
async function bundle(entry, outfile) {
  const result = await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022'],
    inject: [BUFFER_INJECT],
    plugins: [browserSwaps],
    sourcemap: true,
    metafile: true,
    logLevel: 'warning',
    // The page must get the browser builds of packages (fflate's worker, ws's stub would throw).
    mainFields: ['browser', 'module', 'main'],
    conditions: ['browser', 'import'],
  });
  return result.metafile;
}

/** Every reason `outfile` is not free of Node built-ins (empty when it is). */
function builtInProblems(metafile, outfile) {
  const problems = [];
  for (const [input, info] of Object.entries(metafile.inputs)) {
    if (input.startsWith('node:') || BUILT_INS.has(input)) problems.push(`input ${input} is a Node built-in`);
    for (const imported of info.imports) {
      // esbuild lists the injected module as an "external" import of every file; it is an input.
      if (imported.external && imported.path === BUFFER_INJECT) continue;
      if (imported.external) problems.push(`${input} imports ${imported.path} (left external)`);
      if (BUILT_INS.has(imported.path)) problems.push(`${input} imports Node built-in ${imported.path}`);
    }
  }
  for (const [output, info] of Object.entries(metafile.outputs)) {
    for (const imported of info.imports) problems.push(`${output} imports ${imported.path} at run time`);
  }
  const code = readFileSync(outfile, 'utf8');
  const specifier = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)["'](node:[\w/]+|[\w/]+)["']/g;
  for (const match of code.matchAll(specifier)) {
    if (match[1].startsWith('node:') || BUILT_INS.has(match[1])) problems.push(`${path.relative(root, outfile)} loads ${match[1]}`);
  }
  return problems;
}

/** `--entry <file> --outfile <file>` bundle something else the same way (the tests check the guard). */
function targetsFromArgs(args) {
  const value = (flag) => {
    const index = args.indexOf(flag);
    return index < 0 ? undefined : args[index + 1];
  };
  const entry = value('--entry');
  const outfile = value('--outfile');
  if (entry === undefined && outfile === undefined) return [{ entry: at('host/clients/browser.ts'), outfile: at('dist/browser/tributary.js') }];
  if (entry === undefined || outfile === undefined) throw new Error('give both --entry and --outfile');
  return [{ entry: path.resolve(entry), outfile: path.resolve(outfile) }];
}

async function main() {
  const targets = targetsFromArgs(process.argv.slice(2));
  let failed = false;
  for (const { entry, outfile } of targets) {
    mkdirSync(path.dirname(outfile), { recursive: true });
    const metafile = await bundle(entry, outfile);
    const problems = builtInProblems(metafile, outfile);
    const bytes = metafile.outputs[path.relative(process.cwd(), outfile)]?.bytes ?? readFileSync(outfile).length;
    if (problems.length > 0) {
      failed = true;
      console.error(`build:browser: ${path.relative(root, outfile)} is not browser-clean:\n  ${problems.join('\n  ')}`);
    } else {
      console.log(`build:browser: ${path.relative(root, outfile)} ${(bytes / 1024).toFixed(0)} KiB, no Node built-ins`);
    }
  }
  if (failed) process.exit(1);
}

main().catch((error) => {
  console.error(`build:browser: ${error.message}`);
  process.exit(1);
});
