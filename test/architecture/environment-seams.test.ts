/**
 * One Environment handed to everything (issue 9): broker code reaches time, timers, randomness,
 * the disk and the network only through `host/io`'s seams (Time, RandomSource, Disk, Network), so
 * several brokers run in one process under one manual clock and one seeded random source.
 *
 * Scans every host/ file with TypeScript's compiler API (not regular expressions: comments,
 * strings and property names such as `this.time.setTimeout` or `socket.setTimeout` do not count)
 * for what bypasses the seams: the global clocks (`Date.now`, `new Date()` without arguments,
 * `performance.now`, `process.hrtime`), the global timers (`setTimeout`, `setInterval`,
 * `setImmediate`, `queueMicrotask` and their `clear*`), the global random sources
 * (`Math.random`, `crypto.randomUUID` / `crypto.getRandomValues`, node:crypto's `randomBytes`,
 * `randomUUID`, `randomInt`, `randomFillSync`, `getRandomValues`), and the modules `node:fs`,
 * `node:net` and the like (type-only imports are erased at compile time and do not count).
 *
 * Exempt folders: the real implementations of the seams (host/io), the command line (host/cli:
 * the outermost entry, reads files and prints times), the client library (host/clients: not
 * broker code; it runs in browsers too) and the code generator (host/protocol/codegen: a build
 * tool). Any other file that still bypasses the seams is listed in {@link ALLOWED} with the reason;
 * an entry that no longer bypasses anything fails, so the list only shrinks.
 */
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { type HostSource, hostSources, isUnder } from './host-sources.js';

/** Folders whose code may use the world directly, with the reason. */
const EXEMPT_FOLDERS: Record<string, string> = {
  'host/io': 'the real implementations of the seams (SystemTime, CryptoRandom, NodeDisk, NodeNetwork)',
  'host/cli': 'the command-line entry: reads property files, prints wall-clock times',
  'host/clients': 'the client library: not broker code, runs in browsers as well as Node',
  'host/protocol/codegen': 'the code generator: a build tool reading the JSON schemas',
  'host/console/web': 'the web console page: runs in the browser (its polling timers and clock are the page\'s), not broker code',
};

/** Files outside the exempt folders that still bypass a seam, with the reason (`path` -> reason). */
const ALLOWED: Record<string, string> = {
  'host/gateway/in-process-transport.ts':
    'queueMicrotask delivers a synchronous answer after send() returns, as a network would: a microtask, not a timer (no time passes, the order is deterministic)',
  'host/network/response-memory-pool.ts':
    'queueMicrotask ends a Fetch\'s hold on queued.max.response.bytes when the dispatch loop that read it returns: a microtask, not a timer (no time passes, the order is deterministic)',
  'host/sim/main.ts': "the simulator's command-line entry: reports the campaign's real elapsed seconds beside the simulated ones",
};

/** Modules whose import bypasses the Disk or Network seams or the timers. */
const FORBIDDEN_MODULES = new Set([
  'fs', 'node:fs', 'fs/promises', 'node:fs/promises', 'net', 'node:net', 'dgram', 'node:dgram',
  'timers', 'node:timers', 'timers/promises', 'node:timers/promises', 'perf_hooks', 'node:perf_hooks',
]);
/** node:crypto's random sources (hashes and ciphers are fine). */
const FORBIDDEN_CRYPTO_NAMES = new Set(['randomBytes', 'randomUUID', 'randomInt', 'randomFillSync', 'randomFill', 'getRandomValues', 'pseudoRandomBytes']);
/** Global functions that schedule work on the real event loop. */
const FORBIDDEN_GLOBALS = new Set(['setTimeout', 'setInterval', 'setImmediate', 'queueMicrotask', 'clearTimeout', 'clearInterval', 'clearImmediate']);
/** `object.property` reads of the global clocks and random sources. */
const FORBIDDEN_MEMBERS = new Set(['Date.now', 'performance.now', 'performance.timeOrigin', 'process.hrtime', 'Math.random', 'crypto.randomUUID', 'crypto.getRandomValues']);

/** The name an identifier declares or a property it names, rather than a reference to a global. */
function isNotAReference(node: ts.Identifier): boolean {
  const parent = node.parent;
  if ((ts.isPropertyAccessExpression(parent) || ts.isQualifiedName(parent)) && (parent as ts.PropertyAccessExpression).name === node) return true;
  if ((ts.isPropertyAssignment(parent) || ts.isMethodDeclaration(parent) || ts.isPropertyDeclaration(parent) || ts.isPropertySignature(parent) ||
    ts.isMethodSignature(parent) || ts.isGetAccessor(parent) || ts.isSetAccessor(parent) || ts.isFunctionDeclaration(parent) ||
    ts.isVariableDeclaration(parent) || ts.isParameter(parent) || ts.isBindingElement(parent)) && parent.name === node) return true;
  if (ts.isImportSpecifier(parent) || ts.isExportSpecifier(parent) || ts.isImportClause(parent) || ts.isNamespaceImport(parent)) return true;
  return ts.isTypeQueryNode(parent);
}

/**
 * `import type` / `export type` (or every named binding marked `type`): erased at compile time,
 * so naming `node:net`'s Socket type does not reach the network.
 */
function isTypeOnly(node: ts.Node): boolean {
  if (ts.isImportDeclaration(node)) {
    const clause = node.importClause;
    if (clause === undefined) return false;
    if (clause.isTypeOnly) return true;
    const bindings = clause.namedBindings;
    return clause.name === undefined && bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((element) => element.isTypeOnly);
  }
  return ts.isExportDeclaration(node) && node.isTypeOnly;
}

/** Every bypass of a seam in `source`, as `line: what`. */
function bypasses(source: HostSource): string[] {
  const { sourceFile } = source;
  const found: string[] = [];
  const report = (node: ts.Node, what: string): void => {
    found.push(`${sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile)).line + 1}: ${what}`);
  };
  const visit = (node: ts.Node): void => {
    if (isTypeOnly(node)) return;
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) {
      const module = node.moduleSpecifier.text;
      if (FORBIDDEN_MODULES.has(module)) report(node, `imports ${module}`);
      if ((module === 'crypto' || module === 'node:crypto') && ts.isImportDeclaration(node)) {
        const bindings = node.importClause?.namedBindings;
        if (bindings !== undefined && ts.isNamespaceImport(bindings)) report(node, `imports all of ${module}`);
        if (bindings !== undefined && ts.isNamedImports(bindings)) {
          for (const element of bindings.elements) {
            const name = (element.propertyName ?? element.name).text;
            if (FORBIDDEN_CRYPTO_NAMES.has(name)) report(element, `imports ${name} from ${module}`);
          }
        }
      }
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0]) && FORBIDDEN_MODULES.has(node.arguments[0].text)) {
      report(node, `imports ${node.arguments[0].text}`);
    } else if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression)) {
      const member = `${node.expression.text}.${node.name.text}`;
      if (FORBIDDEN_MEMBERS.has(member)) report(node, member);
    } else if (ts.isIdentifier(node) && FORBIDDEN_GLOBALS.has(node.text) && !isNotAReference(node)) {
      report(node, node.text);
    } else if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'Date' && (node.arguments === undefined || node.arguments.length === 0)) {
      report(node, 'new Date() (the wall clock)');
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return found;
}

const scanned = hostSources()
  .filter((source) => !Object.keys(EXEMPT_FOLDERS).some((folder) => isUnder(source.path, folder)))
  .map((source) => ({ path: source.path, bypasses: bypasses(source) }));

describe('environment seams', () => {
  it('broker code reaches time, timers, randomness, the disk and the network only through host/io', () => {
    const offenders = scanned
      .filter((file) => file.bypasses.length > 0 && ALLOWED[file.path] === undefined)
      .map((file) => `${file.path}: ${file.bypasses.join('; ')}`);
    expect(offenders).toEqual([]);
  });

  it('every allowlisted file still bypasses a seam (the list only shrinks)', () => {
    const stale = Object.keys(ALLOWED).filter((path) => !scanned.some((file) => file.path === path && file.bypasses.length > 0));
    expect(stale).toEqual([]);
  });

  it('sees a bypass where there is one and not in property names, comments or strings', () => {
    const parse = (text: string): HostSource => ({ path: 'host/example.ts', text, sourceFile: ts.createSourceFile('host/example.ts', text, ts.ScriptTarget.Latest, true) });
    expect(bypasses(parse("import { readFileSync } from 'node:fs';\nconst t = Date.now();\nsetImmediate(() => {});\nconst r = Math.random();")))
      .toEqual(['1: imports node:fs', '2: Date.now', '3: setImmediate', '4: Math.random']);
    expect(bypasses(parse("import { createHash, randomBytes } from 'node:crypto';\nconst d = new Date();")))
      .toEqual(['1: imports randomBytes from node:crypto', '2: new Date() (the wall clock)']);
    expect(bypasses(parse("import type { Socket } from 'node:net';\nimport { type Stats } from 'node:fs';")))
      .toEqual([]);
    expect(bypasses(parse("// Date.now() and setTimeout\nconst s = 'setTimeout';\nthis.time.setTimeout(f, 1);\nsocket.setTimeout(5);\nconst o = { setTimeout: 1 };\nnew Date(0);")))
      .toEqual([]);
  });
});
