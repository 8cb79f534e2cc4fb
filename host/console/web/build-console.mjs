#!/usr/bin/env node
/**
 * Part of `npm run build:browser`: bundles the web console (host/console/web/main.tsx: Preact,
 * uPlot and the pages) with esbuild into dist/console/ — console.js (ESM, minified, with a source
 * map), console.css (uPlot's stylesheet, then ours) and index.html. The broker serves these files
 * under /console/ (host/console/console-assets.ts); nothing is loaded from elsewhere, so the
 * console works offline.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const web = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(web, '..', '..', '..');
const out = path.join(root, 'dist', 'console');

async function main() {
  mkdirSync(out, { recursive: true });
  const result = await build({
    entryPoints: [path.join(web, 'main.tsx')],
    outfile: path.join(out, 'console.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    sourcemap: true,
    metafile: true,
    logLevel: 'warning',
    // .js specifiers name the .tsx/.ts sources (as TypeScript's NodeNext style does elsewhere).
    resolveExtensions: ['.tsx', '.ts', '.js', '.mjs'],
    plugins: [{
      name: 'ts-extension',
      setup(builder) {
        builder.onResolve({ filter: /^\.\.?\/.*\.js$/ }, (args) => {
          for (const extension of ['.tsx', '.ts']) {
            const candidate = path.resolve(args.resolveDir, args.path.replace(/\.js$/, extension));
            try {
              readFileSync(candidate);
              return { path: candidate };
            } catch {
              // try the next extension
            }
          }
          return undefined;
        });
      },
    }],
  });
  const external = Object.values(result.metafile.outputs).flatMap((output) => output.imports.map((imported) => imported.path));
  if (external.length > 0) throw new Error(`the console bundle loads ${external.join(', ')} at run time`);
  const uplotCss = readFileSync(path.join(root, 'node_modules', 'uplot', 'dist', 'uPlot.min.css'), 'utf8');
  writeFileSync(path.join(out, 'console.css'), `${uplotCss}\n${readFileSync(path.join(web, 'console.css'), 'utf8')}`);
  copyFileSync(path.join(web, 'index.html'), path.join(out, 'index.html'));
  const bytes = readFileSync(path.join(out, 'console.js')).length;
  console.log(`build:browser: dist/console/console.js ${(bytes / 1024).toFixed(0)} KiB (Preact, uPlot, the console pages)`);
}

main().catch((error) => {
  console.error(`build:browser (console): ${error.message}`);
  process.exit(1);
});
