/**
 * Layering (issue 9): the folders of host/ import each other without cycles, so each layer can be
 * read, tested and replaced below the ones that use it. A folder is a first-level directory of
 * host/ (`host/log`, `host/network`; subfolders belong to their first-level folder); the files at
 * host/'s root (the library entry) form the folder `host`. Every relative `import` / `export ...
 * from` / `import()` counts, type-only ones too (they still tie the folders' designs together).
 *
 * Cycles that exist today are listed in {@link KNOWN_CYCLES} (the folders of each, sorted, with
 * the reason): any other cycle fails, and so does a listed one that no longer exists or whose
 * folders changed, so the list only shrinks.
 */
import { dirname, posix } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { type HostSource, hostSources } from './host-sources.js';

/** Folder cycles that exist today (folders sorted, comma-separated), each with its reason. */
const KNOWN_CYCLES: Record<string, string> = {};

/** `host/log/x.ts` -> `log`; `host/broker.ts` -> `host`. */
function folderOf(path: string): string {
  const parts = path.split('/');
  return parts.length > 2 ? parts[1]! : 'host';
}

function importedSpecifiers(source: HostSource): string[] {
  const specifiers: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) {
      specifiers.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] !== undefined && ts.isStringLiteral(node.arguments[0])) {
      specifiers.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source.sourceFile);
  return specifiers;
}

/** Folder edges `from -> to` (from !== to) with one example file import each. */
function folderEdges(): Map<string, string> {
  const edges = new Map<string, string>();
  for (const source of hostSources()) {
    for (const specifier of importedSpecifiers(source)) {
      if (!specifier.startsWith('.')) continue;
      const target = posix.normalize(posix.join(dirname(source.path), specifier));
      if (!target.startsWith('host/')) continue;
      const from = folderOf(source.path);
      const to = folderOf(target);
      if (from !== to && !edges.has(`${from} -> ${to}`)) edges.set(`${from} -> ${to}`, `${source.path} imports ${specifier}`);
    }
  }
  return edges;
}

/** The cycles of a graph given as `from -> to` keys: strongly connected components of 2+ folders (Tarjan). */
function cyclicComponents(edgeKeys: Iterable<string>): string[][] {
  const next = new Map<string, string[]>();
  for (const key of edgeKeys) {
    const [from, to] = key.split(' -> ') as [string, string];
    if (!next.has(from)) next.set(from, []);
    if (!next.has(to)) next.set(to, []);
    next.get(from)!.push(to);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const connect = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const target of next.get(node)!) {
      if (!index.has(target)) {
        connect(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const node of [...next.keys()].sort()) if (!index.has(node)) connect(node);
  return components;
}

const edges = folderEdges();

describe('folder import cycles', () => {
  const cycles = cyclicComponents(edges.keys());
  const describeCycle = (component: string[]): string => {
    const inside = [...edges.keys()].filter((key) => component.includes(key.split(' -> ')[0]!) && component.includes(key.split(' -> ')[1]!));
    return `${component.join(', ')}: ${inside.map((key) => `${key} (${edges.get(key)})`).join('; ')}`;
  };

  it('the folders of host/ import each other without cycles, except the known ones', () => {
    const unknown = cycles.filter((component) => KNOWN_CYCLES[component.join(', ')] === undefined).map(describeCycle);
    expect(unknown).toEqual([]);
  });

  it('every known cycle still exists with the same folders (the list only shrinks)', () => {
    const present = new Set(cycles.map((component) => component.join(', ')));
    expect(Object.keys(KNOWN_CYCLES).filter((key) => !present.has(key))).toEqual([]);
  });

  it('finds a cycle in a graph that has one, and none in a chain', () => {
    expect(cyclicComponents(['a -> b', 'b -> c', 'c -> a', 'c -> d'])).toEqual([['a', 'b', 'c']]);
    expect(cyclicComponents(['a -> b', 'b -> c'])).toEqual([]);
  });
});
